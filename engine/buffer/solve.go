package buffer

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Result is a plan for the pending pods and then the buffers.
type Result struct {
	// Result is the whole plan: the real pods' claims first (as packing.Solve alone would make
	// them), then the claims opened for placeholders; placements of both; the real pods that
	// could not be placed. CostPerHour prices every claim, the buffers' included.
	*packing.Result
	// BufferClaims are the claims opened for placeholders alone (the end of Claims): what the
	// buffers add to the plan.
	BufferClaims []*packing.Claim
	// Buffers say, per pool with a buffer, how much room it asked for and where it is.
	Buffers []Status
	// Real is the pending pods' plan alone (packing.Solve's); After is the Snapshot as Real
	// leaves it (Planned), on which Placeholders were solved as Buffer. Buffer and After are
	// nil without placeholders. They let a caller check each solve against its own input.
	Real, Buffer *packing.Result
	After        *state.Snapshot
	Placeholders []*state.Pod
}

// Status is what became of one pool's buffer in a plan.
type Status struct {
	// Pool names the pool.
	Pool string `json:"nodePool"`
	// Pods is how many placeholder pods the buffer asks for (Size).
	Pods int `json:"pods"`
	// Existing counts placeholders on existing nodes and in-flight claims: room already there.
	Existing int `json:"existing"`
	// New counts placeholders on claims the plan launches (for them or for real pods).
	New int `json:"new"`
	// Unplaced counts placeholders no node can take, with Reason (the first one's).
	Unplaced int    `json:"unplaced"`
	Reason   string `json:"reason,omitempty"`
	// CostPerHour is the price of the claims opened for this buffer's placeholders alone.
	CostPerHour float64 `json:"costPerHour"`
}

// Solve places the pending pods as packing.Solve does, then every pool's buffer on what is left:
// the free room of existing nodes and in-flight claims, the room the real pods leave on the
// claims just planned, then new claims. The real pods' part of the plan is exactly packing.Solve's
// (no placeholder takes room a real pod wanted), so the buffers' price is what BufferClaims
// add. Percentages count the real pods as the plan places them. snap is not changed.
func Solve(ctx context.Context, snap *state.Snapshot, pending []*state.Pod, opts ...packing.Option) (*Result, error) {
	real, err := packing.Solve(ctx, snap, pending, opts...)
	if err != nil {
		return nil, err
	}
	out := &Result{Result: real, Real: real}
	if !hasBuffer(snap) {
		return out, nil
	}
	after := Planned(snap, real)
	holders := Pods(after)
	if len(holders) == 0 {
		out.Buffers = statuses(snap, nil, nil, nil)
		return out, nil
	}
	after.Pods = append(slices.Clone(after.Pods), holders...)
	sortPods(after.Pods)
	buf, err := packing.Solve(ctx, after, holders, opts...)
	if err != nil {
		return nil, fmt.Errorf("solving the capacity buffers' %d placeholder pods: %w", len(holders), err)
	}
	out.Result = merge(real, buf, holders)
	out.BufferClaims = buf.Claims
	out.Buffer, out.After, out.Placeholders = buf, after, holders
	out.Buffers = statuses(snap, holders, real, buf)
	return out, nil
}

func hasBuffer(snap *state.Snapshot) bool {
	return slices.ContainsFunc(snap.Pools, func(p *state.Pool) bool { return p.Buffer != nil })
}

