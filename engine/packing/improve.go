package packing

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// improveBudget bounds the work of one improve pass, in fit checks and
// offerings scanned, so the pass costs at most a few tens of milliseconds
// and, being counted rather than timed, stays deterministic.
const improveBudget = 150_000

// improve is the local-improvement pass run on the new claims after
// packing and before finalize. Within each (pool, zone), then across the
// zones of each pool for claims whose pods no rule counts per zone
// (zoneFree), it visits the claims cheapest first and tries to empty each
// one:
//
//   - merge: all its pods onto one other claim, which is re-sized to the
//     cheapest offering that holds both, when that costs less than the two;
//   - evacuate: its pods onto the spare room of other claims, each target
//     re-sized to the cheapest offering that holds what it gets, when the
//     targets' growth costs less than the emptied claim.
//
// Then two moves over many claims at once: refill (refill.go) packs the
// movable pods afresh around the pods that cannot move, and regroup
// (regroup.go) re-packs the cheapest claims' pods onto new offerings.
// Then relocate (relocate.go) moves some pods of a claim onto others'
// spare room so that the claim shrinks, and swap (swap.go) exchanges
// pods between a claim and others full in another resource so that it
// takes a cheaper type (Solves that pick one strategy skip it). Last, for
// batches of fewer than planMinPods pods solved with every strategy,
// pairs (pairs.go) splits the pods of every two claims afresh.
//
// Every claim is first shrunk to its cheapest offering. Only movable pods
// move (see movable): pods whose hard and soft rules all hold per zone or
// not at all, so moving them within a zone keeps every rule, and a claim
// left empty is dropped by finalize. Pools with limits or minValues are
// left alone, as are batches with a hostname spread using minDomains (a
// node fewer could change its skew).
//
// The pass works on solver state (claims as *node, pods by class), so the
// consolidation engine can reuse it for claims it builds the same way:
// fill s.claims, call s.improve, then s.finalize.
//
// It reports whether it emptied a claim (see renumber).
func (s *solver) improve() bool {
	if len(s.claims) < 2 || s.hostMinDomains() {
		return false
	}
	pass := &improver{s: s, budget: improveBudget, movable: map[*class]bool{}, masks: map[*node]bitset{}, maxAlloc: map[*poolPlan]resources.Vector{}}
	type groupKey struct{ pool, zone int }
	groups := map[groupKey][]*node{}
	var keys []groupKey
	for _, n := range s.claims {
		p := n.pool
		if n.dropped || len(n.pods) == 0 || len(p.minValues) > 0 || p.anyLimit() {
			continue
		}
		k := groupKey{p.idx, n.zone}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], n)
	}
	slices.SortFunc(keys, func(a, b groupKey) int { return cmp.Or(cmp.Compare(a.pool, b.pool), cmp.Compare(a.zone, b.zone)) })
	for _, k := range keys {
		ns := groups[k]
		for _, n := range ns {
			pass.shrink(n)
		}
		if len(ns) < 2 {
			continue
		}
		pass.group(ns, pass.allMovable)
	}
	// A claim whose pods no rule counts per zone (zoneFree) may empty
	// into claims of any zone of its pool: its pods go where they are
	// cheapest to add, which the groups above, one zone each, never see.
	for _, ns := range pass.claimGroups(func(n *node) (claimGroup, bool) {
		return claimGroup{pool: n.pool.idx, zone: -1}, true
	}) {
		pass.group(ns, pass.allZoneFree)
	}
	pass.refill()
	for range 3 {
		if !pass.regroup() {
			break
		}
	}
	pass.relocate()
	if s.opts.strategy < 0 && !s.opts.noSwap {
		pass.swap()
	}
	if s.opts.pairs {
		pass.pairs()
	}
	return pass.emptied > 0
}

// improver is one improve pass's state.
type improver struct {
	s      *solver
	budget int
	// movable caches movable per class.
	movable map[*class]bool
	// masks caches, per claim, the types its classes allow.
	masks    map[*node]bitset
	maxAlloc map[*poolPlan]resources.Vector
	// relocBuf is relocate's scratch.
	relocBuf []*state.Pod
	// needed caches hostAffinityGroups.
	needed map[int]bool
	// emptied counts the claims the pass emptied.
	emptied int
	// bucketBuf is regroup's scratch, reused across re-packs, and
	// maskBuf repackOffers' for the types a set allows; frontiers are
	// repackOffers' memos by a hash of their key.
	frontiers map[uint64][]*offerFrontier
	bucketBuf []regroupBucket
	maskBuf   bitset
	greedy    regroupScratch
	// swapBuf is swap's scratch.
	swapBuf swapScratch
}

// hostMinDomains reports whether some class spreads over hostnames with
// minDomains set.
func (s *solver) hostMinDomains() bool {
	for _, c := range s.classes {
		for _, sp := range c.spreads {
			if sp.minDomains > 0 && isHostname(s.groups.list[sp.group].key) {
				return true
			}
		}
	}
	return false
}

