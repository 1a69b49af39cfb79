package packing

import (
	"cmp"
	"slices"
	"sort"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// regroupBudget bounds the work of one regroup pass in fit checks, apart
// from improveBudget, so neither pass starves the other.
const regroupBudget = 150_000

// regroupMaxSet bounds the claims one re-pack takes, as a re-pack's work
// grows with its size. 256 kept w2-spot's tail of small claims out (1.037
// of the bound; 1.032 with it, no slower in BenchmarkWorkloads); more
// than 1,024 found nothing more on the shared workloads.
const regroupMaxSet = 1024

// regroupLevels is how many price levels regroup tries (see regroup).
const regroupLevels = 6

// regroupOrders is how many pod orders each re-pack is tried with (see
// repack): which order packs best depends on the mix, and each try is
// cheap.
const regroupOrders = 2

// regroupMaxOffers bounds the offerings one re-pack compares per node.
const regroupMaxOffers = 24

// regroup is the improve pass's last move, for the tail of small claims
// that merge and evacuate cannot fix: they move one claim's pods at a
// time, so five t3a.micro claims holding one 512Mi pod each never become
// one t3a.medium, though that costs less (any two of them would cost the
// same as a small, any three more than a medium).
//
// It groups the claims whose pods the improve pass may move (movable):
// those whose pods no rule counts per zone or node (zoneFree) in one group
// per pool across zones, so their pods may move to a claim in any zone;
// the others, whose rules count per zone, in one group per pool and zone.
// For each of the few lowest price levels L of a group it re-packs the
// pods of all claims priced at most L together (repack), in a few pod
// orders. The re-pack that saves the most is applied, re-using the old
// claims as the new nodes (each keeps its zone, so the new offering is
// looked up in that zone). It reports whether it changed anything.
func (pass *improver) regroup() bool {
	budget := regroupBudget
	changed := false
	for _, ns := range pass.claimGroups(func(n *node) (claimGroup, bool) {
		// Claims whose pods no rule counts form one group across zones;
		// the others, whose rules count per zone, one group per zone.
		if !pass.allMovable(n) {
			return claimGroup{}, false
		}
		k := claimGroup{n.pool.idx, n.zone, n.capacityTypes}
		if pass.allZoneFree(n) {
			k.zone = -1
		}
		return k, true
	}) {
		if len(ns) < 2 {
			continue
		}
		slices.SortStableFunc(ns, func(a, b *node) int { return cmp.Compare(price(a), price(b)) })
		var levels []float64
		for _, n := range ns {
			if p := price(n); len(levels) == 0 || p > levels[len(levels)-1]+1e-12 {
				if len(levels) == regroupLevels {
					break
				}
				levels = append(levels, p)
			}
		}
		var best []regroupNode
		var bestSet []*node
		bestGain := 1e-9
		for _, level := range levels {
			var set []*node
			var cost float64
			for _, n := range ns {
				if price(n) <= level+1e-12 {
					set = append(set, n)
					cost += price(n)
				}
			}
			if len(set) < 2 {
				continue
			}
			if len(set) > regroupMaxSet {
				break
			}
			plan, ok := pass.repack(set, cost-bestGain, &budget)
			if !ok {
				continue
			}
			var newCost float64
			for _, r := range plan {
				newCost += r.o.price
			}
			if gain := cost - newCost; gain > bestGain && len(plan) <= len(set) {
				best, bestSet, bestGain = plan, set, gain
			}
		}
		if best != nil && pass.apply(bestSet, best) {
			changed = true
		}
	}
	return changed
}

// regroupNode is one node of a re-pack: an offering and its pods.
type regroupNode struct {
	o    offer
	pods []*state.Pod
}

// zoneFree reports whether pods of c may move to any claim of the pool, in
// any zone: movable, and no rule of its own or of another class counts it.
func (pass *improver) zoneFree(c *class, p *poolPlan) bool {
	return pass.isMovable(c, p) && len(c.anti) == 0 && len(c.affinity) == 0 && len(c.spreads) == 0 && len(c.matches) == 0
}

func (pass *improver) allZoneFree(n *node) bool {
	for _, c := range n.classes {
		if !pass.zoneFree(c, n.pool) {
			return false
		}
	}
	return true
}

// repack packs the pods of set afresh in the zone of set[0], in each of
// regroupOrders pod orders, and returns the cheapest plan if it costs less
// than limit. Nodes are opened one at a time on the offering whose fill
// holds the most value per dollar, where a pod's value is the price of the
// cheapest offering that holds it alone, and a fill takes, class by class
// in the order, as many pods as fit; the fill then repeats while its pods
// last, as the filler's patterns do. Orders: 0 most memory first, 1 most
// valuable then largest first (on w1 these two found every saving; most
// valuable then smallest, and most cpu first, never beat both). It gives
// up when the budget runs out or a pod fits no offering.
func (pass *improver) repack(set []*node, limit float64, budget *int) ([]regroupNode, bool) {
	s := pass.s
	offers, finishers := pass.repackOffers(set, limit, budget)
	if len(offers) == 0 {
		return nil, false
	}
	// The pods by class, with each class's value.
	bs := pass.bucketBuf[:0]
	var pods int
	for _, n := range set {
		for _, pod := range n.pods {
			c := s.podClass[pod]
			k := slices.IndexFunc(bs, func(b regroupBucket) bool { return b.class == c })
			if k < 0 {
				b := regroupBucket{class: c, value: -1}
				for _, o := range offers {
					if c.req.Fits(o.t.alloc) {
						b.value = o.price
						break
					}
				}
				if b.value < 0 {
					return nil, false
				}
				k = len(bs)
				if k < cap(bs) {
					b.pods = bs[:k+1][k].pods[:0] // reuse the slot's pods slice
				}
				bs = append(bs, b)
			}
			bs[k].pods = append(bs[k].pods, pod)
			pods++
		}
	}
	pass.bucketBuf = bs
	defer func() {
		for i := range pass.bucketBuf {
			pass.bucketBuf[i].pods = pass.bucketBuf[i].pods[:0]
		}
	}()
	take := make([]int, len(bs))
	// fill is how many pods of each bucket, in order, a node with alloc
	// takes, and their value.
	fill := func(alloc resources.Vector) float64 {
		room := alloc
		var v float64
		for i, b := range bs {
			*budget--
			k := b.class.req.Times(&room, int64(len(b.pods)-b.next))
			take[i] = int(k)
			if k > 0 {
				room.SubTimes(&b.class.req, k)
				v += float64(k) * b.value
			}
		}
		return v
	}
	var best []regroupNode
	bestCost := limit
	for order := range regroupOrders {
		slices.SortStableFunc(bs, func(a, b regroupBucket) int {
			if order == 0 {
				return cmp.Or(cmp.Compare(b.class.req[resources.Memory], a.class.req[resources.Memory]), cmp.Compare(b.class.req[resources.CPU], a.class.req[resources.CPU]))
			}
			return cmp.Or(cmp.Compare(b.value, a.value), cmp.Compare(s.size(b.class.req), s.size(a.class.req)))
		})
		for i := range bs {
			bs[i].next = 0
		}
		plan, cost, ok := pass.greedyPlan(bs, offers, finishers, take, fill, pods, bestCost, budget)
		if *budget < 0 {
			break
		}
		if ok {
			best, bestCost = plan, cost
		}
	}
	return best, best != nil
}

// repackOffers are the offerings a re-pack of set tries, in the zone of
// its first claim: in price order, below the limit, allowed to every
// claim's classes, not dominated by a cheaper one; the first
// regroupMaxOffers of them are compared per node, and all of them may
// finish a plan (see greedyPlan). The budget pays for every offering
// below the limit, as a scan of them would.
func (pass *improver) repackOffers(set []*node, limit float64, budget *int) (offers, finishers []offer) {
	n0 := set[0]
	mask := pass.mask(n0)
	if len(set) > 1 {
		// The intersection is needed only here: it goes in the pass's
		// scratch, not a new set per claim.
		pass.maskBuf = mask.andInto(pass.maskBuf, pass.mask(set[1]))
		for _, n := range set[2:] {
			pass.maskBuf.andInto(pass.maskBuf, pass.mask(n))
		}
		mask = pass.maskBuf
	}
	list := n0.pool.offers[n0.zone]
	below := sort.Search(len(list), func(i int) bool { return list[i].price >= limit })
	*budget -= below
	f := pass.frontier(n0.pool, n0.zone, n0.capacityTypes, mask)
	f.extend(list[:below])
	cut := sort.Search(len(f.kept), func(i int) bool { return f.kept[i].price >= limit })
	// Full slice expressions: a caller's append must not write into the
	// memo.
	return f.kept[:min(cut, regroupMaxOffers):min(cut, regroupMaxOffers)], f.kept[:cut:cut]
}

// offerFrontier memoises repackOffers for one zone's offerings of a pool,
// a set of capacity types and a type mask: kept are the allowed offerings
// no cheaper allowed one dominates (holds at least as much of every
// resource), in price order, among the first scanned of the zone's
// offerings. Whether an offering is kept depends only on the offerings
// before it, so a higher limit extends the list and a lower one reads a
// prefix of it: the same offerings a scan up to each limit keeps. The
// re-packs of one pass ask for a few masks many times each.
type offerFrontier struct {
	pool          *poolPlan
	zone          int
	capacityTypes uint8
	mask          bitset
	kept          []offer
	scanned       int
}

// extend scans list (the zone's offerings, in price order) up to its end.
func (f *offerFrontier) extend(list []offer) {
	for ; f.scanned < len(list); f.scanned++ {
		o := list[f.scanned]
		if f.capacityTypes&(1<<o.capacityType) == 0 || !f.mask.has(o.t.idx) {
			continue
		}
		if !slices.ContainsFunc(f.kept, func(k offer) bool { return o.t.alloc.Fits(k.t.alloc) }) {
			f.kept = append(f.kept, o)
		}
	}
}

// frontier returns the pass's memo for a pool's zone, capacity types and
// mask, made empty on first use (the mask copied: callers reuse theirs).
func (pass *improver) frontier(p *poolPlan, zone int, capacityTypes uint8, mask bitset) *offerFrontier {
	h := uint64(p.idx)*0x9e3779b97f4a7c15 ^ uint64(zone)<<8 ^ uint64(capacityTypes)
	for _, w := range mask {
		h = (h ^ w) * 0x100000001b3
	}
	for _, f := range pass.frontiers[h] {
		if f.pool == p && f.zone == zone && f.capacityTypes == capacityTypes && slices.Equal(f.mask, mask) {
			return f
		}
	}
	if pass.frontiers == nil {
		pass.frontiers = map[uint64][]*offerFrontier{}
	}
	f := &offerFrontier{pool: p, zone: zone, capacityTypes: capacityTypes, mask: slices.Clone(mask)}
	pass.frontiers[h] = append(pass.frontiers[h], f)
	return f
}

// regroupBucket is the pods of one class in a re-pack, the first next of
// them placed.
type regroupBucket struct {
	class *class
	value float64
	pods  []*state.Pod
	next  int
}

// greedyPlan is one re-pack of the buckets in their order (see repack):
// the plan, its cost, and whether it placed every pod for less than limit.
//
// Before each step it also prices finishing there: every pod left on the
// cheapest of finishers (offerings in price order, none fitting in a
// cheaper one) that holds them all. The ratio greedy opens the node
// that packs the most value per dollar, which at the tail can leave two
// or three small nodes where one holds everything left for less; a
// pool with more types offers more such efficient small nodes, so without
// this a wider pool could re-pack dearer than a sub-pool of it. The
// cheapest of the plans, greedy or finished early, wins.
func (pass *improver) greedyPlan(bs []regroupBucket, offers, finishers []offer, take []int, fill func(resources.Vector) float64, pods int, limit float64, budget *int) ([]regroupNode, float64, bool) {
	// Each offering's fill is kept until a bucket it takes from has fewer
	// pods left than it takes: with the same buckets in the same order
	// before that one, a fill is the same again.
	nb := len(bs)
	g := &pass.greedy
	g.value = resize(g.value, len(offers))
	g.takes = resize(g.takes, len(offers)*nb)
	g.stale = resize(g.stale, len(offers))
	for k := range g.stale {
		g.stale[k] = true
	}
	// The plan as steps (an offering, its fill, how many nodes), turned
	// into pods only if it wins.
	g.steps, g.patterns = g.steps[:0], g.patterns[:0]
	var left resources.Vector
	for _, b := range bs {
		left.AddTimes(&b.class.req, int64(len(b.pods)))
	}
	// finishAt is the steps kept before the finishing node finish (after
	// one node of offering look filled as in look's fill, when look is
	// not -1), at total cost finishCost; -1 while no finish beats limit.
	finishAt, look, finish, finishCost := -1, -1, -1, limit
	g.look = resize(g.look, nb)
	var biggest resources.Vector
	for _, o := range finishers {
		for d := range biggest {
			biggest[d] = max(biggest[d], o.t.alloc[d])
		}
	}
	var cost float64
	for placed := 0; placed < pods; {
		if k := cheapestHolding(finishers, left, finishCost-cost, budget); k >= 0 {
			finishAt, look, finish, finishCost = len(g.steps), -1, k, cost+finishers[k].price
		}
		best, bestRatio := -1, -1.0
		for k, o := range offers {
			if g.stale[k] {
				g.value[k] = fill(o.t.alloc)
				copy(g.takes[k*nb:(k+1)*nb], take)
				g.stale[k] = false
			}
			if v := g.value[k]; v > 0 && v/o.price > bestRatio+1e-12 {
				best, bestRatio = k, v/o.price
			}
		}
		if best < 0 || *budget < 0 {
			break
		}
		if k, j, c := g.finishTwo(bs, offers, finishers, left, biggest, cost, finishCost, budget); k >= 0 {
			finishAt, look, finish, finishCost = len(g.steps), k, j, c
			copy(g.look, g.takes[k*nb:(k+1)*nb])
		}
		pattern := g.takes[best*nb : (best+1)*nb]
		reps, size := -1, 0
		for i, b := range bs {
			if pattern[i] > 0 && (reps < 0 || (len(b.pods)-b.next)/pattern[i] < reps) {
				reps = (len(b.pods) - b.next) / pattern[i]
			}
			size += pattern[i]
		}
		reps = max(reps, 1)
		if cost += float64(reps) * offers[best].price; cost >= finishCost {
			break
		}
		g.steps = append(g.steps, regroupStep{offer: best, reps: reps, pattern: len(g.patterns)})
		g.patterns = append(g.patterns, pattern...)
		for i := range bs {
			bs[i].next += reps * pattern[i]
			left.SubTimes(&bs[i].class.req, int64(reps*pattern[i]))
		}
		placed += reps * size
		if placed == pods {
			finishAt, look, finish, finishCost = len(g.steps), -1, -1, cost
		}
		for k := range offers {
			for i, b := range bs {
				if g.takes[k*nb+i] > len(b.pods)-b.next {
					g.stale[k] = true
					break
				}
			}
		}
	}
	if finishAt < 0 {
		return nil, 0, false
	}
	return g.layout(bs, offers, finishers, pods, finishAt, look, finish), finishCost, true
}

// finishTwo prices finishing on two nodes, with pods left (left in all)
// and cost spent: one node of any offering filled as the greedy would
// (its current fill), and the cheapest finisher for the rest (which must
// fit biggest, every finisher's largest allocatable, to be worth a scan).
// It returns the offering, the finisher and the total when below limit,
// else -1.
func (g *regroupScratch) finishTwo(bs []regroupBucket, offers, finishers []offer, left, biggest resources.Vector, cost, limit float64, budget *int) (int, int, float64) {
	nb := len(bs)
	look, finish := -1, -1
	for k, o := range offers {
		if g.value[k] <= 0 || cost+o.price >= limit {
			continue
		}
		rest := left
		for i, n := range g.takes[k*nb : (k+1)*nb] {
			// Most offerings take few of the buckets: subtracting none
			// leaves rest as it is.
			if n != 0 {
				rest.SubTimes(&bs[i].class.req, int64(n))
			}
		}
		if rest == (resources.Vector{}) || !rest.Fits(biggest) {
			continue
		}
		if j := cheapestHolding(finishers, rest, limit-cost-o.price, budget); j >= 0 {
			look, finish, limit = k, j, cost+o.price+finishers[j].price
		}
	}
	return look, finish, limit
}

// layout turns a winning plan into pods, node by node: the first
// finishAt steps, then one node of offers[look] filled as g.look says
// (when look is not -1), then every pod left on finishers[finish] (when
// finish is not -1).
func (g *regroupScratch) layout(bs []regroupBucket, offers, finishers []offer, pods, finishAt, look, finish int) []regroupNode {
	nb := len(bs)
	for i := range bs {
		bs[i].next = 0
	}
	flat := make([]*state.Pod, 0, pods)
	var plan []regroupNode
	for _, st := range g.steps[:finishAt] {
		pattern := g.patterns[st.pattern : st.pattern+nb]
		for range st.reps {
			lo := len(flat)
			for i := range bs {
				b := &bs[i]
				flat = append(flat, b.pods[b.next:b.next+pattern[i]]...)
				b.next += pattern[i]
			}
			plan = append(plan, regroupNode{o: offers[st.offer], pods: flat[lo:len(flat):len(flat)]})
		}
	}
	if look >= 0 {
		lo := len(flat)
		for i := range bs {
			b := &bs[i]
			flat = append(flat, b.pods[b.next:b.next+g.look[i]]...)
			b.next += g.look[i]
		}
		plan = append(plan, regroupNode{o: offers[look], pods: flat[lo:len(flat):len(flat)]})
	}
	if finish >= 0 {
		lo := len(flat)
		for i := range bs {
			flat = append(flat, bs[i].pods[bs[i].next:]...)
		}
		plan = append(plan, regroupNode{o: finishers[finish], pods: flat[lo:len(flat):len(flat)]})
	}
	return plan
}

// cheapestHolding is the index of the first of offers (in price order)
// priced below limit whose node holds need, or -1.
func cheapestHolding(offers []offer, need resources.Vector, limit float64, budget *int) int {
	for k, o := range offers {
		if o.price >= limit {
			return -1
		}
		*budget--
		if need.Fits(o.t.alloc) {
			return k
		}
	}
	return -1
}

// regroupStep is reps nodes of one offering, each filled with the pattern
// (pods per bucket) at that offset of the plan's patterns.
type regroupStep struct {
	offer, reps, pattern int
}

// regroupScratch is greedyPlan's scratch, reused across re-packs.
type regroupScratch struct {
	value    []float64
	takes    []int
	stale    []bool
	steps    []regroupStep
	patterns []int
	// look is the fill of the node before a two-node finish.
	look []int
}

// resize returns s with length n, reusing its array when it is large
// enough; the contents are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// apply turns set into the nodes of plan: each node of the plan re-uses
// one claim of set, re-typed to the plan's offering in the claim's own
// zone (the plan priced set[0]'s zone; a claim elsewhere serves only if
// its zone offers the same type and capacity type for no more), and the
// claims left over are left empty for finalize to drop. It reports false,
// changing nothing, when the claims cannot host the plan.
func (pass *improver) apply(set []*node, plan []regroupNode) bool {
	hosts := make([]*node, len(plan))
	offers := make([]offer, len(plan))
	used := map[*node]bool{}
	for i, r := range plan {
		for _, n := range set {
			if used[n] {
				continue
			}
			if n.zone == r.o.zone {
				hosts[i], offers[i] = n, r.o
				break
			}
			if o, ok := pass.sameOffer(n, r.o); ok {
				hosts[i], offers[i] = n, o
				break
			}
		}
		if hosts[i] == nil {
			return false
		}
		used[hosts[i]] = true
	}
	dest := map[*state.Pod]*node{}
	for i, r := range plan {
		for _, pod := range r.pods {
			dest[pod] = hosts[i]
		}
	}
	for _, n := range set {
		for _, pod := range slices.Clone(n.pods) {
			if to := dest[pod]; to != n {
				pass.move(pod, n, to)
			}
		}
	}
	for i, n := range hosts {
		pass.retype(n, offers[i])
	}
	for _, n := range set {
		if !used[n] {
			pass.emptied++
		}
	}
	return true
}

// sameOffer is o's type and capacity type in n's zone, if offered there
// at no more than o's price.
func (pass *improver) sameOffer(n *node, o offer) (offer, bool) {
	for _, z := range n.pool.offers[n.zone] {
		if z.t == o.t && z.capacityType == o.capacityType && z.price <= o.price+1e-12 {
			return z, true
		}
	}
	return offer{}, false
}
