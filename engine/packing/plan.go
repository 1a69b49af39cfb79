package packing

import (
	"cmp"
	"context"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/bound"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/lp"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// The configuration LP as a packing plan.
//
// The greedy fill opens one claim at a time, each the best value per
// dollar for what is left. Where most pods are large beside the nodes that
// suit them (a large hostname anti-affinity clique puts each member on a
// node of its own, and the cheapest such nodes hold 2 cpus), committing
// node by node wastes a tenth of the bill: on diverse-1k the greedy fill
// buys 385 nodes for 15.60 $/h where whole-node patterns exist for 14.0.
//
// A plan finds those patterns for the whole batch first. Its LP is Gilmore
// and Gomory's configuration LP,
//
//	min Σ_c p_c·x_c  subject to  Σ_c a_ic·x_c ≥ n_i,  x ≥ 0,
//
// where a configuration c is a type and a whole number a_ic of pods of
// each request i that fit one node of it together (each clique member
// taking its clique's one slot per node), at most as many as one zone
// holds (planItem.perNode: a node is in one zone, and where topology
// spread pins a request's pods to zones, a configuration of more could
// not be filled). Column generation solves it on
// lp.Cover: the duals π of the restricted master ask the types for
// configurations worth more than their price, a bounded knapsack solved
// by depth-first branch and bound with surrogate bounds (knapsack), skipped
// when the knapsack's linear relaxation proves it empty (provenEmpty); the
// types whose bound promises most per dollar are searched first, until a
// round has found enough (partial pricing). Rounding (round) then fixes
// whole configurations in passes: every x_c ≥ 1 is taken as often as it
// is whole, the demand falls by what was fixed, the master is re-solved
// from its basis by the dual simplex and column generation goes on for
// the rest, capped by what is left. One effort stops when no column is
// whole; the other then rounds up the columns at least half taken (or
// the largest). Each planned node is finally opened in the zone where
// the most of its pattern can be filled with real pods (realize), the
// per-node rules checked as in any fill; what no planned node took goes
// to the greedy fill, and the improve pass runs as for every strategy.
//
// All work is counted (planEffort), so plans are deterministic.

// planEffort caps a plan: rounds of column generation at first and after
// each rounding pass, rounding passes, configurations added per round,
// master pivots per solve, knapsack steps per search and in all, and the
// steps of a search on a type that holds more than bigPods pods (on such
// nodes the search's first, greedy, descent is already close, and the
// full search would spend the budget where it gains least). With roundUp
// set, a pass in which no column is whole rounds up those at least
// roundUp (else the largest) instead of ending the plan.
//
// The two first efforts run as two strategies side by side, the cheapest result
// winning: which rounding does best varies from batch to batch (on
// diverse-1k / 5k / 20k, the first costs 14.74 / 70.57 / 276.19 $/h, the
// second 14.59 / 71.41 / 276.23); they differ only in rounding, so their
// first column generation is run once and shared (planStarts). The third is the first with fewer
// residual rounds and tailGain set: column generation ends when the
// master's objective fell by less than tailGain over the last tailRounds
// rounds (on w1 the objective is within 0.3 % of its last value after 17
// of 54 rounds). It packs batches without a clique (strategiesFor), where
// the plan is one strategy of two and should take no longer than the
// greedy fill beside it.
type planEffort struct {
	rounds, residualRounds, passes, perRound, pivots int
	steps, totalSteps, bigSteps                      int
	bigPods                                          int64
	roundUp, tailGain                                float64
}

var planEfforts = [...]planEffort{
	{rounds: 60, residualRounds: 10, passes: 4, perRound: 12, pivots: 400, steps: 20000, totalSteps: 8_000_000, bigSteps: 500, bigPods: 32},
	{rounds: 60, residualRounds: 3, passes: 40, perRound: 12, pivots: 400, steps: 20000, totalSteps: 8_000_000, bigSteps: 500, bigPods: 32, roundUp: 0.5},
	{rounds: 60, residualRounds: 3, passes: 4, perRound: 12, pivots: 400, steps: 20000, totalSteps: 8_000_000, bigSteps: 500, bigPods: 32, tailGain: 1e-3},
}

// planItem is the pods of one request (clique slots included) among the
// filler's buckets, and the buckets that hold them, those pinned to fewer
// zones first.
type planItem struct {
	req     resources.Vector
	count   int64
	buckets []*bucket
	// perNode is the most pods of the item one node can get: a node is in
	// one zone, so the most the item's buckets hold in any one zone.
	perNode int64
}

// planType is a type a plan may open: its allocatable with one slot per
// clique, and its cheapest price in the zones and capacity types the
// buckets allow.
type planType struct {
	t     *poolType
	alloc resources.Vector
	price float64
	holds int64
}

// planConfig is a configuration: cnt[k] pods of item idx[k] on a node of
// type typ.
type planConfig struct {
	typ int
	idx []int32
	cnt []int64
}

type planner struct {
	ctx    context.Context
	effort planEffort
	items  []planItem
	types  []planType
	ndims  int
	// resDims is how many of the ndims dimensions are resources; the
	// rest are clique slots (see newPlanner).
	resDims       int
	capacityTypes uint8
	zones         uint64
	master        *lp.Cover
	// cols are the master's configurations, in the order of its
	// structural columns (after the m artificials and m surpluses).
	cols []planConfig
	// left is the demand not yet planned, stepsLeft the knapsack steps
	// left of plan.effort.totalSteps.
	left      []int64
	stepsLeft int
	// weightCache caches weights; order, cur, best and rooms are
	// knapsack's scratch.
	weightCache [][resources.MaxDims]float64
	// rootX, rootC and shares are what prepare computes once per plan,
	// when first needed.
	rootX, rootC, shares []float64
	coefs                [][]surrogateTerm
	// reqDims is one more than the last dimension any item requests
	// (prepare computes it; knapsack's search changes rooms in those
	// alone).
	reqDims int
	// ratios is the scratch of newSurrogate, worth knapsackOrder's (per
	// item).
	ratios []float64
	worth  []float64
	order  []int32
	cur    []int64
	best   []int64
	rooms  []resources.Vector
	// relaxed and lpRows are provenEmpty's scratch; noEmptyProof runs
	// every search it would skip (for tests).
	relaxed      lp.Packing
	lpRows       [][]float64
	noEmptyProof bool
}

// planFill opens the claims a plan calls for when the filler's buckets
// allow one (see newPlanner); the greedy fill takes what is left.
func (f *filler) planFill() {
	plan := f.newPlanner()
	if plan == nil {
		return
	}
	plan.startAndGenerate(f.s.planStarts)
	configs := plan.round()
	// A cancelled plan opens nothing; fillPool reports the cancellation.
	if f.s.ctx.Err() != nil {
		return
	}
	f.realize(plan, configs)
}

// newPlanner sets a plan up for the filler's buckets, or returns nil when
// they do not suit one: the pool has limits or minValues, the buckets
// differ in the types or capacity types they allow, or there are more
// distinct requests than bound.MaxAssignItems.
func (f *filler) newPlanner() *planner {
	s, p := f.s, f.p
	if p.anyLimit() || len(p.minValues) > 0 || len(f.active) == 0 {
		return nil
	}
	cp0 := s.compat(f.active[0].class, p)
	plan := &planner{ctx: s.ctx, effort: planEfforts[s.opts.plan-1], ndims: len(s.dims.names), capacityTypes: f.active[0].capacityTypes & cp0.capacityTypeMask,
		noEmptyProof: s.opts.noEmptyProof}
	plan.resDims = plan.ndims
	cliques := map[int]int64{}
	for _, b := range f.active {
		cp := s.compat(b.class, p)
		if !slices.Equal(cp.mask, cp0.mask) || b.capacityTypes&cp.capacityTypeMask != plan.capacityTypes {
			return nil
		}
		plan.zones |= b.zones & cp.zoneMask
		for _, g := range f.cliquesOf(b.class) {
			cliques[g] += b.left()
		}
	}
	// Each clique with more than one member gets a slot dimension while
	// dimensions are free, the largest first, as in boundInput.
	gs := slices.Sorted(maps.Keys(cliques))
	slices.SortStableFunc(gs, func(a, b int) int { return cmp.Compare(cliques[b], cliques[a]) })
	slot := map[int]int{}
	for _, g := range gs {
		if plan.ndims < resources.MaxDims && cliques[g] > 1 {
			slot[g] = plan.ndims
			plan.ndims++
		}
	}
	at := map[resources.Vector]int{}
	for _, b := range f.active {
		req := b.class.req
		for _, g := range f.cliquesOf(b.class) {
			if d, ok := slot[g]; ok {
				req[d] = 1
			}
		}
		i, ok := at[req]
		if !ok {
			i = len(plan.items)
			at[req] = i
			plan.items = append(plan.items, planItem{req: req})
		}
		plan.items[i].count += b.left()
		plan.items[i].buckets = append(plan.items[i].buckets, b)
	}
	if len(plan.items) > bound.MaxAssignItems {
		return nil
	}
	for i := range plan.items {
		plan.items[i].perNode = plan.perNode(plan.items[i].buckets)
	}
	for i := range plan.items {
		slices.SortStableFunc(plan.items[i].buckets, func(a, b *bucket) int {
			return cmp.Compare(bits.OnesCount64(a.zones), bits.OnesCount64(b.zones))
		})
	}
	plan.compileTypes(p, cp0, slot)
	if len(plan.types) == 0 {
		return nil
	}
	return plan
}

// perNode is the most pods of buckets that one zone of the plan's can
// take.
func (plan *planner) perNode(buckets []*bucket) int64 {
	var most int64
	for z := range bits.Len64(plan.zones) {
		if plan.zones&(1<<z) == 0 {
			continue
		}
		var n int64
		for _, b := range buckets {
			if b.zones&(1<<z) != 0 {
				n += b.left()
			}
		}
		most = max(most, n)
	}
	return most
}

// cap is how many pods of item i one configuration may hold: the pods
// left to plan, at most as many as one zone holds.
func (plan *planner) cap(i int32) int64 {
	return min(plan.left[i], plan.items[i].perNode)
}

// cliquesOf lists the hostname anti-affinity groups c is a member of.
func (f *filler) cliquesOf(c *class) []int {
	var gs []int
	for _, t := range c.activeTerms(c.anti) {
		if isHostname(f.s.groups.list[t.group].key) && c.matchesGroup(t.group) {
			gs = append(gs, t.group)
		}
	}
	return gs
}

// compileTypes lists the pool's types the buckets allow that hold some
// item, at their cheapest price in the plan's zones and capacity types,
// without those another type beats on every resource and price.
func (plan *planner) compileTypes(p *poolPlan, cp *compat, slot map[int]int) {
	all := make([]planType, 0, len(p.types))
	for _, t := range p.types {
		if !cp.mask.has(t.idx) {
			continue
		}
		price := math.Inf(1)
		for z := range bits.Len64(plan.zones) {
			if plan.zones&(1<<z) == 0 {
				continue
			}
			if ct, pr := cheapestCapacityType(t, z, plan.capacityTypes); ct >= 0 {
				price = min(price, pr)
			}
		}
		if math.IsInf(price, 1) {
			continue
		}
		alloc := t.alloc
		for _, d := range slot {
			alloc[d] = 1
		}
		var holds int64
		for _, it := range plan.items {
			holds = max(holds, it.req.Times(&alloc, math.MaxInt64))
		}
		if holds == 0 {
			continue
		}
		all = append(all, planType{t: t, alloc: alloc, price: price, holds: holds})
	}
	// By price, then larger cpu and memory, then name, and the pool's
	// order last (a type split by zonal daemonsets keeps its name; all
	// is in the pool's order): a total order, so an unstable sort orders
	// as the stable one did. The indices are sorted, not the types (88
	// bytes each), and each key is compared only on a tie of the ones
	// before (the names, compared at every step, were most of the sort).
	order := make([]int32, len(all))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &all[i], &all[j]
		if c := cmp.Compare(a.price, b.price); c != 0 {
			return c
		}
		if c := cmp.Compare(b.alloc[resources.CPU], a.alloc[resources.CPU]); c != 0 {
			return c
		}
		if c := cmp.Compare(b.alloc[resources.Memory], a.alloc[resources.Memory]); c != 0 {
			return c
		}
		if c := strings.Compare(a.t.instance.Name, b.t.instance.Name); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	for _, i := range order {
		t := &all[i]
		if !slices.ContainsFunc(plan.types, func(k planType) bool { return t.alloc.Fits(k.alloc) }) {
			plan.types = append(plan.types, *t)
		}
	}
}

// start sets the master up with one configuration per item: as many of
// its pods as fit the type cheapest per pod.
func (plan *planner) start() {
	m := len(plan.items)
	d := make([]float64, m)
	plan.left = make([]int64, m)
	for i, it := range plan.items {
		d[i] = float64(it.count)
		plan.left[i] = it.count
	}
	plan.master = lp.NewCover(d)
	for i, it := range plan.items {
		best, bestPer, bestK := -1, math.Inf(1), int64(0)
		for j, t := range plan.types {
			k := it.req.Times(&t.alloc, it.perNode)
			if k > 0 && t.price/float64(k) < bestPer {
				best, bestPer, bestK = j, t.price/float64(k), k
			}
		}
		if best >= 0 {
			plan.addConfig(planConfig{typ: best, idx: []int32{int32(i)}, cnt: []int64{bestK}})
		}
	}
	plan.stepsLeft = plan.effort.totalSteps
}

// generate runs at most rounds rounds of column generation on the
// demand left, within plan.effort.
func (plan *planner) generate(rounds int) {
	pi := make([]float64, len(plan.items))
	type cand struct {
		c     planConfig
		ratio float64
	}
	var cands []cand
	type typePromise struct {
		j     int
		ratio float64
	}
	var promise []typePromise
	var objs []float64
	for range rounds {
		if plan.ctx.Err() != nil {
			return
		}
		plan.master.Solve(plan.effort.pivots)
		plan.master.Duals(pi)
		// The master's objective is the duals' worth of the demand.
		obj := 0.0
		for i := range pi {
			obj += pi[i] * float64(plan.left[i])
		}
		if objs = append(objs, obj); plan.effort.tailGain > 0 && len(objs) > tailRounds && objs[len(objs)-1-tailRounds]-obj <= plan.effort.tailGain*obj {
			break
		}
		cands = cands[:0]
		// Partial pricing: the types whose surrogate bound promises the
		// most value per dollar are searched first, until perRound
		// configurations are found.
		promise = promise[:0]
		for j := range plan.types {
			if r := plan.rootRatio(pi, j); r > 1+1e-9 {
				promise = append(promise, typePromise{j, r})
			}
		}
		slices.SortStableFunc(promise, func(a, b typePromise) int { return cmp.Compare(b.ratio, a.ratio) })
		for _, tp := range promise {
			if len(cands) >= plan.effort.perRound || plan.stepsLeft <= 0 {
				break
			}
			steps := plan.effort.steps
			if plan.types[tp.j].holds > plan.effort.bigPods {
				steps = plan.effort.bigSteps
			}
			v, c := plan.knapsack(pi, tp.j, min(steps, plan.stepsLeft))
			if v > plan.types[tp.j].price*(1+1e-9) {
				cands = append(cands, cand{c, v / plan.types[tp.j].price})
			}
		}
		if len(cands) == 0 {
			break
		}
		slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.ratio, a.ratio) })
		for _, c := range cands[:min(len(cands), plan.effort.perRound)] {
			plan.addConfig(c.c)
		}
	}
	plan.master.Solve(plan.effort.pivots)
}

