package packing

import (
	"cmp"
	"math"
	"slices"
)

// Choosing a new claim's zone and instance type.

// maxCandidates bounds the instance types a claim decision simulates.
const maxCandidates = 16

// maxCliqueCandidates is how many of the cheapest types that hold a
// member of a large clique its node is chosen from. Sixteen stop below
// r5a.large ($0.113/h, 1,930m and 14 GiB), which the bound's LP fills with
// members and memory-heavy riders: with 32, diverse-5k costs 78.86 ->
// 77.31 $/h and diverse-20k 314.93 -> 305.97, diverse-1k the same, in about
// the same time (24 gains as much; 96 gains more on diverse-5k only).
const maxCliqueCandidates = 32

// decision is the instance type and capacity type chosen for claims seeded
// by a kind of bucket in a zone.
type decision struct {
	t            *poolType
	capacityType int
	price        float64
}

// zoneFor picks the zone of a claim seeded by b: its pin, else the zone
// with the most demand pinned to it, else the next zone in turn.
func (f *filler) zoneFor(b *bucket, cp *compat) int {
	s := f.s
	mask := b.zones & cp.zoneMask
	if mask == 0 {
		return -1
	}
	if isSingle(mask) {
		for z := range s.zones {
			if mask&(1<<z) != 0 {
				return z
			}
		}
	}
	pinned := make([]int64, len(s.zones))
	for _, o := range f.active {
		if isSingle(o.zones) && o.zones&mask != 0 {
			for z := range s.zones {
				if o.zones&(1<<z) != 0 {
					pinned[z] += o.left()
				}
			}
		}
	}
	var cheapest, ratio []float64
	if f.p.zonalSplit {
		cheapest, ratio = f.cheapestIn(b, cp, mask)
	}
	best := -1
	n := len(s.zones)
	for k := range n {
		z := (k + f.p.next) % n
		if mask&(1<<z) == 0 {
			continue
		}
		if best < 0 || pinned[z] > pinned[best] || pinned[z] == pinned[best] && cheapest != nil && zoneBetter(ratio[z], cheapest[z], ratio[best], cheapest[best]) {
			best = z
		}
	}
	return best
}

// zoneBetter reports whether a zone whose best type holds value ratio per
// dollar, and whose cheapest type holding a pod costs price, beats
// another: the better ratio first (a zone without a daemonset's overhead
// offers the same types with more room at the same price), then the
// lower price.
func zoneBetter(ratio, price, bestRatio, bestPrice float64) bool {
	if ratio > bestRatio*(1+1e-9) {
		return true
	}
	return ratio >= bestRatio*(1-1e-9) && price < bestPrice
}

// cheapestIn is, per zone of mask, the price of the cheapest type that
// holds one pod of b (+Inf where none does) and the best dual value per
// dollar among the types that do (0 where none does): where daemonsets run
// only in some zones (see splitZonal), a zone without their overhead may
// hold the pod on a much smaller node, and fits more on every node.
func (f *filler) cheapestIn(b *bucket, cp *compat, mask uint64) (cheapest, ratio []float64) {
	cheapest, ratio = make([]float64, len(f.s.zones)), make([]float64, len(f.s.zones))
	capacityTypes := b.capacityTypes & cp.capacityTypeMask
	for z := range cheapest {
		cheapest[z] = math.Inf(1)
		if mask&(1<<z) == 0 {
			continue
		}
		for _, t := range f.p.types {
			if !cp.mask.has(t.idx) || !b.class.req.Fits(t.alloc) {
				continue
			}
			ct, price := cheapestCapacityType(t, z, capacityTypes)
			if ct < 0 {
				continue
			}
			cheapest[z] = min(cheapest[z], price)
			ratio[z] = max(ratio[z], f.nodeValue(t)/price)
		}
	}
	return cheapest, ratio
}

// cand is a type a claim decision considers, at its price in the zone.
type cand struct {
	t            *poolType
	capacityType int
	price        float64
	ratio        float64
}

