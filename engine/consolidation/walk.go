package consolidation

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// walk chooses between res, the plan of one step, and steps that walk
// straight towards where consolidation ends. Planned one step at a time,
// consolidation chains: a plan deletes small nodes by moving their pods
// onto nodes with room, and a later plan merges those nodes into cheaper
// replacements, evicting the same pods again (a replacement can be merged
// away the same way). walk follows res in simulation (trajectory: up to
// opts.Lookahead plans, each applied, the clock moving past the pools'
// consolidateAfter between them) to the node set it ends at. When res
// moves pods onto nodes that end removes (through), it plans the step
// again twice:
//
//   - with through receiving no pod and ranked first by the consolidation
//     search, so the step can remove them itself, together with the nodes
//     whose pods res sent there (each of those pods moves once);
//   - with every node the end removes receiving no pod (their pods go to
//     nodes that stay, or new ones).
//
// In that order, it follows each the same way and takes the first whose
// end is better than res's (the second is planned only when the first is
// not taken): cheaper once each pod evicted on the way is priced at the
// pools' minSavingsPerPod (what the plan asks a replacement to save per
// pod it evicts; so fewer evictions win at equal cost, and a cheaper end
// wins when it saves more than its extra evictions are worth). The first
// is there to move pods once, so it is taken only if its end also evicts
// no more pods than res's: merging through early can reach a cheaper end
// by evicting more, a trade for the search's own thresholds, not the
// walk. The first wins where a plan fills nodes the next one merges (the
// DaemonSet-heavy clusters of issue 22, where barring every leaving node
// leaves the step so few destinations that it re-packs far more of the
// cluster and loses); the second where a small budget spreads the chain
// over many plans (issue 18's burst scale-downs).
func walk(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options, res *Result) (*Result, error) {
	first, err := trajectory(ctx, snap, now, opts, res)
	if err != nil {
		return nil, err
	}
	res.Leaving = first.leaving()
	through := movesOnto(res, first.removes)
	if len(through) == 0 {
		return res, nil
	}
	perPod := perPodPrice(snap, opts)
	score := func(e end) float64 { return e.cost + perPod*float64(e.evicted) }
	best, bestEnd, evaluations := res, first, res.Evaluations
	for _, alt := range []struct{ avoid, lead map[string]bool }{{through, through}, {first.removes, nil}} {
		walked, err := planOnce(ctx, snap, now, opts, alt.avoid, alt.lead)
		if err != nil {
			return nil, err
		}
		evaluations += walked.Evaluations
		if !consolidates(walked) {
			continue
		}
		e, err := trajectory(ctx, snap, now, opts, walked)
		if err != nil {
			return nil, err
		}
		if alt.lead != nil && e.evicted > first.evicted {
			continue
		}
		if score(e) < score(bestEnd)-1e-9 {
			best, bestEnd = walked, e
			break
		}
	}
	if best != res {
		best.Evaluations = evaluations
	}
	best.Leaving = bestEnd.leaving()
	return best, nil
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
	return visitTrajectory(ctx, snap, now, opts, res, nil)
}

// visitTrajectory is trajectory, calling visit (when set) with the
// cluster after each plan applied (the diagnosis test's view).
func visitTrajectory(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options, res *Result, visit func(*state.Snapshot)) (end, error) {
	out := end{removes: map[string]bool{}, evicted: res.PodsEvicted}
	cur, err := Apply(snap, res)
	if err != nil {
		return out, err
	}
	if visit != nil {
		visit(cur)
	}
	at := now.Add(roundInterval(cur))
	for range opts.Lookahead - 1 {
		next, err := planOnce(ctx, cur, at, opts, nil, nil)
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
		if visit != nil {
			visit(cur)
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

// movesOnto is the nodes of nodes a command of res moves a pod onto.
func movesOnto(res *Result, nodes map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, c := range res.Commands {
		for _, m := range c.Moves {
			if nodes[m.To] {
				out[m.To] = true
			}
		}
	}
	return out
}