// tailRounds: with planEffort.tailGain set, column generation ends once
// the master's objective fell by no more than tailGain (relative) over
// the last tailRounds rounds.
const tailRounds = 4

func (plan *planner) addConfig(c planConfig) {
	val := make([]float64, len(c.cnt))
	for k, n := range c.cnt {
		val[k] = float64(n)
	}
	plan.cols = append(plan.cols, c)
	plan.master.Add(plan.types[c.typ].price, c.idx, val, false)
}

// round turns the master's solution into whole configurations: each
// column's whole part is fixed (a fixed configuration takes no more of an
// item than is left), the demand falls by what was fixed, and column
// generation goes on for what is left, plan.effort.passes times or until
// no column is whole (or, with roundUp set, none can be rounded up). The
// greedy fill takes the rest.
func (plan *planner) round() []planConfig {
	m := len(plan.items)
	d := make([]float64, m)
	var out []planConfig
	for range plan.effort.passes {
		if plan.ctx.Err() != nil {
			break
		}
		fixed := plan.fixWhole(&out)
		if !fixed && plan.effort.roundUp > 0 {
			fixed = plan.fixRoundedUp(&out)
		}
		done := true
		for i := range m {
			d[i] = float64(plan.left[i])
			done = done && plan.left[i] == 0
		}
		if !fixed || done {
			break
		}
		plan.master.SetDemand(d)
		plan.master.DualSolve(plan.effort.pivots)
		plan.generate(plan.effort.residualRounds)
	}
	return out
}