// decide chooses the claim type for seed in zone: among the types with
// the best dual value per dollar, the one whose simulated fill packs the
// most value per dollar.
func (f *filler) decide(seed *bucket, cp *compat, zone int, clique bool) *decision {
	p := f.p
	cands := f.scratch[:0]
	capacityTypes := seed.capacityTypes & cp.capacityTypeMask
	for _, t := range p.types {
		if !cp.mask.has(t.idx) || !seed.class.req.Fits(t.alloc) || !p.withinLimits(t.capacity) {
			continue
		}
		ct, price := cheapestCapacityType(t, zone, capacityTypes)
		if ct < 0 {
			continue
		}
		cands = append(cands, cand{t: t, capacityType: ct, price: price, ratio: f.nodeValue(t) / price})
	}
	f.scratch = cands
	if len(cands) == 0 {
		return nil
	}
	if clique && f.cliqueNodes {
		// The cheapest types that hold the member and, for the few members
		// of a small clique, the most efficient ones too, which may carry
		// enough riders to pay for their size (too slow to simulate for
		// thousands of members).
		cheap := topCandidates(cands, maxCliqueCandidates, byPrice)
		if f.s.opts.eagerCliques {
			cheap = append(cheap, topCandidates(cands, maxCandidates/2, byRatio)...)
		}
		return f.decideClique(seed, zone, cheap)
	}
	cands = topCandidates(cands, maxCandidates, byRatio)
	var best *decision
	bestEff := -1.0
	for _, c := range cands {
		n := f.dryNode(zone, c.capacityType, c.t)
		takes := f.dryFill(n, seed)
		var v float64
		for _, tk := range takes {
			v += tk.b.value * float64(tk.k)
		}
		if eff := v / c.price; eff > bestEff*(1+1e-9) {
			best, bestEff = &decision{t: c.t, capacityType: c.capacityType, price: c.price}, eff
		}
	}
	return best
}

// byRatio orders candidates by dual value per dollar, best first, then
// by price and name; byPrice by price, then value per dollar and name.
// Each compares only as far as it must (cmp.Or would compare names every
// time).
func byRatio(a, b cand) int {
	if c := cmp.Compare(b.ratio, a.ratio); c != 0 {
		return c
	}
	if c := cmp.Compare(a.price, b.price); c != 0 {
		return c
	}
	return cmp.Compare(a.t.instance.Name, b.t.instance.Name)
}

func byPrice(a, b cand) int {
	if c := cmp.Compare(a.price, b.price); c != 0 {
		return c
	}
	if c := cmp.Compare(b.ratio, a.ratio); c != 0 {
		return c
	}
	return cmp.Compare(a.t.instance.Name, b.t.instance.Name)
}

// nodeValue is the pricer's value of a node of type t, computed once per
// pricer and allocatable (many types share one).
func (f *filler) nodeValue(t *poolType) float64 {
	i := t.idx
	if f.allocs != nil {
		i = int(f.allocs[i])
	}
	if v := f.nodeValues[i]; !math.IsNaN(v) {
		return v
	}
	v := f.pricer.Node(t.alloc)
	f.nodeValues[i] = v
	return v
}

// dryNode returns the filler's scratch node, emptied, as a claim of type
// t in zone for a dry fill.
func (f *filler) dryNode(zone, ct int, t *poolType) *node {
	n := f.dry
	if n == nil {
		n = &node{claimState: &claimState{}}
		f.dry = n
	}
	clear(n.match)
	clear(n.carry)
	n.open = nil
	n.zone, n.capacityType, n.pool, n.room, n.ports, n.typ = zone, ct, f.p, t.alloc, n.ports[:0], t
	return n
}

// topCandidates returns the k first of cands by order, sorted, keeping
// only k at a time instead of sorting them all.
func topCandidates(cands []cand, k int, order func(a, b cand) int) []cand {
	top := make([]cand, 0, k+1)
	for _, c := range cands {
		if len(top) == k && order(c, top[k-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, c, order)
		top = slices.Insert(top, i, c)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// decideClique chooses the node for a member of a large clique, which
// needs a node of its own whatever it costs: the type whose price less the
// dual value of the other pods it can also take is least, so a member's
// node is as small as it can be and grows only when the pods riding along
// are worth the difference.
func (f *filler) decideClique(seed *bucket, zone int, cands []cand) *decision {
	var best *decision
	bestNet := math.Inf(1)
	for _, c := range cands {
		t, ct, price := c.t, c.capacityType, c.price
		n := f.dryNode(zone, ct, t)
		var riders float64
		for _, tk := range f.dryFill(n, seed) {
			riders += tk.b.value * float64(tk.k)
		}
		riders -= seed.value
		if net := price - riders; net < bestNet-1e-12 {
			best, bestNet = &decision{t: t, capacityType: ct, price: price}, net
		}
	}
	return best
}

// cheapestCapacityType returns the cheapest capacity type of t in zone among
// capacityTypes.
func cheapestCapacityType(t *poolType, zone int, capacityTypes uint8) (int, float64) {
	best, price := -1, 0.0
	for ct := range numCapacityTypes {
		if capacityTypes&(1<<ct) == 0 {
			continue
		}
		if pr := t.price[zone*numCapacityTypes+ct]; pr > 0 && (best < 0 || pr < price) {
			best, price = ct, pr
		}
	}
	return best, price
}
