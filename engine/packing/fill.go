package packing

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/bound"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// maxCandidates bounds the instance types a claim decision simulates.
const maxCandidates = 16

// maxCliqueCandidates is how many of the cheapest types that hold a
// member of a large clique its node is chosen from. Sixteen stop below
// r5a.large ($0.113/h, 1,930m and 14 GiB), which the bound's LP fills with
// members and memory-heavy riders: with 32, diverse-5k costs 78.86 ->
// 77.31 $/h and diverse-20k 314.93 -> 305.97, diverse-1k the same, in about
// the same time (24 gains as much; 96 gains more on diverse-5k only).
const maxCliqueCandidates = 32

// staleFactor is how far the remaining demand's value may fall before a
// cached claim decision is recomputed.
const staleFactor = 0.8

// filler opens new claims in one pool for the buckets it serves.
type filler struct {
	s        *solver
	p        *poolPlan
	active   []*bucket
	pricer   *bound.Pricer
	valuedAt float64
	// cols are the pool's types as LP columns, undominated those no other
	// type beats on every resource and price.
	cols, undominated []bound.Column
	cache             map[string]*decision
	failed            map[*bucket]bool
	// scratch is reused for each decision's candidates, run for each
	// fill's.
	scratch []cand
	run     fillRun
	// minReq is, per resource, the smallest request among the active
	// buckets when last compacted (a lower bound since): a node with less
	// room than that in some resource can take nothing more.
	minReq resources.Vector
	// cliqueNodes sizes a large clique's nodes by their members (see
	// decideClique) instead of by efficiency.
	cliqueNodes bool
	// nodeValues caches pricer.Node per distinct allocatable (see
	// poolColumns.allocs; per type index without them), NaN when not yet
	// computed.
	nodeValues []float64
	allocs     []int32
	// exact values the pods by column generation on the assignment LP
	// (see exactValues).
	exact *bound.Valuation
	// dry is the node dry fills simulate on, dryTakes their takes.
	dry      *node
	dryTakes []take
}

// decision is the instance type and capacity type chosen for claims seeded
// by a kind of bucket in a zone.
type decision struct {
	t            *poolType
	capacityType int
	price        float64
}

func (s *solver) fillPool(p *poolPlan, buckets []*bucket) error {
	f := &filler{s: s, p: p, cache: map[string]*decision{}, failed: map[*bucket]bool{}, cliqueNodes: s.bigClique(buckets)}
	for _, b := range buckets {
		cp := s.compat(b.class, p)
		if b.left() == 0 || cp.reason != "" || b.zones&cp.zoneMask == 0 || b.capacityTypes&cp.capacityTypeMask == 0 {
			continue
		}
		f.active = append(f.active, b)
	}
	if len(f.active) == 0 {
		return nil
	}
	if s.opts.plan > 0 {
		f.planFill()
	}
	for i := 0; ; i++ {
		if i%32 == 0 {
			if err := s.ctx.Err(); err != nil {
				return fmt.Errorf("packing new claims for nodepool %s: %w", p.pool.Name, err)
			}
			f.compact()
		}
		seed := f.seed()
		if seed == nil {
			return nil
		}
		if !f.open(seed) {
			f.failed[seed] = true
		}
	}
}

// compact drops empty buckets and refreshes the smallest request left.
func (f *filler) compact() {
	f.active = slices.DeleteFunc(f.active, func(b *bucket) bool { return b.left() == 0 })
	for d := range resources.MaxDims {
		f.minReq[d] = math.MaxInt64
	}
	for _, b := range f.active {
		for d := range resources.MaxDims {
			f.minReq[d] = min(f.minReq[d], b.class.req[d])
		}
	}
}

func (f *filler) seed() *bucket {
	for _, b := range f.active {
		if b.left() > 0 && !f.failed[b] {
			return b
		}
	}
	return nil
}

// remValue is the dual value of the pods still to place.
func (f *filler) remValue() float64 {
	var sum float64
	for _, b := range f.active {
		sum += b.value * float64(b.left())
	}
	return sum
}