// Planned returns a copy of snap as r leaves it: r's claims as in-flight nodes and the pods it
// placed bound to their nodes. snap is not changed.
func Planned(snap *state.Snapshot, r *packing.Result) *state.Snapshot {
	pools := map[string]*state.Pool{}
	for _, p := range snap.Pools {
		pools[p.Name] = p
	}
	out := *snap
	out.Nodes = slices.Clone(snap.Nodes)
	for _, cl := range r.Claims {
		pool := pools[cl.Pool]
		o := cl.Chosen()
		it := pool.InstanceType(o.InstanceType)
		if it == nil {
			continue
		}
		out.Nodes = append(out.Nodes, &state.Node{
			Name: cl.Name, Pool: pool.Name, InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType,
			Labels: maps.Clone(cl.Labels), Annotations: maps.Clone(pool.Annotations),
			Taints:      append(slices.Clone(pool.Taints), pool.StartupTaints...),
			Allocatable: it.Allocatable, PricePerHour: o.PricePerHour, Claim: cl.Name, InFlight: true, TemplateHash: pool.TemplateHash,
		})
	}
	slices.SortFunc(out.Nodes, func(a, b *state.Node) int { return strings.Compare(a.Name, b.Name) })
	to := make(map[string]string, len(r.Placements))
	for _, pl := range r.Placements {
		to[pl.Pod] = pl.Node
	}
	out.Pods = make([]*state.Pod, len(snap.Pods))
	for i, p := range snap.Pods {
		if node, ok := to[p.Key()]; ok && p.NodeName == "" {
			c := *p
			c.NodeName = node
			p = &c
		}
		out.Pods[i] = p
	}
	return &out
}

// merge adds buf (the placeholders' solve on Planned(snap, real)) to real: buf's claims after
// real's, placeholders placed on real's claims added to them, and the placements of both.
func merge(real, buf *packing.Result, holders []*state.Pod) *packing.Result {
	out := *real
	out.Claims = slices.Clone(real.Claims)
	byName := map[string]int{}
	for i, cl := range out.Claims {
		byName[cl.Name] = i
	}
	requests := map[string]corev1.ResourceList{}
	for _, p := range holders {
		requests[p.Key()] = p.Requests
	}
	for _, pl := range buf.Placements {
		i, ok := byName[pl.Node]
		if !ok {
			continue
		}
		cl := *out.Claims[i]
		cl.Pods = append(slices.Clone(cl.Pods), pl.Pod)
		slices.Sort(cl.Pods)
		cl.Requests = cl.Requests.DeepCopy()
		if cl.Requests == nil {
			cl.Requests = corev1.ResourceList{}
		}
		for name, q := range requests[pl.Pod] {
			sum := cl.Requests[name]
			sum.Add(q)
			cl.Requests[name] = sum
		}
		out.Claims[i] = &cl
	}
	out.Claims = append(out.Claims, buf.Claims...)
	out.Placements = append(slices.Clone(real.Placements), buf.Placements...)
	slices.SortFunc(out.Placements, func(a, b packing.Placement) int { return cmp.Compare(a.Pod, b.Pod) })
	out.CostPerHour = real.CostPerHour + buf.CostPerHour
	out.LowerBoundPerHour = real.LowerBoundPerHour + buf.LowerBoundPerHour
	return &out
}

// statuses reports each pool's buffer: where real's and buf's placements put its placeholders.
func statuses(snap *state.Snapshot, holders []*state.Pod, real, buf *packing.Result) []Status {
	byPool := map[string]*Status{}
	var out []*Status
	for _, p := range snap.Pools {
		if p.Buffer == nil {
			continue
		}
		s := &Status{Pool: p.Name}
		byPool[p.Name] = s
		out = append(out, s)
	}
	pool := map[string]string{}
	for _, h := range holders {
		pool[h.Key()] = h.Labels[LabelPool]
		byPool[h.Labels[LabelPool]].Pods++
	}
	if buf != nil {
		newNodes := map[string]bool{}
		for _, cl := range real.Claims {
			newNodes[cl.Name] = true
		}
		for _, cl := range buf.Claims {
			newNodes[cl.Name] = true
			if len(cl.Pods) > 0 {
				// A claim opened for placeholders is charged to the buffer of its first pod.
				byPool[pool[cl.Pods[0]]].CostPerHour += cl.Chosen().PricePerHour
			}
		}
		for _, pl := range buf.Placements {
			if newNodes[pl.Node] {
				byPool[pool[pl.Pod]].New++
			} else {
				byPool[pool[pl.Pod]].Existing++
			}
		}
		for _, u := range buf.Unschedulable {
			s := byPool[pool[u.Pod]]
			if s.Unplaced == 0 {
				s.Reason = u.Reason
			}
			s.Unplaced++
		}
	}
	res := make([]Status, len(out))
	for i, s := range out {
		res[i] = *s
	}
	return res
}