func (p *poolPlan) anyLimit() bool {
	for d := range resources.MaxDims {
		if p.limited[d] {
			return true
		}
	}
	return false
}

// movable reports whether pods of c may move between claims of one pool
// in one zone without breaking or weakening any rule: no node
// requirement, no host port, and every pod (anti-)affinity term, spread,
// and group that counts it keyed on the zone, where counts do not change.
func (pass *improver) isMovable(c *class, p *poolPlan) bool {
	if m, ok := pass.movable[c]; ok {
		return m
	}
	s := pass.s
	zonal := func(g int) bool { return s.groups.list[g].key == scheduling.LabelTopologyZone }
	ok := len(c.ports) == 0 && len(s.compat(c, p).term) == 0 && len(c.preferred) == 0
	for _, t := range c.anti {
		ok = ok && zonal(t.group)
	}
	for _, t := range c.affinity {
		ok = ok && zonal(t.group)
	}
	for _, sp := range c.spreads {
		ok = ok && zonal(sp.group)
	}
	for _, g := range c.matches {
		ok = ok && zonal(g)
	}
	pass.movable[c] = ok
	return ok
}

// allMovable reports whether every pod on n is movable.
func (pass *improver) allMovable(n *node) bool {
	for _, p := range n.pods {
		if !pass.isMovable(pass.s.podClass[p], n.pool) {
			return false
		}
	}
	return true
}

// mask is the types every class on n allows in its pool.
func (pass *improver) mask(n *node) bitset {
	if m, ok := pass.masks[n]; ok {
		return m
	}
	all := n.pool.typeMask(nil)
	m := all
	var buf [compatBuf]*compat
	for _, cp := range pass.s.claimCompats(n, buf[:0]) {
		if owned(m, all) {
			m.andInto(m, cp.mask)
		} else {
			m = m.and(cp.mask)
		}
	}
	pass.masks[n] = m
	return m
}

// cheapest is the cheapest offering in n's pool and zone, among
// capacityTypes and the types mask (narrowed by mask2) allows, that holds
// used and costs at least lo and less than hi; ok is false when none does
// or the budget ran out. The offerings are sorted by price, so only those
// in [lo, hi) are looked at.
func (pass *improver) cheapest(n *node, mask, mask2 bitset, capacityTypes uint8, used resources.Vector, lo, hi float64) (offer, bool) {
	p := n.pool
	capacityTypes &= p.capacityTypeMask
	pass.budget--
	if !used.Fits(pass.largest(p)) {
		return offer{}, false
	}
	offers := p.offers[n.zone]
	// The first offering priced at least lo-1e-12 (prices are positive
	// numbers, never NaN).
	from := lo - 1e-12
	i, j := 0, len(offers)
	for i < j {
		h := int(uint(i+j) >> 1)
		if offers[h].price < from {
			i = h + 1
		} else {
			j = h
		}
	}
	for _, o := range offers[i:] {
		if o.price >= hi {
			return offer{}, false
		}
		pass.budget--
		if pass.budget < 0 {
			return offer{}, false
		}
		if capacityTypes&(1<<o.capacityType) != 0 && mask.has(o.t.idx) && mask2.has(o.t.idx) && used.Fits(o.t.alloc) {
			return o, true
		}
	}
	return offer{}, false
}

// largest is, per resource, the most any of p's types has.
func (pass *improver) largest(p *poolPlan) resources.Vector {
	if v, ok := pass.maxAlloc[p]; ok {
		return v
	}
	var v resources.Vector
	for _, t := range p.types {
		for d := range resources.MaxDims {
			v[d] = max(v[d], t.alloc[d])
		}
	}
	pass.maxAlloc[p] = v
	return v
}

// price is what n costs at its type and capacity type in its zone.
func price(n *node) float64 { return n.typ.price[n.zone*numCapacityTypes+n.capacityType] }

// shrink re-sizes n to the cheapest offering that holds its pods.
func (pass *improver) shrink(n *node) {
	if o, ok := pass.cheapest(n, pass.mask(n), pass.mask(n), n.capacityTypes, n.used, 0, price(n)-1e-12); ok {
		pass.retype(n, o)
	}
}

// retype gives n the offering o.
func (pass *improver) retype(n *node, o offer) {
	p := n.pool
	p.usage = p.usage.Sub(n.typ.capacity).Add(o.t.capacity)
	n.typ, n.capacityType = o.t, o.capacityType
	n.room = o.t.alloc.Sub(n.used)
}

