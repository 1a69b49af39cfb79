package packing

import (
	"cmp"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// refillBudget bounds the work of one refill pass, in fit checks: enough
// for the few hundred claims where it pays (w3-spot); on diverse-20k a
// pass without bound took about 8% of the solve's CPU and saved nothing.
const refillBudget = 300_000

// refill re-packs, per pool, zone and capacity-type set, the pods the
// improve pass may move (movable) into the claims of that group as they
// are: every movable pod is taken out and put back, largest first, on the
// claim where it leaves the least room, preferring claims that keep pods
// which cannot move (those claims stay anyway); then every claim is shrunk
// to the cheapest offering that holds what it has, and a claim left empty
// is dropped by finalize. This is what merge and evacuate cannot do when
// most claims hold a pod that cannot move (a hostname anti-affinity member
// each): the riders around those pods are packed afresh. The result is
// applied only when it costs less; otherwise nothing changes.
func (pass *improver) refill() bool {
	budget := refillBudget
	changed := false
	for _, ns := range pass.claimGroups(func(n *node) (claimGroup, bool) {
		return claimGroup{n.pool.idx, n.zone, n.capacityTypes}, true
	}) {
		if pass.refillGroup(ns, &budget) {
			changed = true
		}
	}
	return changed
}

// claimGroup is the pool, zone (-1 for any) and capacity-type set of the
// claims a move over many claims works on together.
type claimGroup struct {
	pool, zone    int
	capacityTypes uint8
}

// claimGroups returns the new claims the improve pass may change (with
// pods, in pools without limits or minValues) by the group key gives them,
// skipping those it refuses, in pool, zone and capacity-type order and
// claim order within a group.
func (pass *improver) claimGroups(key func(*node) (claimGroup, bool)) [][]*node {
	groups := map[claimGroup][]*node{}
	var keys []claimGroup
	for _, n := range pass.s.claims {
		p := n.pool
		if n.dropped || len(n.pods) == 0 || len(p.minValues) > 0 || p.anyLimit() {
			continue
		}
		k, ok := key(n)
		if !ok {
			continue
		}
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], n)
	}
	slices.SortFunc(keys, func(a, b claimGroup) int {
		return cmp.Or(cmp.Compare(a.pool, b.pool), cmp.Compare(a.zone, b.zone), cmp.Compare(a.capacityTypes, b.capacityTypes))
	})
	out := make([][]*node, len(keys))
	for i, k := range keys {
		out[i] = groups[k]
	}
	return out
}

// refillGroup is refill for the claims of one group.
func (pass *improver) refillGroup(ns []*node, budget *int) bool {
	if len(ns) < 2 {
		return false
	}
	bins, moving, before := pass.refillBins(ns)
	// Without a pod that cannot move, the group is regroup's to re-pack,
	// onto offerings chosen afresh rather than the claims' own.
	if len(moving) == 0 || !slices.ContainsFunc(bins, func(b *refillBin) bool { return b.anchor }) {
		return false
	}
	dest, ok := pass.refillDestinations(ns[0].pool, bins, moving, budget)
	if !ok {
		return false
	}
	offers, keep, after, ok := pass.refillOffers(bins)
	if !ok || after >= before-1e-9 {
		return false
	}
	for i, m := range moving {
		if to := dest[i].n; to != m.from {
			pass.move(m.p, m.from, to)
		}
	}
	for i, b := range bins {
		if keep[i] {
			pass.retype(b.n, offers[i])
		} else {
			pass.emptied++
		}
	}
	return true
}

// refillBin is a claim while refill re-packs its group: its room and use
// without the pods that may move, whether it keeps a pod that cannot
// (an anchor), and the types every class that ends on it allows.
type refillBin struct {
	n      *node
	room   resources.Vector
	used   resources.Vector
	anchor bool
	mask   bitset
}

// refillMover is a pod that may move, with the claim it is on.
type refillMover struct {
	p    *state.Pod
	from *node
}

// refillBins takes the movable pods out of the claims ns: the claims as
// bins, the pods, and what the claims cost now.
func (pass *improver) refillBins(ns []*node) ([]*refillBin, []refillMover, float64) {
	s := pass.s
	bins := make([]*refillBin, len(ns))
	var moving []refillMover
	var before float64
	for i, n := range ns {
		b := &refillBin{n: n, room: n.room, used: n.used, mask: n.pool.typeMask(nil)}
		for _, p := range n.pods {
			c := s.podClass[p]
			if !pass.isMovable(c, n.pool) {
				b.mask = b.mask.and(s.compat(c, n.pool).mask)
				b.anchor = true
				continue
			}
			moving = append(moving, refillMover{p, n})
			b.room = b.room.Add(c.req)
			b.used = b.used.Sub(c.req)
		}
		bins[i] = b
		before += price(n)
	}
	return bins, moving, before
}

// refillDestinations puts the moving pods back, largest first, each on
// the bin where it leaves the least room, bins with an anchor first, and
// returns each pod's bin; false when one fits nowhere or the budget ran
// out.
func (pass *improver) refillDestinations(p *poolPlan, bins []*refillBin, moving []refillMover, budget *int) ([]*refillBin, bool) {
	s := pass.s
	slices.SortStableFunc(moving, func(a, b refillMover) int {
		return cmp.Compare(s.size(s.podClass[b.p].req), s.size(s.podClass[a.p].req))
	})
	dest := make([]*refillBin, len(moving))
	for i, m := range moving {
		c := s.podClass[m.p]
		cp := s.compat(c, p)
		var best *refillBin
		var bestLeft int64
		for _, b := range bins {
			*budget--
			if !c.req.Fits(b.room) || !cp.mask.has(b.n.typ.idx) {
				continue
			}
			left := s.size(b.room.Sub(c.req))
			if best == nil || (b.anchor && !best.anchor) || (b.anchor == best.anchor && left < bestLeft) {
				best, bestLeft = b, left
			}
		}
		if *budget < 0 || best == nil {
			return nil, false
		}
		best.room = best.room.Sub(c.req)
		best.used = best.used.Add(c.req)
		best.mask = best.mask.and(cp.mask)
		dest[i] = best
	}
	return dest, true
}

// refillOffers prices each bin as refilled: nothing when empty (keep is
// false), else the cheapest offering that holds it. It returns the
// offerings, which bins stay, what they cost, and false when some bin
// has no offering.
func (pass *improver) refillOffers(bins []*refillBin) ([]offer, []bool, float64, bool) {
	var after float64
	offers := make([]offer, len(bins))
	keep := make([]bool, len(bins))
	for i, b := range bins {
		if b.used == (resources.Vector{}) && !b.anchor {
			continue
		}
		o, ok := pass.cheapest(b.n, b.mask, b.mask, b.n.capacityTypes, b.used, 0, price(b.n)+1e-9)
		if !ok {
			return nil, nil, 0, false
		}
		offers[i], keep[i] = o, true
		after += o.price
	}
	return offers, keep, after, true
}