// fixWhole fixes each basic configuration as many times as its value is
// whole, and reports whether it fixed any.
func (plan *planner) fixWhole(out *[]planConfig) bool {
	fixed := false
	for r := range plan.master.Rows() {
		j, x := plan.master.Basic(r)
		if j < 0 {
			continue
		}
		for range int64(x + 1e-9) {
			if !plan.take(plan.cols[j], out) {
				break
			}
			fixed = true
		}
	}
	return fixed
}

// fixRoundedUp fixes, when no configuration is whole, those whose value
// is at least roundUp, or else the largest; it reports whether it fixed
// any.
func (plan *planner) fixRoundedUp(out *[]planConfig) bool {
	fixed := false
	best, bestX := -1, 0.0
	for r := range plan.master.Rows() {
		j, x := plan.master.Basic(r)
		if j < 0 || x <= 1e-9 {
			continue
		}
		if x >= plan.effort.roundUp {
			fixed = plan.take(plan.cols[j], out) || fixed
		} else if x > bestX {
			best, bestX = j, x
		}
	}
	if !fixed && best >= 0 {
		fixed = plan.take(plan.cols[best], out)
	}
	return fixed
}

// take fixes one node of configuration c, capped by the demand left, into
// out; false when c takes nothing any more.
func (plan *planner) take(c planConfig, out *[]planConfig) bool {
	t := planConfig{typ: c.typ}
	for k, i := range c.idx {
		if n := min(c.cnt[k], plan.left[i]); n > 0 {
			t.idx = append(t.idx, i)
			t.cnt = append(t.cnt, n)
			plan.left[i] -= n
		}
	}
	if len(t.idx) == 0 {
		return false
	}
	*out = append(*out, t)
	return true
}