// group improves the claims ns, of one pool: it tries to empty each claim
// whose pods may all move to any of ns (movable says which) into others.
func (pass *improver) group(ns []*node, movable func(*node) bool) {
	order := slices.Clone(ns)
	slices.SortStableFunc(order, func(a, b *node) int { return cmp.Compare(price(a), price(b)) })
	for _, n := range order {
		if pass.budget <= 0 || pass.s.ctx.Err() != nil {
			return
		}
		if len(n.pods) == 0 || !movable(n) {
			continue
		}
		if pass.merge(n, ns) || pass.evacuate(n, ns) {
			pass.emptied++
		}
	}
}

// merge moves all of n's pods onto the one other claim whose re-sized
// offering saves the most, if any saves.
func (pass *improver) merge(n *node, ns []*node) bool {
	var best *node
	var bestOffer offer
	bestGain := 1e-9
	mask := pass.mask(n)
	for _, m := range ns {
		if m == n || len(m.pods) == 0 || pass.budget <= 0 {
			continue
		}
		// m is already the cheapest offering for its own pods, so no
		// offering for both costs less than m; one that saves costs
		// less than m and n together.
		capacityTypes := m.capacityTypes & n.capacityTypes
		used := m.used.Add(n.used)
		o, ok := pass.cheapest(m, mask, pass.mask(m), capacityTypes, used, price(m), price(m)+price(n)-bestGain)
		if !ok {
			continue
		}
		if gain := price(m) + price(n) - o.price; gain > bestGain {
			best, bestOffer, bestGain = m, o, gain
		}
	}
	if best == nil {
		return false
	}
	pods := slices.Clone(n.pods)
	for _, p := range pods {
		pass.move(p, n, best)
	}
	pass.retype(best, bestOffer)
	return true
}

// evacuate moves n's pods, largest first, each onto the other claim with
// the least room left once it is there, within the room of the target's
// current offering (already paid for), and reports whether all of them
// found a place; otherwise nothing moves.
func (pass *improver) evacuate(n *node, ns []*node) bool {
	s := pass.s
	pods := slices.Clone(n.pods)
	slices.SortStableFunc(pods, func(a, b *state.Pod) int {
		return cmp.Compare(s.size(s.podClass[b].req), s.size(s.podClass[a].req))
	})
	// Tentative room per target: its current type's room, which it pays
	// for already.
	room := map[*node]resources.Vector{}
	dest := make([]*node, len(pods))
	for i, p := range pods {
		req := s.podClass[p].req
		var best *node
		var bestLeft int64
		for _, m := range ns {
			if m == n || len(m.pods) == 0 {
				continue
			}
			pass.budget--
			if pass.budget < 0 {
				return false
			}
			r, ok := room[m]
			if !ok {
				r = m.room
			}
			if !req.Fits(r) || m.capacityTypes&n.capacityTypes == 0 || !s.compat(s.podClass[p], m.pool).mask.has(m.typ.idx) {
				continue
			}
			if left := s.size(r.Sub(req)); best == nil || left < bestLeft {
				best, bestLeft = m, left
			}
		}
		if best == nil {
			return false
		}
		r, ok := room[best]
		if !ok {
			r = best.room
		}
		room[best] = r.Sub(req)
		dest[i] = best
	}
	// The targets keep their offerings, so emptying n saves its price.
	for i, p := range pods {
		pass.move(p, n, dest[i])
	}
	return true
}

// move puts pod p from claim from onto claim to.
func (pass *improver) move(p *state.Pod, from, to *node) {
	s := pass.s
	c := s.podClass[p]
	from.used = from.used.Sub(c.req)
	from.room = from.room.Add(c.req)
	from.pods = slices.DeleteFunc(from.pods, func(q *state.Pod) bool { return q == p })
	for _, gid := range c.matches {
		from.bumpMatch(gid, -1)
		to.bumpMatch(gid, 1)
	}
	for _, t := range c.activeTerms(c.anti) {
		from.bumpCarry(t.group, -1)
		to.bumpCarry(t.group, 1)
	}
	to.used = to.used.Add(c.req)
	to.room = to.room.Sub(c.req)
	to.pods = append(to.pods, p)
	if !slices.Contains(to.classes, c) {
		to.classes = append(to.classes, c)
		delete(pass.masks, to)
	}
	s.placed[p] = to.name
}

// renumber names the claims left with pods "<pool>-<n>" again, n from 1
// per pool in claim order, skipping the names of existing nodes, so an
// improve pass that emptied claims leaves no gaps.
func (s *solver) renumber() {
	next := map[*poolPlan]int{}
	for _, n := range s.claims {
		if len(n.pods) == 0 {
			continue
		}
		p := n.pool
		var name string
		for {
			next[p]++
			name = fmt.Sprintf("%s-%d", p.pool.Name, next[p])
			if !s.nodeNames[name] {
				break
			}
		}
		if name == n.name {
			continue
		}
		n.name = name
		for _, pod := range n.pods {
			s.placed[pod] = name
		}
	}
}
