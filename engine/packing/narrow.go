package packing

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Narrowing: a pool that allows more instance types can never need to
// cost more than a sub-pool of it (any answer on the sub-pool is one on
// the pool), yet the greedy fill and its local moves are path-dependent:
// a type only the wider pool has can win a claim decision that leads the
// rest of the fill, and the improvement pass, somewhere dearer. For small
// batches, where a solve takes a millisecond or two, narrow searches
// sub-pools around the answer: for each type the answer buys, the one it
// spends most on first, the batch is solved again on the pool less that
// type, and on the types the answer buys less that type. A cheaper answer
// is kept, with its sub-pool, and the search goes on from it, within
// narrowSolves solves, until an answer reaches the lower bound; an error
// (the caller's deadline) ends the search with the best answer so far.
//
// The second move is what makes the search follow the answer rather than
// the pool: a sub-pool built only of the answer's own types is the same
// whether the pool listed other types or not, so a pool and a sub-pool of
// it whose solves buy the same types search the same sub-pools from there
// on. Banning one type from the whole pool alone leaves the wider pool's
// other extra types to lead its solve elsewhere: of the 1,000
// pool/sub-pool pairs of TestMonotoneCost, the pool cost more in 15 with
// that move alone (see maxNonMonotone for the count with both).

// narrowSolves caps the extra solves of narrow.
const narrowSolves = 8

// ban is an instance type left out of a pool.
type ban struct{ pool, typ string }

// narrow returns best, or a cheaper answer found on a sub-pool of snap's
// pools (see above). The answer kept places the same pods on new claims,
// so best's lower bound holds for it.
func narrow(ctx context.Context, snap *state.Snapshot, best *Result, solveOn func(*state.Snapshot) (*Result, error)) (*Result, map[ban]bool) {
	n := narrowing{ctx: ctx, snap: snap, best: best, solveOn: solveOn, seen: map[string]bool{}}
	banned := map[ban]bool{}
	// An answer at its lower bound is the cheapest there is: no sub-pool
	// answer that puts the same pods on new claims (the only kind kept)
	// can cost less.
	for n.solves < narrowSolves && n.best.CostPerHour > n.best.LowerBoundPerHour {
		var next map[ban]bool
		for _, b := range spend(n.best) {
			outside := maps.Clone(banned)
			outside[b] = true
			own := unbought(snap, n.best)
			own[b] = true
			if n.try(outside) {
				next = outside
			} else if !n.stopped && n.try(own) {
				next = own
			}
			if next != nil || n.stopped {
				break
			}
		}
		if next == nil {
			break
		}
		banned = next
	}
	return n.best, banned
}

// narrowing is the state of one narrow search.
type narrowing struct {
	ctx     context.Context
	snap    *state.Snapshot
	best    *Result
	solveOn func(*state.Snapshot) (*Result, error)
	// seen are the sub-pools solved (banKey of their bans), solves how
	// many; stopped is set once a solve failed.
	seen    map[string]bool
	solves  int
	stopped bool
}

// try solves the batch on the pool less bans, unless that sub-pool was
// solved already, has a pool with no type left, or the budget or the
// context is spent, and keeps the answer when it is cheaper and places
// the same pods on new claims. It reports whether it kept one. A failed
// solve (the caller's deadline, say) stops the search: best is an answer
// already.
func (n *narrowing) try(bans map[ban]bool) bool {
	key := banKey(bans)
	if n.stopped || n.seen[key] || n.solves >= narrowSolves || n.ctx.Err() != nil {
		return false
	}
	n.seen[key] = true
	sub := without(n.snap, bans)
	if sub == nil {
		return false
	}
	n.solves++
	r, err := n.solveOn(sub)
	if err != nil {
		n.stopped = true
		return false
	}
	if r.CostPerHour < n.best.CostPerHour*(1-1e-9) && sameNewPods(r, n.best) {
		r.LowerBoundPerHour = n.best.LowerBoundPerHour
		n.best = r
		return true
	}
	return false
}

// unbought bans every type of snap's pools that r's claims do not buy.
func unbought(snap *state.Snapshot, r *Result) map[ban]bool {
	bought := map[ban]bool{}
	for _, c := range r.Claims {
		bought[ban{c.Pool, c.Chosen().InstanceType}] = true
	}
	out := map[ban]bool{}
	for _, p := range snap.Pools {
		for _, it := range p.InstanceTypes {
			if b := (ban{p.Name, it.Name}); !bought[b] {
				out[b] = true
			}
		}
	}
	return out
}

// banKey is a canonical key of a set of bans.
func banKey(bans map[ban]bool) string {
	keys := make([]string, 0, len(bans))
	for b := range bans {
		keys = append(keys, b.pool+"\x00"+b.typ)
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x01")
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

// banFill marks, in the solver's own copies of the pools, the types the
// options ban from the fill (options.fillBans): typeMask leaves them out
// of every class's types and lpColumns out of the pods' values, so the
// fill packs as on the pool less them.
func (s *solver) banFill() {
	if len(s.opts.fillBans) == 0 {
		return
	}
	for _, p := range s.pools {
		var m bitset
		for _, t := range p.types {
			if s.opts.fillBans[ban{p.pool.Name, t.instance.Name}] {
				if m == nil {
					m = newBitset(len(p.types))
				}
				m.set(t.idx)
			}
		}
		p.fillBan = m
	}
}

// liftFillBans gives the fill's claims back every type of their pools
// before the improve pass: a sub-pool's answer is one on the whole pool,
// and the pass may retype its claims to a type the sub-pool lacked (the
// answer narrow keeps would otherwise buy a dearer type than the pool
// offers for the same pods).
func (s *solver) liftFillBans() {
	if len(s.opts.fillBans) == 0 {
		return
	}
	for _, p := range s.pools {
		p.fillBan = nil
		p.masks = map[string]bitset{}
	}
	s.compats = nil
}

// unbanned are types less those the fill may not open.
func (p *poolPlan) unbanned(types []*poolType) []*poolType {
	return slices.DeleteFunc(slices.Clone(types), func(t *poolType) bool { return p.fillBan.has(t.idx) })
}

// refit solves the batch once more when narrow kept an answer from a
// sub-pool (bans not empty): the fill packs as on that sub-pool
// (options.fillBans) and the improve pass then retypes its claims on the
// whole pool, which may hold a cheaper type for a claim's pods than the
// sub-pool did. The cheaper answer is kept when it places the same pods
// on new claims, with best's lower bound.
func refit(best *Result, bans map[ban]bool, solveFitted func() (*Result, error)) *Result {
	if len(bans) == 0 {
		return best
	}
	r, err := solveFitted()
	if err != nil || r.CostPerHour >= best.CostPerHour*(1-1e-9) || !sameNewPods(r, best) {
		return best
	}
	r.LowerBoundPerHour = best.LowerBoundPerHour
	return r
}
