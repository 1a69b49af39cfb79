package packing

import (
	"cmp"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/bound"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Capacity type indices.
const (
	capacityOnDemand = iota
	capacitySpot
	numCapacityTypes
)

var capacityTypeNames = [numCapacityTypes]string{scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot}

func capacityTypeIndex(name string) int {
	switch name {
	case scheduling.CapacityTypeOnDemand:
		return capacityOnDemand
	case scheduling.CapacityTypeSpot:
		return capacitySpot
	}
	return -1
}

// poolPlan is a state.Pool compiled for one Solve.
type poolPlan struct {
	idx    int
	pool   *state.Pool
	taints scheduling.Taints
	// soft are the PreferNoSchedule taints.
	soft             scheduling.Taints
	zoneMask         uint64
	capacityTypeMask uint8
	types            []*poolType
	// zonalSplit is set when splitZonal split a type: a daemonset's
	// overhead then depends on the zone, and so does the cheapest node.
	zonalSplit bool
	// offers are every allowed offering per zone, cheapest first.
	offers  [][]offer
	limits  resources.Vector
	limited [resources.MaxDims]bool
	// usage is the capacity of the pool's nodes, claims included.
	usage resources.Vector
	// minValues are the requirements with MinValues.
	minValues []scheduling.Requirement
	// masks caches the type set per node requirement signature.
	masks map[string]bitset
	next  int
	// exotic is set when some type is exotic and not named by the pool.
	exotic bool
	// columns are the pool's types as LP columns, computed once per Solve
	// beside the variants and shared by them; nil outside Solve.
	columns *poolColumns
	// fillBan are the types the fill may not open (options.fillBans),
	// nil when none is banned.
	fillBan bitset
}

// poolColumns are a pool's types as LP columns (allocatable, cheapest
// price), one per distinct allocatable (see bound.DistinctColumns), and the
// undominated ones (see bound.ParetoColumns), for ndims resources; ready is
// closed once they are set.
type poolColumns struct {
	ready             chan struct{}
	ndims             int
	cols, undominated []bound.Column
	// lb are the columns of the lower bound: allocatable less only the
	// daemonsets that surely run (at least 0), one per distinct one.
	lb []bound.Column
	// allocs numbers the distinct allocatables of the types (by type
	// index), which price the same as nodes; distinct is how many.
	allocs   []int32
	distinct int
	// ordinary and ordinaryUndominated are cols and undominated of the
	// ordinary types alone (no exotic one), for a pool with exotic types
	// (exotic.go): pods that may not get those are valued by what they
	// cost on the types they may get.
	ordinary, ordinaryUndominated []bound.Column
}

// startColumns computes the LP columns of every pool in a goroutine; wait
// for it before the pools are dropped.
func startColumns(pools []*poolPlan, ndims int, wg *sync.WaitGroup) {
	for _, p := range pools {
		p.columns = &poolColumns{ready: make(chan struct{}), ndims: ndims}
	}
	wg.Go(func() {
		for _, p := range pools {
			c := p.columns
			c.allocs, c.distinct = distinctAllocs(p.types)
			c.cols = make([]bound.Column, c.distinct)
			for i, t := range p.types {
				// The ids count up in the order of first occurrence.
				if col := &c.cols[c.allocs[i]]; col.Price == 0 || t.cheapest < col.Price {
					*col = bound.Column{Alloc: t.alloc, Price: t.cheapest}
				}
			}
			c.undominated = bound.ParetoColumns(c.cols, ndims)
			if p.exotic {
				c.ordinary, c.ordinaryUndominated = lpColumns(ordinaryTypes(p.types), ndims)
				c.ordinary = bound.DistinctColumns(c.ordinary)
			}
			c.lb = c.cols
			if !lbSameAsAlloc(p.types) {
				c.lb = bound.DistinctColumns(lbColumns(p.types))
			}
			close(c.ready)
		}
	})
}

// distinctAllocs numbers the types' distinct allocatables, by type index.
func distinctAllocs(types []*poolType) ([]int32, int) {
	ids := make([]int32, len(types))
	seen := make(map[resources.Vector]int32, len(types))
	for i, t := range types {
		id, ok := seen[t.alloc]
		if !ok {
			id = int32(len(seen))
			seen[t.alloc] = id
		}
		ids[i] = id
	}
	return ids, len(seen)
}

// lbColumns are the types as the lower bound's columns: allocatable less
// the daemonsets that surely run (at least 0) at the cheapest price.
func lbColumns(types []*poolType) []bound.Column {
	cols := make([]bound.Column, len(types))
	for i, t := range types {
		var a resources.Vector
		for d := range resources.MaxDims {
			a[d] = max(t.allocLB[d], 0)
		}
		cols[i] = bound.Column{Alloc: a, Price: t.cheapest}
	}
	return cols
}

// lbSameAsAlloc reports whether every type's lower-bound allocatable is
// its allocatable, none negative: the lower bound's columns are then the
// pricer's.
func lbSameAsAlloc(types []*poolType) bool {
	for _, t := range types {
		if t.allocLB != t.alloc {
			return false
		}
		for d := range resources.MaxDims {
			if t.alloc[d] < 0 {
				return false
			}
		}
	}
	return true
}

// ordinaryTypes are the types that are not exotic.
func ordinaryTypes(types []*poolType) []*poolType {
	var out []*poolType
	for _, t := range types {
		if t.exotic == "" {
			out = append(out, t)
		}
	}
	return out
}

// lpColumns returns the types as LP columns, all and undominated.
func lpColumns(types []*poolType, ndims int) ([]bound.Column, []bound.Column) {
	cols := make([]bound.Column, len(types))
	for i, t := range types {
		cols[i] = bound.Column{Alloc: t.alloc, Price: t.cheapest}
	}
	return cols, bound.ParetoColumns(cols, ndims)
}

// lpColumns returns the pool's LP columns for ndims resources: the shared
// ones once ready, else computed afresh. The shared ones are read by every
// variant at once: callers must not change them (the pricer and the
// assignment bound only read their columns).
func (p *poolPlan) lpColumns(ndims int) ([]bound.Column, []bound.Column) {
	if p.fillBan != nil {
		return lpColumns(p.unbanned(p.types), ndims)
	}
	if c := p.columns; c != nil && c.ndims == ndims {
		<-c.ready
		return c.cols, c.undominated
	}
	return lpColumns(p.types, ndims)
}

// ordinaryColumns are lpColumns of the pool's ordinary types alone.
func (p *poolPlan) ordinaryColumns(ndims int) ([]bound.Column, []bound.Column) {
	if p.fillBan != nil {
		cols, undominated := lpColumns(p.unbanned(ordinaryTypes(p.types)), ndims)
		return bound.DistinctColumns(cols), undominated
	}
	if c := p.columns; c != nil && c.ndims == ndims {
		<-c.ready
		if c.ordinary != nil {
			return c.ordinary, c.ordinaryUndominated
		}
	}
	cols, undominated := lpColumns(ordinaryTypes(p.types), ndims)
	return bound.DistinctColumns(cols), undominated
}

// lbColumns returns the pool's lower-bound columns: the shared distinct
// ones once ready, else one per type. Callers must not change them.
func (p *poolPlan) lbColumns() []bound.Column {
	if c := p.columns; c != nil {
		<-c.ready
		return c.lb
	}
	return lbColumns(p.types)
}

// poolType is an instance type as one pool offers it.
type poolType struct {
	idx      int
	instance *catalog.InstanceType
	// alloc is allocatable less the daemonsets that may run on the node.
	alloc resources.Vector
	// allocLB is allocatable less the daemonsets that surely run there,
	// for the lower bound.
	allocLB  resources.Vector
	capacity resources.Vector
	// price per zone*numCapacityTypes+capacityType; 0 when not offered.
	price []float64
	// cheapest is the lowest allowed price in the pool.
	cheapest float64
	// zonal is set when a daemonset that may run on the type runs only
	// in some zones or capacity types (see splitZonal).
	zonal bool
	// daemonPorts are the host ports of the daemonsets that may run on
	// the node; portDaemons index those daemonsets in solver.daemons.
	daemonPorts []state.HostPort
	portDaemons []int
	// exotic is the type's catalog.Exotic kind unless the pool's
	// requirements name it (exotic.go); "" for a type any pod may get.
	exotic string
}

type offer struct {
	t            *poolType
	zone         int
	capacityType int
	price        float64
}

func (s *solver) compilePools() {
	for i, sp := range s.snap.Pools {
		s.pools = append(s.pools, s.compilePool(i, sp))
	}
}

func (s *solver) compilePool(i int, sp *state.Pool) *poolPlan {
	p := &poolPlan{idx: i, pool: sp, masks: map[string]bitset{}, offers: make([][]offer, len(s.zones))}
	for _, t := range sp.NewNodeTaints() {
		switch t.Effect {
		case corev1.TaintEffectPreferNoSchedule:
			p.soft = append(p.soft, t)
		default:
			p.taints = append(p.taints, t)
		}
	}
	if sp.Static() {
		// A static pool keeps its replicas (engine/static); pods may land on
		// its nodes, but packing opens none there.
		return p
	}
	compiled := make([]*poolType, len(sp.InstanceTypes))
	s.compileTypes(p, sp.InstanceTypes, compiled)
	compiled = s.splitZonal(p, compiled)
	// Each zone's offerings are counted first, so each list is allocated
	// once.
	counts := make([]int, len(s.zones))
	types := 0
	for _, t := range compiled {
		if t == nil {
			continue
		}
		types++
		for z := range s.zones {
			for ct := range numCapacityTypes {
				if t.price[z*numCapacityTypes+ct] > 0 {
					counts[z]++
				}
			}
		}
	}
	p.types = make([]*poolType, 0, types)
	for z, k := range counts {
		p.offers[z] = make([]offer, 0, k)
	}
	for _, t := range compiled {
		if t == nil {
			continue
		}
		t.idx = len(p.types)
		p.types = append(p.types, t)
		p.exotic = p.exotic || t.exotic != ""
		for z := range s.zones {
			for ct := range numCapacityTypes {
				if price := t.price[z*numCapacityTypes+ct]; price > 0 {
					p.offers[z] = append(p.offers[z], offer{t: t, zone: z, capacityType: ct, price: price})
					p.zoneMask |= 1 << z
					p.capacityTypeMask |= 1 << ct
				}
			}
		}
	}
	// Each zone's offerings by price, then name and capacity type, then
	// type index: the order a stable sort by the first three gives, as the
	// offerings were appended by type index, at an unstable sort's cost.
	// The zones are sorted side by side.
	var sorted sync.WaitGroup
	for _, offers := range p.offers {
		sorted.Go(func() { slices.SortFunc(offers, compareOffers) })
	}
	sorted.Wait()
	for name, q := range sp.Limits {
		if d, ok := s.dims.index[name]; ok {
			p.limits[d], p.limited[d] = amount(d, q), true
		}
	}
	for _, key := range sp.Requirements.Keys() {
		if r := sp.Requirements[key]; r.MinValues != nil {
			p.minValues = append(p.minValues, r)
		}
	}
	return p
}

// compareOffers orders offerings by price, type name, capacity type and
// type index, comparing each key only on a tie of the ones before.
func compareOffers(a, b offer) int {
	if c := cmp.Compare(a.price, b.price); c != 0 {
		return c
	}
	if c := cmp.Compare(a.t.instance.Name, b.t.instance.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.capacityType, b.capacityType); c != 0 {
		return c
	}
	return cmp.Compare(a.t.idx, b.t.idx)
}

// compileTypes compiles the pool's types in its into out (nil for a type
// the pool cannot launch: no requirement overlap or no allowed price).
func (s *solver) compileTypes(p *poolPlan, its []*catalog.InstanceType, out []*poolType) {
	sp := p.pool
	offerings := sp.Offerings()
	// The types and their price tables come from two allocations, not
	// two per type: there are over a thousand.
	w := len(s.zones) * numCapacityTypes
	slab := make([]poolType, len(its))
	prices := make([]float64, len(its)*w)
	compile := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			it := its[i]
			if !sp.Launchable(it) {
				continue
			}
			t := &slab[i]
			t.instance, t.price = it, prices[i*w:(i+1)*w:(i+1)*w]
			for _, o := range it.Offerings {
				z, ok := s.zoneIdx[o.Zone]
				ct := capacityTypeIndex(o.CapacityType)
				if !ok || ct < 0 || !offerings.Allows(o) {
					continue
				}
				t.price[z*numCapacityTypes+ct] = o.PricePerHour
				if t.cheapest == 0 || o.PricePerHour < t.cheapest {
					t.cheapest = o.PricePerHour
				}
			}
			if t.cheapest == 0 {
				continue
			}
			s.compileType(p, t)
			if kind := it.Exotic(); kind != "" && !it.NamesExotic(sp.Requirements) {
				t.exotic = kind
			}
			out[i] = t
		}
	}
	// Each type is compiled on its own: the two halves side by side.
	var half sync.WaitGroup
	h := len(its) / 2
	half.Go(func() { compile(h, len(its)) })
	compile(0, h)
	half.Wait()
}

