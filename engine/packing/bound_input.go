package packing

import (
	"cmp"
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/bound"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// boundInput is what bound.LowerBound reads of a solver's result: the demand
// on new claims (merged by request), the pools' types as columns, the
// least node count and the number of resources. loose, when set, is the
// same input without the zonal spreads' slots.
type boundInput struct {
	items    []bound.Demand
	cols     []bound.Column
	minNodes int64
	ndims    int
	loose    *boundInput
}

// bound is the lower bound of the input. With zonal spreads' slots, when
// column generation does not converge within its effort on the larger
// LP, the bound of the input without them may be higher (the fallbacks
// are weaker bounds of the larger LP): the larger of the two is valid.
func (in boundInput) bound() float64 {
	v, converged := bound.LowerBoundConverged(in.items, in.cols, in.minNodes, in.ndims)
	if converged || in.loose == nil {
		return v
	}
	return max(v, in.loose.bound())
}

// equal reports whether two inputs are the same, so their bounds are.
func (in boundInput) equal(o boundInput) bool {
	if (in.loose == nil) != (o.loose == nil) || in.loose != nil && !in.loose.equal(*o.loose) {
		return false
	}
	return in.minNodes == o.minNodes && in.ndims == o.ndims && slices.Equal(in.items, o.items) && slices.Equal(in.cols, o.cols)
}

// boundInput collects the input of the lower bound of the cost of any
// set of new nodes for the pods Solve put on new claims.
func (s *solver) boundInput() boundInput {
	onClaim := map[string]bool{}
	for _, n := range s.claims {
		if n.dropped {
			continue
		}
		onClaim[n.name] = true
	}
	// Pods that pairwise refuse to share a node need a node each.
	cliques := map[int]int64{}
	ports := map[string]int64{}
	var items []bound.Demand
	var owners []*class
	for _, c := range s.classes {
		if c.derived {
			continue
		}
		var k int64
		for _, p := range c.pods {
			if onClaim[s.placed[p]] {
				k++
			}
		}
		if k > 0 {
			items = append(items, bound.Demand{Req: c.req, Count: k})
			owners = append(owners, c)
		}
		for _, t := range c.anti {
			if !t.soft && isHostname(s.groups.list[t.group].key) && c.matchesGroup(t.group) {
				cliques[t.group] += k
			}
		}
		for _, hp := range c.ports {
			ports[fmt.Sprintf("%s/%d", hp.EffectiveProtocol(), hp.Port)] += k
		}
	}
	// Each clique becomes a resource of its own while dimensions are free,
	// the largest first: a node has one slot of each and each member needs
	// it, so the bound knows which pods need the nodes, not only how many,
	// and that members of different cliques may share one. A zonal spread
	// that caps the group's pods per zone, so per node, below their number
	// (see zoneSpreads) then gets a resource of that many slots.
	gs := slices.Sorted(maps.Keys(cliques))
	slices.SortStableFunc(gs, func(a, b int) int { return cmp.Compare(cliques[b], cliques[a]) })
	var k int64
	if len(gs) > 0 {
		k = cliques[gs[0]]
	}
	ndims := len(s.dims.names)
	var slots []boundSlot
	for _, g := range gs {
		if ndims+len(slots) < resources.MaxDims && cliques[g] > 1 {
			slots = append(slots, boundSlot{group: g, capacity: 1, clique: true})
		}
	}
	if len(slots) > 0 {
		// The largest clique's slots count its nodes.
		k = 0
	}
	// The pools' lower-bound columns, before the slots.
	lbs := make([][]bound.Column, len(s.pools))
	n := 0
	for i, p := range s.pools {
		lbs[i] = s.boundColumns(p, i)
		n += len(lbs[i])
	}
	// A zonal spread's slot is added only when its cap forces more nodes
	// on its group than the batch's size forces on the whole batch: on a
	// large batch it rarely binds, and its dimension can keep column
	// generation from converging (then both LPs are solved; see bound).
	cliqueSlots := len(slots)
	bySize := nodesBySize(items, lbs, ndims)
	for _, z := range s.zoneSpreads(onClaim) {
		k = max(k, z.nodes)
		if ndims+len(slots) < resources.MaxDims && ceilDiv(z.pods, z.perNode) > bySize && s.slotBinds(z, owners, lbs, ndims) {
			slots = append(slots, boundSlot{group: z.group, capacity: z.perNode})
		}
	}
	for _, v := range ports {
		k = max(k, v)
	}
	in := slotInput(items, owners, slots, lbs, n, k, ndims)
	if len(slots) > cliqueSlots {
		loose := slotInput(items, owners, slots[:cliqueSlots], lbs, n, k, ndims)
		in.loose = &loose
	}
	return in
}

// slotInput is the bound's input for demand items (of the classes
// owners) with slots as resources after the first ndims, on the columns
// lbs (n in all) with their slots, and at least k nodes.
func slotInput(items []bound.Demand, owners []*class, slots []boundSlot, lbs [][]bound.Column, n int, k int64, ndims int) boundInput {
	items = slices.Clone(items)
	for j, sl := range slots {
		for i, c := range owners {
			if sl.holds(c) {
				items[i].Req[ndims+j] = 1
			}
		}
	}
	var cols []bound.Column
	if n > 0 {
		cols = make([]bound.Column, 0, n)
	}
	for _, lb := range lbs {
		for _, c := range lb {
			for j, sl := range slots {
				c.Alloc[ndims+j] = sl.capacity
			}
			cols = append(cols, c)
		}
	}
	return boundInput{items: bound.MergeDemand(items), cols: cols, minNodes: k, ndims: ndims + len(slots)}
}

// boundSlot is a resource of the bound's own: each pod of a class it
// holds needs one slot, and every node has capacity slots. A hostname
// anti-affinity clique's members carry its term and match it; a zonal
// spread's are every pod matching its group.
type boundSlot struct {
	group    int
	capacity int64
	clique   bool
}

func (sl boundSlot) holds(c *class) bool {
	if !sl.clique {
		return c.matchesGroup(sl.group)
	}
	for _, t := range c.anti {
		if t.group == sl.group && !t.soft && c.matchesGroup(t.group) {
			return true
		}
	}
	return false
}

// nodesBySize is the fewest nodes the demand items need by size alone:
// in some resource, their total over the most any column has.
func nodesBySize(items []bound.Demand, lbs [][]bound.Column, ndims int) int64 {
	var total, most resources.Vector
	for _, it := range items {
		total.AddTimes(&it.Req, it.Count)
	}
	for _, lb := range lbs {
		for _, c := range lb {
			for d := range ndims {
				most[d] = max(most[d], c.Alloc[d])
			}
		}
	}
	var n int64
	for d := range ndims {
		if most[d] > 0 {
			n = max(n, ceilDiv(total[d], most[d]))
		}
	}
	return n
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// slotBinds reports whether the per-node cap of z can bind in the
// bound: whether some column holds perNode+1 of the group's pods by its
// resources, each at least the least request of any class matching the
// group in every resource. A slot that cannot bind only slows the LP.
func (s *solver) slotBinds(z zonalSpread, owners []*class, lbs [][]bound.Column, ndims int) bool {
	var least resources.Vector
	first := true
	for _, c := range owners {
		if !c.matchesGroup(z.group) {
			continue
		}
		for d := range ndims {
			if first || c.req[d] < least[d] {
				least[d] = c.req[d]
			}
		}
		first = false
	}
	if first {
		return false
	}
	for _, lb := range lbs {
		for _, col := range lb {
			fits := true
			for d := range ndims {
				fits = fits && least[d]*(z.perNode+1) <= col.Alloc[d]
			}
			if fits {
				return true
			}
		}
	}
	return false
}

// zonalSpread is what a zonal topology spread forces on the new nodes of
// the pods of its group: at least nodes nodes, and at most perNode of
// the group's pods on one node.
type zonalSpread struct {
	group          int
	pods           int64
	nodes, perNode int64
}

// zoneSpreads lists what each zonal spread (DoNotSchedule) forces, for
// groups all of whose matching pods are on new claims (no pod elsewhere
// shifts the skew), taking for safety the largest maxSkew and the fewest
// domains among the classes that carry it (see spreadForces). Hostname
// spread forces nothing: every pod of a group on one node keeps a skew
// of 0 when that node is the only one (TestLowerBoundBruteForceSpread).
func (s *solver) zoneSpreads(onClaim map[string]bool) []zonalSpread {
	type carried struct {
		skew    int32
		domains int
	}
	spreads := map[int]carried{}
	onClaims := make([]int64, len(s.groups.list))
	for _, c := range s.classes {
		if c.derived {
			continue
		}
		var k int64
		for _, p := range c.pods {
			if onClaim[s.placed[p]] {
				k++
			}
		}
		for _, g := range c.matches {
			onClaims[g] += k
		}
		if k == 0 {
			continue
		}
		for _, sp := range c.spreads {
			if sp.soft || s.groups.list[sp.group].key != scheduling.LabelTopologyZone {
				continue
			}
			z := bits.OnesCount64(s.policyDomains(c, sp, scheduling.LabelTopologyZone))
			if cur, ok := spreads[sp.group]; ok {
				spreads[sp.group] = carried{skew: max(cur.skew, sp.maxSkew), domains: min(cur.domains, z)}
			} else {
				spreads[sp.group] = carried{skew: sp.maxSkew, domains: z}
			}
		}
	}
	var out []zonalSpread
	for _, g := range slices.Sorted(maps.Keys(spreads)) {
		sp, n := spreads[g], onClaims[g]
		var counted int64
		for _, zone := range s.zones {
			counted += int64(s.counts[g][zone])
		}
		if n == 0 || counted != n || sp.skew <= 0 || sp.domains == 0 {
			continue
		}
		nodes, perNode := spreadForces(n, int64(sp.skew), int64(sp.domains))
		out = append(out, zonalSpread{group: g, pods: n, nodes: nodes, perNode: perNode})
	}
	slices.SortStableFunc(out, func(a, b zonalSpread) int { return cmp.Compare(b.nodes, a.nodes) })
	return out
}

// spreadForces is what spreading n pods over z domains with maxSkew m
// forces on any placement: the fewest domains it fills, and the most pods
// one domain can hold. A count vector is valid when its entries are at
// least 0, sum to n, and differ by at most m; a domain can hold c pods
// when, for some least count l in [max(0, c-m), c], the other z-1 domains
// can hold the remaining n-c with counts in [l, l+m]. The fewest domains
// filled: a valid vector with an empty domain has every count at most m,
// so fills at least ceil(n/m) domains; one without fills all z.
func spreadForces(n, m, z int64) (nodes, perNode int64) {
	nodes = z
	if (z-1)*m >= n {
		// An empty domain is possible.
		nodes = min(z, (n+m-1)/m)
	}
	if z == 1 {
		return nodes, n
	}
	for c := n; c >= 1; c-- {
		// l must lie in [max(0, c-m), c] and in [ceil(r/(z-1)) - m, floor(r/(z-1))], r = n-c.
		r := n - c
		lo := max(0, c-m, (r+z-2)/(z-1)-m)
		if hi := min(c, r/(z-1)); lo <= hi {
			return nodes, c
		}
	}
	return nodes, n
}

// boundColumns are pool p's (the i-th) lower-bound columns: every type
// of the pool less the exotic types (exotic.go) that no class with a pod
// on a new claim may get (see exoticMay).
func (s *solver) boundColumns(p *poolPlan, i int) []bound.Column {
	if i >= len(s.exoticMay) || s.exoticMay[i] == nil {
		return p.lbColumns()
	}
	var kept []*poolType
	for _, t := range p.types {
		if t.exotic == "" || s.exoticMay[i].has(t.idx) {
			kept = append(kept, t)
		}
	}
	if len(kept) == len(p.types) {
		return p.lbColumns()
	}
	return bound.DistinctColumns(lbColumns(kept))
}

// setExoticMay records, per pool with exotic types, those that some
// class with a pod on a new claim may get by any of its hard node terms
// (pinned or not, whatever its preferences): any valid result puts each
// pod on a type its class may get, so a node of a type none of them may
// get holds none of them, and the lower bound may leave it out. That
// keeps the GPU and metal types that ordinary pods never get from
// lowering the bound (w1-spot: 1.133 of a bound that priced spot GPU
// nodes, 1.042 of one that does not). It runs at the end of solveOnce,
// as the bound may be computed beside describe, which reads the caches
// this fills.
func (s *solver) setExoticMay() {
	s.exoticMay = make([]bitset, len(s.pools))
	onClaim := map[string]bool{}
	for _, n := range s.claims {
		if !n.dropped {
			onClaim[n.name] = true
		}
	}
	var users []*class
	for _, c := range s.classes {
		if c.derived {
			continue
		}
		for _, p := range c.pods {
			if onClaim[s.placed[p]] {
				users = append(users, c)
				break
			}
		}
	}
	for i, p := range s.pools {
		if !p.exotic {
			continue
		}
		may := newBitset(len(p.types))
		for _, c := range users {
			s.orExotic(may, c, p)
		}
		s.exoticMay[i] = may
	}
}

// orExotic adds to may the exotic types of p that class c may get.
func (s *solver) orExotic(may bitset, c *class, p *poolPlan) {
	if c.invalid != "" || p.taints.ToleratesPod(c.tolerations) != nil {
		return
	}
	add := func(mask bitset) {
		for _, t := range p.types {
			if t.exotic != "" && mask.has(t.idx) {
				may.set(t.idx)
			}
		}
	}
	// The cached compatibility is the hard one when no preference or pin
	// narrows it.
	if len(c.preferred) == 0 && len(p.soft) == 0 && c.unpinned == nil && len(c.terms) == 1 {
		if cp := s.compat(c, p); cp.reason == "" {
			add(cp.mask)
		}
		return
	}
	for _, terms := range [][]scheduling.Requirements{c.terms, c.unpinned} {
		for _, term := range terms {
			if cp, _ := s.termCompat(c, p, term); cp != nil {
				add(cp.mask)
			}
		}
	}
}