// realize opens a claim per planned configuration, the dearest first, in
// the zone where the most of it can be filled, and fills it with the pods
// of its items, checking each pod's per-node rules as any fill does.
func (f *filler) realize(plan *planner, configs []planConfig) {
	s := f.s
	slices.SortStableFunc(configs, func(a, b planConfig) int {
		return cmp.Compare(plan.types[b.typ].price, plan.types[a.typ].price)
	})
	for _, c := range configs {
		t := plan.types[c.typ].t
		bestZ, bestCT, bestV := -1, -1, 0.0
		for z := range len(s.zones) {
			if plan.zones&(1<<z) == 0 {
				continue
			}
			ct, _ := cheapestCapacityType(t, z, plan.capacityTypes)
			if ct < 0 {
				continue
			}
			if v := f.dryFillConfig(plan, c, f.dryNode(z, ct, t)); v > bestV {
				bestZ, bestCT, bestV = z, ct, v
			}
		}
		if bestZ < 0 {
			continue
		}
		n := s.newClaim(f.p, t, bestZ, bestCT)
		if f.fillConfig(plan, c, n); len(n.pods) == 0 {
			s.dropClaim(n)
		}
	}
}

// fillConfig places on n up to the configuration's count of each item,
// from the item's buckets in order, and returns the share of n's
// resources the pods placed take.
func (f *filler) fillConfig(plan *planner, c planConfig, n *node) float64 {
	return f.packConfig(plan, c, n, f.s.place)
}

