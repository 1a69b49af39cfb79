package consolidation

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Apply returns the cluster after the plan, as a simulation sees it: the
// removed nodes gone with their daemonset pods, each replacement a
// registered node (with the daemonset pods that would run there), and
// every evicted pod bound where the plan sends it, started at the plan's
// clock (a pod no node could take, only from an expired node, is
// pending). snap must be the Snapshot the plan was made for; it is not
// changed.
func Apply(snap *state.Snapshot, res *Result) (*state.Snapshot, error) {
	if snap == nil || res == nil || res.result == nil {
		return nil, fmt.Errorf("applying a plan: nil snapshot or plan")
	}
	gone := map[string]bool{}
	for _, n := range res.removed {
		gone[n] = true
	}
	moves := map[string]string{}
	for _, pl := range res.result.Placements {
		moves[pl.Pod] = pl.Node
	}
	for _, u := range res.result.Unschedulable {
		moves[u.Pod] = ""
	}
	return applyChanges(snap, gone, moves, res.result.Claims, res.now)
}

// Validate checks the plan with check.Result: the evicted pods, placed as
// the plan says on the Snapshot less the removed nodes and plus the
// replacements, must fit and keep every hard constraint and pool limit.
// It returns the violations; none means valid.
func Validate(snap *state.Snapshot, res *Result) []check.Violation {
	if snap == nil || res == nil || res.result == nil {
		return []check.Violation{{Subject: "plan", Message: "nil snapshot or plan"}}
	}
	gone := map[string]bool{}
	for _, n := range res.removed {
		gone[n] = true
	}
	rest := *snap
	rest.Nodes = slices.DeleteFunc(slices.Clone(snap.Nodes), func(n *state.Node) bool { return gone[n.Name] })
	evicted := map[string]bool{}
	for _, k := range res.evicted {
		evicted[k] = true
	}
	var pods []*state.Pod
	for _, p := range snap.Pods {
		if evicted[p.Key()] {
			pods = append(pods, p)
		}
	}
	return check.Result(&rest, pods, res.result)
}

// Removed returns the names of the nodes the plan removes, sorted.
func (r *Result) Removed() []string { return slices.Clone(r.removed) }

// applyChanges removes nodes, launches claims as nodes and moves pods.
func applyChanges(snap *state.Snapshot, gone map[string]bool, moves map[string]string, claims []*packing.Claim, now time.Time) (*state.Snapshot, error) {
	out := &state.Snapshot{Pools: snap.Pools, DaemonSets: snap.DaemonSets, PDBs: snap.PDBs, RepairPolicies: snap.RepairPolicies}
	receiving := map[string]bool{}
	for _, to := range moves {
		if to != "" {
			receiving[to] = true
		}
	}
	out.Nodes = make([]*state.Node, 0, len(snap.Nodes)+len(claims))
	for _, n := range snap.Nodes {
		if gone[n.Name] {
			continue
		}
		if receiving[n.Name] {
			c := *n
			c.LastPodEventTime = now
			n = &c
		}
		out.Nodes = append(out.Nodes, n)
	}
	pools := map[string]*state.Pool{}
	for _, p := range snap.Pools {
		pools[p.Name] = p
	}
	var daemons []*state.Pod
	for _, cl := range claims {
		node, err := materialize(pools[cl.Pool], cl, now)
		if err != nil {
			return nil, err
		}
		out.Nodes = append(out.Nodes, node)
		for _, ds := range snap.DaemonSets {
			if !ds.RunsOn(node.Labels, node.Taints) {
				continue
			}
			dp := *ds.Pod
			dp.Namespace, dp.Name, dp.NodeName, dp.DaemonSet, dp.StartTime = ds.Namespace, ds.Name+"-"+node.Name, node.Name, true, now
			dp.Owner = state.Owner{Kind: "DaemonSet", Name: ds.Name}
			daemons = append(daemons, &dp)
		}
	}
	out.Pods = make([]*state.Pod, 0, len(snap.Pods)+len(daemons))
	for _, p := range snap.Pods {
		if to, ok := moves[p.Key()]; ok {
			c := *p
			c.NodeName, c.StartTime = to, now
			if to == "" {
				c.StartTime = time.Time{}
			}
			out.Pods = append(out.Pods, &c)
			continue
		}
		if p.NodeName != "" && gone[p.NodeName] {
			if p.DaemonSet {
				continue
			}
			c := *p
			c.NodeName, c.StartTime = "", time.Time{}
			out.Pods = append(out.Pods, &c)
			continue
		}
		out.Pods = append(out.Pods, p)
	}
	out.Pods = append(out.Pods, daemons...)
	slices.SortFunc(out.Nodes, func(a, b *state.Node) int { return strings.Compare(a.Name, b.Name) })
	sortPodsByKey(out.Pods)
	return out, nil
}

// sortPodsByKey sorts pods by key, stably, building each key once (a
// comparison building both would allocate n log n strings).
func sortPodsByKey(pods []*state.Pod) {
	type keyed struct {
		key string
		pod *state.Pod
	}
	ks := make([]keyed, len(pods))
	for i, p := range pods {
		ks[i] = keyed{p.Key(), p}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for i, k := range ks {
		pods[i] = k.pod
	}
}

// materialize turns a claim into the node it launches, registered and
// initialised.
func materialize(pool *state.Pool, cl *packing.Claim, now time.Time) (*state.Node, error) {
	if pool == nil {
		return nil, fmt.Errorf("claim %s: nodepool %s not found", cl.Name, cl.Pool)
	}
	o := cl.Chosen()
	it := pool.InstanceType(o.InstanceType)
	if it == nil {
		return nil, fmt.Errorf("claim %s: nodepool %s offers no instance type %s", cl.Name, pool.Name, o.InstanceType)
	}
	return &state.Node{
		Name: cl.Name, Pool: pool.Name, InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType,
		Labels:      pool.ClaimLabels(it, o.Zone, o.CapacityType, cl.Name, cl.Requirements),
		Annotations: maps.Clone(pool.Annotations), Taints: slices.Clone(pool.Taints),
		Allocatable: it.Allocatable, PricePerHour: o.PricePerHour, Claim: cl.Name, Initialized: true,
		CreatedAt: now, TemplateHash: pool.TemplateHash, LastPodEventTime: now,
	}, nil
}
