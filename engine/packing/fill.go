package packing

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/bound"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

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
	cache             map[decisionKey]*decision
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

func (s *solver) fillPool(p *poolPlan, buckets []*bucket) error {
	f := &filler{s: s, p: p, cache: map[decisionKey]*decision{}, failed: map[*bucket]bool{}, cliqueNodes: s.bigClique(buckets)}
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
		if f.p.exotic && f.s.opts.valueRounds > 0 && !f.mayGetExotic() {
			f.cols, f.undominated = f.p.ordinaryColumns(ndims)
		}
		if f.s.opts.holdingOnly {
			f.cols, f.undominated = holdingSome(f.cols, items), holdingSome(f.undominated, items)
		}
	}
	cols, undominated := f.cols, f.undominated
	f.pricer = bound.NewPricer(items, cols, undominated, ndims)
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
			values = bound.AscentValues(items, undominated, ndims, seed)
		}
	case f.s.opts.podValues:
		values = bound.AscentValues(items, undominated, ndims, seed)
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

// mayGetExotic reports whether some active bucket may get an exotic type
// of the pool (exotic.go). When none may, pods valued by the assignment
// LP's duals (exactValues) are valued on the ordinary types alone: a spot
// GPU node that no pod here may get would price them below what they cost
// anywhere they may go (w2-spot 1.043 -> 1.023 of the bound, w4-spot
// 1.041 -> 1.028). The quick ascent keeps every type: there the ordinary
// types alone did worse (w1-spot 1.042 -> 1.086, w3-spot 15.06 -> 15.31
// $/h) and broke five more random pool/sub-pool pairs of TestMonotoneCost.
func (f *filler) mayGetExotic() bool {
	seen := map[*uint64]bool{}
	for _, b := range f.active {
		mask := f.s.compat(b.class, f.p).mask
		if len(mask) == 0 || seen[&mask[0]] {
			continue
		}
		seen[&mask[0]] = true
		for _, t := range f.p.types {
			if t.exotic != "" && mask.has(t.idx) {
				return true
			}
		}
	}
	return false
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

// decisionKey is what a cached decision was made for: the zone, the
// capacity types, whether the seed is a clique member, and the type mask
// (by identity: compats that share a mask share their decisions).
type decisionKey struct {
	zone          int
	capacityTypes uint8
	clique        bool
	mask          *uint64
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
	key := decisionKey{zone, seed.capacityTypes & cp.capacityTypeMask, clique, unsafe.SliceData(cp.mask)}
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

// holdingSome are the columns that hold a whole pod of some item: the
// types a pod of the batch may get, by size. A type that holds none (a
// t2.nano's 74Mi, a small type that its daemonsets fill) adds cheap
// capacity to the aggregate LP that no pod can use; it lowered every pod's
// value and changed which claims the fill opened, so adding it to a pool
// changed the answer (18 of 300 random batches in
// TestTypesThatHoldNoPodChangeNothing), and it broke pool/sub-pool
// monotonicity (TestMonotoneCost: 11 -> 10 pairs). The columns are
// filtered once per fill, by the pods left when it first values them.
// Only batches of fewer than planMinPods pods do it (options.holdingOnly):
// on the shared workloads, which were tuned with every type, it cost
// diverse-1k 1.0312 -> 1.0373 of the bound, w3-spot 1.0545 -> 1.0575 and
// w4-spot 1.0211 -> 1.0239, for diverse-5k 1.0265 -> 1.0252 and w5
// 179.23 -> 179.03 $/h.
func holdingSome(cols []bound.Column, items []bound.Demand) []bound.Column {
	out := make([]bound.Column, 0, len(cols))
	for _, c := range cols {
		for _, it := range items {
			if it.Req.Fits(c.Alloc) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