// dryFillConfig is fillConfig simulated on n (a scratch node, see
// dryNode): the pods stay in their buckets.
func (f *filler) dryFillConfig(plan *planner, c planConfig, n *node) float64 {
	v := f.packConfig(plan, c, n, f.dryPut)
	// The dry puts counted the pods in the buckets' taken fields.
	for _, i := range c.idx {
		for _, b := range plan.items[i].buckets {
			b.taken = 0
		}
	}
	return v
}

// packConfig is fillConfig with put doing the placing.
func (f *filler) packConfig(plan *planner, c planConfig, n *node, put func(*bucket, *node, int64)) float64 {
	s := f.s
	var v float64
	for k, i := range c.idx {
		need := c.cnt[k]
		for _, b := range plan.items[i].buckets {
			if need == 0 {
				break
			}
			left := b.left() - b.taken
			if left <= 0 || !s.admits(b, n) {
				continue
			}
			x := s.roomLeft(b, n, min(need, left))
			if x <= 0 {
				continue
			}
			put(b, n, x)
			need -= x
			v += float64(x) * shareOf(b.class.req, n.typ.alloc)
		}
	}
	return v
}

// resourcesOnly is v without its clique slots.
func (plan *planner) resourcesOnly(v resources.Vector) resources.Vector {
	for d := plan.resDims; d < resources.MaxDims; d++ {
		v[d] = 0
	}
	return v
}

// shareOf is the largest share of alloc that req takes in any resource.
func shareOf(req, alloc resources.Vector) float64 {
	var s float64
	for d := range resources.MaxDims {
		if alloc[d] > 0 {
			s = max(s, float64(req[d])/float64(alloc[d]))
		}
	}
	return s
}