// refreshDuals recomputes the dual prices of the remaining demand when its
// value has fallen enough since they were computed.
func (f *filler) refreshDuals() {
	if f.pricer != nil && f.remValue() >= staleFactor*f.valuedAt {
		return
	}
	var items []bound.Demand
	for _, b := range f.active {
		if b.left() > 0 {
			items = append(items, bound.Demand{Req: b.class.req, Count: b.left()})
		}
	}
	ndims := len(f.s.dims.names)
	if f.cols == nil {
		f.cols, f.undominated = f.p.lpColumns(ndims)
	}
	cols := f.cols
	f.pricer = bound.NewPricer(items, cols, f.undominated, ndims)
	if f.nodeValues == nil {
		n := len(f.p.types)
		if c := f.p.columns; c != nil {
			<-c.ready
			f.allocs, n = c.allocs, c.distinct
		}
		f.nodeValues = make([]float64, n)
	}
	for i := range f.nodeValues {
		f.nodeValues[i] = math.NaN()
	}
	// A pod is worth what it costs at least wherever it goes: the
	// assignment bound's value, which knows that a small pod has cheap
	// homes a large one lacks. The LP duals seed it.
	seed := make([]float64, ndims)
	for d := range ndims {
		seed[d] = f.pricer.Pod(resources.Unit(d))
	}
	var values []float64
	switch {
	case f.s.opts.podValues && f.s.opts.valueRounds > 0:
		values = f.exactValues(items, ndims)
		if values == nil {
			values = bound.AscentValues(items, f.undominated, ndims, seed)
		}
	case f.s.opts.podValues:
		values = bound.AscentValues(items, f.undominated, ndims, seed)
	}
	k := 0
	for _, b := range f.active {
		b.value = f.pricer.Pod(b.class.req)
		if b.left() > 0 {
			if values != nil && values[k] > 0 {
				b.value = values[k]
			}
			k++
		}
	}
	f.valuedAt = f.remValue()
	clear(f.cache)
}

// exactValues values each item by the duals of the assignment LP over the
// pool's undominated types for the demand left (bound.Valuation), as far
// as the strategy's rounds go: the first call sets column generation up,
// later ones go on from the last basis and loads, so each costs little.
// Nil when the LP cannot be set up.
func (f *filler) exactValues(items []bound.Demand, ndims int) []float64 {
	if f.exact == nil {
		if f.exact = bound.NewValuation(items, f.undominated, ndims); f.exact == nil {
			return nil
		}
	}
	return f.exact.Values(items, f.s.opts.valueRounds)
}

// open opens claims for seed and fills them; false when no claim can take
// the seed.
func (f *filler) open(seed *bucket) bool {
	s, p := f.s, f.p
	f.refreshDuals()
	cp := s.compat(seed.class, p)
	zone := f.zoneFor(seed, cp)
	if zone < 0 {
		return false
	}
	clique := f.isClique(seed.class)
	key := fmt.Sprintf("%d|%d|%t|%p", zone, seed.capacityTypes&cp.capacityTypeMask, clique, cp.mask)
	dec := f.cache[key]
	if dec == nil || !seed.class.req.Fits(dec.t.alloc) || !p.withinLimits(dec.t.capacity) || !cp.mask.has(dec.t.idx) {
		dec = f.decide(seed, cp, zone, clique)
		if dec == nil {
			return false
		}
		f.cache[key] = dec
	}
	n := s.newClaim(p, dec.t, zone, dec.capacityType)
	pattern := f.fill(n, seed)
	if len(pattern) == 0 {
		s.dropClaim(n)
		return false
	}
	f.replicate(n, pattern)
	return true
}

// worth is how well a pod pays for the share of the node it takes: its
// value over the node's price times its dominant share, capped at 1 so
// that among pods that pay their way the best fit wins, raised to the
// strategy's exponent.
func worth(b *bucket, alloc resources.Vector, price, exponent float64) float64 {
	if exponent == 0 {
		return 1
	}
	share := 0.0
	for d := range resources.MaxDims {
		if alloc[d] > 0 && b.class.req[d] > 0 {
			share = max(share, float64(b.class.req[d])/float64(alloc[d]))
		}
	}
	if share <= 0 || price <= 0 {
		return 1
	}
	return math.Pow(min(1, b.value/(price*share)), exponent)
}

// reqShares are a request's shares of a node's allocatable in every
// resource but pods, computed once per fill for align.
type reqShares struct {
	n    int
	dims [resources.MaxDims]int8
	r    [resources.MaxDims]float64
}