// compileType sets a type's allocatable after daemonset overhead.
func (s *solver) compileType(p *poolPlan, t *poolType) {
	t.capacity = s.dims.nodeCapacity(t.instance.Capacity)
	alloc := s.dims.vector(t.instance.Allocatable)
	var over, sure resources.Vector
	if len(s.daemons) > 0 {
		var reqs scheduling.Requirements
		lazy := func() scheduling.Requirements {
			if reqs == nil {
				reqs = intersectOn(p.pool.Requirements, t.instance.Requirements, s.daemons)
			}
			return reqs
		}
		for i, dm := range s.daemons {
			if !dm.runsOnReqs(lazy, p.taints) {
				continue
			}
			over = over.Add(dm.req)
			if len(dm.ports) > 0 {
				t.daemonPorts = append(t.daemonPorts, dm.ports...)
				t.portDaemons = append(t.portDaemons, i)
			}
			if dm.zonal {
				t.zonal = true
			} else {
				sure = sure.Add(dm.req)
			}
		}
	}
	t.alloc = alloc.Sub(over)
	t.allocLB = alloc.Sub(sure)
}

// typeMask returns the pool's types a node requirement term allows.
func (p *poolPlan) typeMask(term scheduling.Requirements) bitset {
	// Most calls ask for every type (a nil term), whose signature is ""
	// without building it: the claims' and the improve pass's masks
	// were a tenth of a w1 solve's allocations.
	sig := ""
	if len(term) > 0 {
		sig = term.String()
	}
	if m, ok := p.masks[sig]; ok {
		return m
	}
	m := newBitset(len(p.types))
	for _, t := range p.types {
		if t.instance.Requirements.Overlaps(term) && (p.fillBan == nil || !p.fillBan.has(t.idx)) {
			m.set(t.idx)
		}
	}
	p.masks[sig] = m
	return m
}

