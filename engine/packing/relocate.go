package packing

import (
	"cmp"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// relocateBudget bounds the work of one relocate pass in fit checks,
// apart from improveBudget, so neither pass starves the other.
const relocateBudget = 100_000

// relocate is the improve pass's last move, for a claim that is too big
// for what it holds once a few of its pods could ride elsewhere: merge
// and evacuate only empty a claim, and a re-pack only takes the cheapest
// claims. For each claim, dearest first, it moves the claim's movable
// pods, largest first, each onto the spare room of another claim (which
// keeps its offering, already paid for; a pod no room holds stays), and
// keeps the first k moves after which the claim shrinks to the cheapest
// offering that saves most, if any saves. Pods move within their pool and zone, or to any zone when no
// rule counts them there (zoneFree), as merge and evacuate move them.
// Every move only lowers the cost, so a pool's result never gets dearer
// for it. It reports whether it emptied a claim.
func (pass *improver) relocate() bool {
	budget := relocateBudget
	emptied := pass.emptied
	groups := pass.claimGroups(func(n *node) (claimGroup, bool) {
		return claimGroup{pool: n.pool.idx, zone: n.zone}, true
	})
	for _, ns := range groups {
		pass.relocateGroup(ns, pass.isMovable, &budget)
	}
	for _, ns := range pass.claimGroups(func(n *node) (claimGroup, bool) {
		return claimGroup{pool: n.pool.idx, zone: -1}, true
	}) {
		pass.relocateGroup(ns, pass.zoneFree, &budget)
	}
	return pass.emptied > emptied
}

// relocateGroup is relocate over the claims ns, moving the pods of the
// classes movable allows.
func (pass *improver) relocateGroup(ns []*node, movable func(*class, *poolPlan) bool, budget *int) {
	if len(ns) < 2 {
		return
	}
	order := slices.Clone(ns)
	slices.SortStableFunc(order, func(a, b *node) int { return cmp.Compare(price(b), price(a)) })
	for _, n := range order {
		if *budget <= 0 || pass.s.ctx.Err() != nil {
			return
		}
		if len(n.pods) > 0 {
			pass.relocateFrom(n, ns, movable, budget)
		}
	}
}

// relocateFrom moves pods off n (see relocate) and reports whether it
// did.
func (pass *improver) relocateFrom(n *node, ns []*node, movable func(*class, *poolPlan) bool, budget *int) bool {
	s := pass.s
	var pods []*state.Pod
	for _, p := range n.pods {
		if movable(s.podClass[p], n.pool) {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return false
	}
	slices.SortStableFunc(pods, func(a, b *state.Pod) int {
		return cmp.Compare(s.size(s.podClass[b].req), s.size(s.podClass[a].req))
	})
	type reloc struct {
		p  *state.Pod
		to *node
	}
	room := map[*node]resources.Vector{}
	moves := make([]reloc, 0, len(pods))
	left := n.used
	mask := pass.mask(n)
	bestK, bestGain := 0, 1e-9
	var bestOffer offer
	for _, p := range pods {
		m := pass.relocateTarget(p, n, ns, room, budget)
		if m == nil {
			if *budget <= 0 {
				break
			}
			continue
		}
		req := s.podClass[p].req
		if _, ok := room[m]; !ok {
			room[m] = m.room
		}
		room[m] = room[m].Sub(req)
		moves = append(moves, reloc{p, m})
		left = left.Sub(req)
		if len(moves) == len(n.pods) {
			// Emptied: the whole price is saved.
			bestK = len(moves)
			break
		}
		o, ok := pass.cheapest(n, mask, mask, n.capacityTypes, left, 0, price(n)-bestGain)
		*budget--
		if ok {
			bestK, bestGain, bestOffer = len(moves), price(n)-o.price, o
		}
	}
	if bestK == 0 {
		return false
	}
	for _, mv := range moves[:bestK] {
		pass.move(mv.p, n, mv.to)
	}
	if len(n.pods) == 0 {
		pass.emptied++
	} else {
		pass.retype(n, bestOffer)
	}
	return true
}

// relocateTarget is the claim of ns other than from whose spare room (in
// room, tentatively, else its own) holds p with the least left over, nil
// when none does or the budget ran out.
func (pass *improver) relocateTarget(p *state.Pod, from *node, ns []*node, room map[*node]resources.Vector, budget *int) *node {
	s := pass.s
	c := s.podClass[p]
	req := c.req
	var best *node
	var bestLeft int64
	for _, m := range ns {
		if m == from || len(m.pods) == 0 {
			continue
		}
		*budget--
		if *budget < 0 {
			return nil
		}
		// Tentative moves only take room, so a claim whose own room does
		// not hold the pod is skipped before the map is read.
		r := m.room
		if !req.Fits(r) {
			continue
		}
		if t, ok := room[m]; ok {
			r = t
		}
		if !req.Fits(r) || m.capacityTypes&from.capacityTypes == 0 || !s.compat(c, m.pool).mask.has(m.typ.idx) {
			continue
		}
		if l := s.size(r.Sub(req)); best == nil || l < bestLeft {
			best, bestLeft = m, l
		}
	}
	return best
}
