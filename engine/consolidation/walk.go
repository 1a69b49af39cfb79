package consolidation

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// walk chooses between res, the plan of one step, and a step that walks
// straight towards where consolidation ends. Planned one step at a time,
// consolidation chains: a plan moves the pods of small nodes onto a large,
// half-empty one, and a later plan replaces that large node, evicting
// them again (a replacement can be merged away the same way). walk
// follows res in simulation (trajectory: up to opts.Lookahead plans, each
// applied, the clock moving past the pools' consolidateAfter between
// them) to the node set it ends at; when res moves pods onto a node that
// end removes, it plans the step again with those nodes receiving no pod
// (their pods go to nodes that stay, or new ones), follows that step the
// same way, and takes it if its end is better: cheaper once each pod
// evicted on the way is priced at the pools' minSavingsPerPod (what the
// plan asks a replacement to save per pod it evicts; so fewer evictions
// win at equal cost, and a cheaper end wins when it saves more than its
// extra evictions are worth).
func walk(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options, res *Result) (*Result, error) {
	first, err := trajectory(ctx, snap, now, opts, res)
	if err != nil {
		return nil, err
	}
	res.Leaving = first.leaving()
	if !movesOnto(res, first.removes) {
		return res, nil
	}
	walked, err := planOnce(ctx, snap, now, opts, first.removes)
	if err != nil {
		return nil, err
	}
	if !consolidates(walked) {
		return res, nil
	}
	second, err := trajectory(ctx, snap, now, opts, walked)
	if err != nil {
		return nil, err
	}
	perPod := perPodPrice(snap, opts)
	if second.cost+perPod*float64(second.evicted) >= first.cost+perPod*float64(first.evicted)-1e-9 {
		return res, nil
	}
	walked.Evaluations += res.Evaluations
	walked.Leaving = second.leaving()
	return walked, nil
}

// leaving is e.removes sorted (Result.Leaving).
func (e end) leaving() []string {
	return slices.Sorted(maps.Keys(e.removes))
}

// end is where a trajectory leaves the cluster: the original nodes it
// removes, the price of the nodes left and the pods evicted on the way.
type end struct {
	removes map[string]bool
	cost    float64
	evicted int
}

// trajectory applies res to snap, then plans and applies up to
// opts.Lookahead-1 more plans, and says where that ends.
func trajectory(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options, res *Result) (end, error) {
	out := end{removes: map[string]bool{}, evicted: res.PodsEvicted}
	cur, err := Apply(snap, res)
	if err != nil {
		return out, err
	}
	at := now.Add(roundInterval(cur))
	for range opts.Lookahead - 1 {
		next, err := planOnce(ctx, cur, at, opts, nil)
		if err != nil {
			return out, err
		}
		if len(next.Commands) == 0 {
			break
		}
		out.evicted += next.PodsEvicted
		if cur, err = Apply(cur, next); err != nil {
			return out, err
		}
		at = at.Add(roundInterval(cur))
	}
	for _, n := range cur.Nodes {
		out.cost += n.PricePerHour
	}
	left := survivors(snap.Nodes, cur.Nodes)
	for _, n := range snap.Nodes {
		if !left[n.Name] {
			out.removes[n.Name] = true
		}
	}
	return out, nil
}

// survivors is the names of the nodes of before still in after: the same
// name, launched at the same time as the same type. A name alone does not
// say a node stayed: a simulated launch (Apply) names its claim as
// packing does, "<pool>-<n>" skipping the nodes it sees, so a later plan's
// replacement can take the name of a node an earlier plan removed.
func survivors(before, after []*state.Node) map[string]bool {
	now := make(map[string]*state.Node, len(after))
	for _, n := range after {
		now[n.Name] = n
	}
	out := make(map[string]bool, len(before))
	for _, n := range before {
		if m, ok := now[n.Name]; ok && m.CreatedAt.Equal(n.CreatedAt) && m.InstanceType == n.InstanceType {
			out[n.Name] = true
		}
	}
	return out
}

// perPodPrice is what walk charges per pod evicted: the largest
// minSavingsPerPod among snap's pools (Options' where a pool leaves it
// out, or when there is no pool).
func perPodPrice(snap *state.Snapshot, opts Options) float64 {
	if len(snap.Pools) == 0 {
		return opts.MinSavingsPerPod
	}
	price := 0.0
	for _, pool := range snap.Pools {
		v := opts.MinSavingsPerPod
		if pool.Disruption.MinSavingsPerPod != nil {
			v = *pool.Disruption.MinSavingsPerPod
		}
		price = max(price, v)
	}
	return price
}

// roundInterval is how long after a plan the next may disrupt the nodes
// it moved pods to: the pools' longest consolidateAfter and a second, at
// least a minute.
func roundInterval(snap *state.Snapshot) time.Duration {
	d := time.Minute
	for _, p := range snap.Pools {
		if a := p.Disruption.ConsolidateAfter; a != nil && *a+time.Second > d {
			d = *a + time.Second
		}
	}
	return d
}

// consolidates reports whether res has a consolidation command (the only
// method whose choice of destination a look-ahead can improve).
func consolidates(res *Result) bool {
	return slices.ContainsFunc(res.Commands, func(c Command) bool { return c.Reason == ReasonUnderutilized })
}

// movesOnto reports whether a command of res moves a pod onto a node of
// nodes.
func movesOnto(res *Result, nodes map[string]bool) bool {
	for _, c := range res.Commands {
		for _, m := range c.Moves {
			if nodes[m.To] {
				return true
			}
		}
	}
	return false
}