func shares(req, alloc resources.Vector) reqShares {
	var sh reqShares
	for d := range resources.MaxDims {
		if alloc[d] > 0 && req[d] > 0 && d != resources.Pods {
			sh.dims[sh.n], sh.r[sh.n] = int8(d), float64(req[d])/float64(alloc[d])
			sh.n++
		}
	}
	return sh
}

// align scores how well a request uses the room a node has left: the dot
// product of both, each relative to the node's allocatable
// (req/alloc * room/alloc summed over the resources, in order).
func (sh *reqShares) align(room, alloc resources.Vector) float64 {
	var sum float64
	for i := range sh.n {
		d := sh.dims[i]
		sum += sh.r[i] * float64(room[d]) / float64(alloc[d])
	}
	return sum
}

// replicate opens more claims with n's pattern while the buckets last.
func (f *filler) replicate(n *node, pattern []take) {
	s, p := f.s, f.p
	merged := map[*bucket]int{}
	var agg []take
	for _, tk := range pattern {
		if len(tk.b.class.activeTerms(tk.b.class.affinity)) > 0 {
			return
		}
		if i, ok := merged[tk.b]; ok {
			agg[i].k += tk.k
			continue
		}
		merged[tk.b] = len(agg)
		agg = append(agg, tk)
	}
	pattern = agg
	for {
		for _, tk := range pattern {
			if tk.b.left() < tk.k {
				return
			}
		}
		if !p.withinLimits(n.typ.capacity) {
			return
		}
		m := s.newClaim(p, n.typ, n.zone, n.capacityType)
		for _, tk := range pattern {
			k := s.room(tk.b, m, tk.k)
			if k < tk.k {
				if k > 0 {
					s.place(tk.b, m, k)
				}
				if len(m.pods) == 0 {
					s.dropClaim(m)
				}
				return
			}
			s.place(tk.b, m, k)
		}
	}
}

// isClique reports whether pods of c repel each other per node, so each
// needs its own node.
func (f *filler) isClique(c *class) bool {
	for _, t := range c.activeTerms(c.anti) {
		if f.s.groups.list[t.group].key == scheduling.LabelHostname && c.matchesGroup(t.group) {
			return true
		}
	}
	return false
}

// minSharedClique is the clique size from which each member's node is
// chosen by its member (decideClique): with few members, choosing by
// efficiency and filling greedily is usually cheaper. A strategy with
// eager cliques uses minEagerClique instead.
const (
	minSharedClique = 50
	minEagerClique  = 10
)

// bigClique reports whether some hostname anti-affinity group among the
// buckets has at least minSharedClique (or minEagerClique) pending members.
func (s *solver) bigClique(buckets []*bucket) bool {
	least := int64(minSharedClique)
	if s.opts.eagerCliques {
		least = minEagerClique
	}
	members := map[int]int64{}
	for _, b := range buckets {
		for _, t := range b.class.activeTerms(b.class.anti) {
			if isHostname(s.groups.list[t.group].key) && b.class.matchesGroup(t.group) {
				members[t.group] += b.left()
				if members[t.group] >= least {
					return true
				}
			}
		}
	}
	return false
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
	best := -1
	n := len(s.zones)
	for k := range n {
		z := (k + f.p.next) % n
		if mask&(1<<z) == 0 {
			continue
		}
		if best < 0 || pinned[z] > pinned[best] {
			best = z
		}
	}
	return best
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

// newClaim opens an empty claim.
func (s *solver) newClaim(p *poolPlan, t *poolType, zone, ct int) *node {
	p.next++
	name := p.pool.Name + "-" + strconv.Itoa(p.next)
	// Names of existing nodes and claims are skipped, so a claim never
	// shadows one.
	for s.nodeNames[name] {
		p.next++
		name = p.pool.Name + "-" + strconv.Itoa(p.next)
	}
	n := &node{
		name: name,
		pool: p, zone: zone, capacityType: ct,
		room:       t.alloc,
		claimState: &claimState{typ: t, capacityTypes: p.capacityTypeMask},
	}
	p.usage = p.usage.Add(t.capacity)
	s.claims = append(s.claims, n)
	return n
}

// dropClaim removes the last claim, which took no pod.
func (s *solver) dropClaim(n *node) {
	if len(s.claims) > 0 && s.claims[len(s.claims)-1] == n && len(n.pods) == 0 {
		s.claims = s.claims[:len(s.claims)-1]
		n.pool.usage = n.pool.usage.Sub(n.typ.capacity)
		n.pool.next--
	}
}