// withinLimits reports whether adding capacity keeps the pool within its
// limits.
func (p *poolPlan) withinLimits(capacity resources.Vector) bool {
	for d := range resources.MaxDims {
		if p.limited[d] && p.usage[d]+capacity[d] > p.limits[d] {
			return false
		}
	}
	return true
}

// splitZonal makes the types on which a daemonset runs only in some zones
// or capacity types exact: a type whose offerings differ in the overhead
// of the daemonsets that run there becomes one type per distinct
// overhead, each offered only where that overhead applies. A daemonset
// that only runs in zone 1 then reserves nothing on nodes in zones 2 and
// 3, as kube-scheduler places it.
func (s *solver) splitZonal(p *poolPlan, compiled []*poolType) []*poolType {
	if !slices.ContainsFunc(compiled, func(t *poolType) bool { return t != nil && t.zonal }) {
		return compiled
	}
	out := make([]*poolType, 0, len(compiled))
	for _, t := range compiled {
		if t == nil || !t.zonal {
			out = append(out, t)
			continue
		}
		vs := s.zonalVariants(p, t)
		p.zonalSplit = p.zonalSplit || len(vs) > 1
		out = append(out, vs...)
	}
	return out
}

// zonalVariants splits t by the daemonsets running on each of its
// offerings (see splitZonal).
func (s *solver) zonalVariants(p *poolPlan, t *poolType) []*poolType {
	alloc := s.dims.vector(t.instance.Allocatable)
	reqs := p.pool.Requirements.Intersection(t.instance.Requirements)
	type variant struct {
		over  resources.Vector
		ports []state.HostPort
		from  []int
		t     *poolType
	}
	var variants []*variant
	for z, zone := range s.zones {
		for ct := range numCapacityTypes {
			i := z*numCapacityTypes + ct
			if t.price[i] == 0 {
				continue
			}
			r := reqs.Clone()
			r.Add(scheduling.In(scheduling.LabelTopologyZone, zone))
			r.Add(scheduling.In(scheduling.LabelCapacityType, capacityTypeNames[ct]))
			var over resources.Vector
			var ports []state.HostPort
			var from []int
			for d, dm := range s.daemons {
				if dm.runsOnReqs(func() scheduling.Requirements { return r }, p.taints) {
					over = over.Add(dm.req)
					ports = append(ports, dm.ports...)
					if len(dm.ports) > 0 {
						from = append(from, d)
					}
				}
			}
			k := slices.IndexFunc(variants, func(v *variant) bool { return v.over == over && slices.Equal(v.from, from) })
			if k < 0 {
				v := &variant{over: over, ports: ports, from: from, t: new(*t)}
				v.t.price = make([]float64, len(t.price))
				v.t.cheapest = 0
				v.t.alloc = alloc.Sub(over)
				v.t.daemonPorts, v.t.portDaemons = ports, from
				variants = append(variants, v)
				k = len(variants) - 1
			}
			vt := variants[k].t
			vt.price[i] = t.price[i]
			if vt.cheapest == 0 || t.price[i] < vt.cheapest {
				vt.cheapest = t.price[i]
			}
		}
	}
	out := make([]*poolType, len(variants))
	for i, v := range variants {
		out[i] = v.t
	}
	return out
}
