package packing

import (
	"cmp"
	"context"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Narrowing: a pool that allows more instance types can never need to
// cost more than a sub-pool of it (any answer on the sub-pool is one on
// the pool), yet the greedy fill and its local moves are path-dependent:
// a type only the wider pool has can win a claim decision that leads the
// rest of the fill, and the improvement pass, somewhere dearer. For small
// batches, where a solve takes a millisecond or two, narrow searches the
// sub-pools that leave out a type the answer buys: each in turn, the one
// the answer spends most on first, is banned from its pool and the batch
// solved again; a cheaper answer is kept, with its bans, and the search
// goes on from it, within narrowSolves solves, until an answer reaches
// the lower bound; an error (the caller's deadline) ends the search with
// the best answer so far.

// narrowSolves caps the extra solves of narrow.
const narrowSolves = 8

// ban is an instance type left out of a pool.
type ban struct{ pool, typ string }

// narrow returns best, or a cheaper answer found on a sub-pool of snap's
// pools that leaves out types best buys (see above). The answer kept
// places the same pods on new claims, so best's lower bound holds for it.
func narrow(ctx context.Context, snap *state.Snapshot, best *Result, solveOn func(*state.Snapshot) (*Result, error)) *Result {
	banned := map[ban]bool{}
	tried := map[ban]bool{}
	// An answer at its lower bound is the cheapest there is: no sub-pool
	// answer that puts the same pods on new claims (the only kind kept)
	// can cost less.
	for solves := 0; solves < narrowSolves && best.CostPerHour > best.LowerBoundPerHour; {
		improved := false
		for _, b := range spend(best) {
			if tried[b] || solves >= narrowSolves || ctx.Err() != nil {
				continue
			}
			tried[b] = true
			banned[b] = true
			sub := without(snap, banned)
			if sub == nil {
				delete(banned, b)
				continue
			}
			solves++
			r, err := solveOn(sub)
			if err != nil {
				// best is an answer already: a solve cut short by the
				// caller's deadline (or failing otherwise) ends the
				// search, not the Solve.
				return best
			}
			if r.CostPerHour < best.CostPerHour*(1-1e-9) && sameNewPods(r, best) {
				r.LowerBoundPerHour = best.LowerBoundPerHour
				best, improved = r, true
				break
			}
			delete(banned, b)
		}
		if !improved {
			break
		}
	}
	return best
}

// spend lists the (pool, type) pairs r's claims buy, the most spent on
// first.
func spend(r *Result) []ban {
	total := map[ban]float64{}
	for _, c := range r.Claims {
		o := c.Chosen()
		total[ban{c.Pool, o.InstanceType}] += o.PricePerHour
	}
	out := make([]ban, 0, len(total))
	for b := range total {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b ban) int {
		return cmp.Or(cmp.Compare(total[b], total[a]), cmp.Compare(a.pool, b.pool), cmp.Compare(a.typ, b.typ))
	})
	return out
}

// without is snap with the banned types left out of their pools, or nil
// when that leaves a pool with no type.
func without(snap *state.Snapshot, banned map[ban]bool) *state.Snapshot {
	out := *snap
	out.Pools = make([]*state.Pool, len(snap.Pools))
	for i, p := range snap.Pools {
		q := *p
		q.InstanceTypes = slices.DeleteFunc(slices.Clone(p.InstanceTypes), func(it *catalog.InstanceType) bool {
			return banned[ban{p.Name, it.Name}]
		})
		if len(q.InstanceTypes) == 0 {
			return nil
		}
		out.Pools[i] = &q
	}
	return &out
}

// sameNewPods reports whether a and b leave the same pods unschedulable
// and put the same pods on new claims.
func sameNewPods(a, b *Result) bool {
	if !slices.EqualFunc(a.Unschedulable, b.Unschedulable, func(x, y Unschedulable) bool { return x.Pod == y.Pod }) {
		return false
	}
	return slices.Equal(newPods(a), newPods(b))
}

// newPods are the keys of the pods r puts on new claims, sorted.
func newPods(r *Result) []string {
	var out []string
	for _, c := range r.Claims {
		out = append(out, c.Pods...)
	}
	slices.Sort(out)
	return out
}
