package packing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Solve places pods (pending pods of snap) on snap's existing nodes and
// in-flight claims first, then in the capacity reservations its pools may
// launch into (reserved.go), then on new claims chosen for cost, and
// explains every pod it cannot place. The result is deterministic for a
// given input.
func Solve(ctx context.Context, snap *state.Snapshot, pods []*state.Pod, opts ...Option) (*Result, error) {
	if snap == nil {
		return nil, errors.New("solving: nil snapshot")
	}
	slots := reservedSlots(snap, pods)
	if len(slots) == 0 {
		return solveNarrowed(ctx, snap, pods, opts...)
	}
	r, err := solveNarrowed(ctx, withSlots(snap, slots), pods, opts...)
	if err != nil {
		return nil, err
	}
	keepSlots(r, slots, pods)
	return r, nil
}

// solveNarrowed is solve, then, unless the caller picked one strategy
// (WithStrategy) to save time, a search of cheaper answers for batches
// that buy claims: narrow for batches of fewer than planMinPods pods,
// which are cheap to solve again on sub-pools (when it keeps a
// sub-pool's answer, refit solves once more to retype its claims on the
// whole pool), and one more fill on the families the answer buys for
// larger ones (families.go). The later solves skip the lower bound, a
// third of their CPU: the first solve's holds for any answer kept.
func solveNarrowed(ctx context.Context, snap *state.Snapshot, pods []*state.Pod, opts ...Option) (*Result, error) {
	o := newOptions(opts)
	small := len(pods) < planMinPods
	refill := !small && len(pods) < secondFillMaxPods && !o.noSecondFill
	if refill && o.strategy < 0 && o.cache == nil {
		// The second fill (families.go) compiles the same pools.
		opts = append(slices.Clip(opts), WithCache(NewCache()))
	}
	r, err := solve(ctx, snap, pods, opts...)
	if err != nil || len(r.Claims) == 0 || o.strategy >= 0 || !small && !refill {
		return r, err
	}
	subOpts := append(slices.Clip(opts), WithoutLowerBound())
	// fitted fills on the pool less bans, then retypes on the whole pool.
	fitted := func(bans map[ban]bool) func() (*Result, error) {
		return func() (*Result, error) {
			return solve(ctx, snap, pods, append(subOpts, func(o *options) { o.fillBans = bans })...)
		}
	}
	if refill {
		bans := familyBans(snap, r)
		return refit(r, bans, fitted(bans)), nil
	}
	best, bans := narrow(ctx, snap, r, func(sub *state.Snapshot) (*Result, error) { return solve(ctx, sub, pods, subOpts...) })
	return refit(best, bans, fitted(bans)), nil
}

// solve is Solve without capacity reservations.
//
// It packs the batch with two fill strategies at once (see strategiesFor)
// and returns the cheapest result among those that place the most pods.
func solve(ctx context.Context, snap *state.Snapshot, pods []*state.Pod, opts ...Option) (*Result, error) {
	if snap == nil {
		return nil, errors.New("solving: nil snapshot")
	}
	o := newOptions(opts)
	if o.solves != nil {
		o.solves.Add(1)
	}
	pods, keys := sortedUnique(pods)
	o.holdingOnly = len(pods) < planMinPods
	o.pairs = o.holdingOnly && o.strategy < 0
	// The pods are partitioned into classes beside the compilation of the
	// pools' instance types; both are shared read-only by the variants.
	var part partition
	var partitioned sync.WaitGroup
	partitioned.Go(func() { part = partitionCached(pods, o.cache) })
	shared := newSolver(ctx, snap, o)
	if !o.noSharedPlans {
		shared.planStarts = &planStarts{}
	}
	if err := shared.internDims(pods); err != nil {
		partitioned.Wait()
		return nil, fmt.Errorf("solving: %w", err)
	}
	// The pools' LP columns are computed beside the variants, which wait
	// for them only when they first price the demand.
	var columns sync.WaitGroup
	defer columns.Wait()
	shared.compileCached(&columns)
	shared.compileNodeBases()
	partitioned.Wait()
	spot := false
	for _, p := range shared.pools {
		spot = spot || p.capacityTypeMask&(1<<capacitySpot) != 0
	}
	picked := strategiesFor(pods, spot)
	if o.strategy >= 0 {
		picked = []strategy{{worth: strategies()[o.strategy], eagerCliques: o.eagerCliques, plan: o.plan}}
	}
	results := make([]*Result, len(picked))
	solvers := make([]*solver, len(picked))
	errs := make([]error, len(picked))
	// The variant that finishes first computes the lower bound of its
	// result on its core while the others finish (see earlyBound).
	var variants, early sync.WaitGroup
	var eb earlyBound
	defer early.Wait()
	for i, w := range picked {
		variants.Add(1)
		early.Go(func() {
			so := o
			so.worth = w.worth
			so.eagerCliques = w.eagerCliques
			so.valueRounds = w.valueRounds
			so.plan = w.plan
			solvers[i], results[i], errs[i] = solveOnce(ctx, snap, pods, keys, part, so, shared)
			failed := errs[i] != nil || o.noBound
			variants.Done()
			if !failed && eb.first.CompareAndSwap(false, true) {
				eb.s = solvers[i]
				eb.in = eb.s.boundInput()
				eb.value = eb.in.bound()
			}
		})
	}
	variants.Wait()
	var best *Result
	var bestSolver *solver
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if best == nil || len(r.Unschedulable) < len(best.Unschedulable) ||
			(len(r.Unschedulable) == len(best.Unschedulable) && r.CostPerHour < best.CostPerHour-1e-9) {
			best, bestSolver = r, solvers[i]
		}
	}
	// The claims and placements are listed only for the result returned,
	// beside its bound (the early one when it is the same): neither
	// changes what the other reads.
	var out sync.WaitGroup
	out.Go(func() { bestSolver.describe(best, pods, keys) })
	early.Wait()
	switch {
	case o.noBound:
	case eb.s == bestSolver:
		best.LowerBoundPerHour = eb.value
	default:
		if in := bestSolver.boundInput(); eb.s != nil && eb.in.equal(in) {
			best.LowerBoundPerHour = eb.value
		} else {
			best.LowerBoundPerHour = in.bound()
		}
	}
	out.Wait()
	return best, nil
}

// earlyBound is the lower bound the first variant to finish computes for
// its own result, beside the variants still running. The bound depends
// only on its input (which pods of which classes ended on new claims, the
// pools' types, the clique and port counts), which is usually the same
// for every variant: Solve uses the early value when the input of the
// result it returns is equal, and computes the bound afresh otherwise.
type earlyBound struct {
	first atomic.Bool
	// s is the variant that computed it, in its input and value the
	// bound.
	s     *solver
	in    boundInput
	value float64
}

// describe fills in the claims and placements of a result solveOnce
// returned, for pods (whose keys are keys), in order.
//
// pods are sorted by key, so the keys of each node's pods come out in
// order as the placements are listed: a claim's pods need no sort and no
// key built again (on diverse-20k that was a tenth of the solve's CPU).
func (s *solver) describe(res *Result, pods []*state.Pod, keys []string) {
	keysOn := make(map[string][]string, len(s.claims))
	if len(s.placed) > 0 {
		res.Placements = make([]Placement, 0, len(s.placed))
	}
	for i, p := range pods {
		if node, ok := s.placed[p]; ok {
			res.Placements = append(res.Placements, Placement{Pod: keys[i], Node: node})
			keysOn[node] = append(keysOn[node], keys[i])
		}
	}
	res.Claims = s.claimsOut(keysOn)
}

// strategies are the exponents of a pod's worth in the fill score (see
// worth): none packs purely by fit; higher exponents keep pods that have
// cheaper homes off expensive nodes. No single one wins on every
// workload, so Solve tries more than one.
func strategies() []float64 { return []float64{0, 0.5, 1, 0.25} }

// strategiesFor picks the strategies to run side by side, two (one per
// core). With a smaller clique the second strategy packs from a plan
// first (plan.go; w3 1.052 -> 1.042 of the bound, w3-spot 1.090 -> 1.056,
// in 0.10 s instead of 0.03) and sizes the members' nodes by their
// members too, which wins when a few nodes each hold one. With no
// clique and spot allowed, the second exponent is milder still (0.25):
// spot's uneven discounts make a pod's dual value a poorer guide (w1-spot
// 1.064 -> 1.038 over 0.5, w2-spot unchanged: 0 wins there).
//
// A batch of at least exactValuesMinPods pods with no large clique values
// its pods two ways, a portfolio: the first strategy by the assignment
// LP's duals (exactValues in fill.go), the second by the quick ascent's.
// The duals guide the choice of instance types better on most large
// batches, but not everywhere: each strategy alone, duals against ascent
// (cost over the exotic-aware bound): exponent 0 on w2-spot 1.023
// against 1.070, w4-spot 1.028 against 1.057; the milder exponent on w4
// 1.037 against 1.028, w2 1.024 against 1.026. With the duals in both (as
// before issue 22's portfolio) w4 cost 1.037; now 1.028, w2 1.026, and
// the batch takes less CPU (one valuation by column generation, not two).
// Smaller batches keep the ascent in both: the duals' column generation
// doubles a 1,000-pod batch's CPU (w1 0.048 -> 0.093 s per solve), for
// w1 1.037 -> 1.027 and w1-spot 1.042 -> 1.033.
//
// Without a clique of minEagerClique, a batch of planMinPods pods or
// more packs its second strategy from a plan too (the last of
// planEfforts, which stops column generation when it tails off): the
// greedy fill commits node by node and wastes 2-4 % where whole-node
// patterns exist (cost over the bound, greedy against plan: w1 1.037 ->
// 1.010, w1-spot 1.042 -> 1.015, w2 1.026 -> 1.009, w4 1.028 -> 1.015).
// Smaller batches keep the greedy fill: on the 1,000 random batches of
// TestMonotoneCost (8-24 pods) a plan saves 0.4 % of the cost in all,
// at 2.4 times the CPU, and more pools cost more than a sub-pool of
// theirs (26 -> 30).
//
// With a large clique both strategies pack from a configuration-LP plan
// first (plan.go), one with each of planEfforts; the greedy fill with the
// milder exponent takes what the plan leaves. The greedy fill alone, with
// any exponent or values, cost 7-11% more on diverse-1k, 5k and 20k
// (best of three strategies: 15.60, 77.31, 305.97 $/h; plans: 14.59,
// 70.57, 276.19).
func strategiesFor(pods []*state.Pod, spot bool) []strategy {
	all := strategies()
	size := largestClique(pods)
	var picked []strategy
	switch {
	case size >= minSharedClique:
		return []strategy{{worth: all[1], plan: 1}, {worth: all[1], plan: 2}}
	case size >= minEagerClique:
		picked = []strategy{{worth: all[0]}, {worth: all[2], eagerCliques: true, plan: 1}}
	case spot:
		picked = []strategy{{worth: all[0]}, {worth: all[3]}}
	default:
		picked = []strategy{{worth: all[0]}, {worth: all[1]}}
	}
	if size < minEagerClique && len(pods) >= planMinPods {
		picked[1].plan = len(planEfforts)
	}
	if len(pods) >= exactValuesMinPods {
		picked[0].valueRounds = exactValueRounds
	}
	return picked
}

// exactValuesMinPods is the smallest batch whose first strategy values
// its pods by exactValues (see strategiesFor), and exactValueRounds the
// rounds of column generation each valuation may run there: enough to
// solve the LP at every valuation. One
// round, going on from the last valuation, costs no more CPU than the
// ascent and fills w2 a little cheaper (233.48 against 234.29 $/h), but
// leaves a freshly packed 10,000-pod cluster with two nodes consolidation
// replaces (TestPackedClusterNoChurn).
const (
	exactValuesMinPods = 2000
	exactValueRounds   = 30
)

// planMinPods is the smallest batch without a clique whose second
// strategy packs from a plan (see strategiesFor).
const planMinPods = 100

// strategy is one way to fill claims.
type strategy struct {
	worth        float64
	eagerCliques bool
	valueRounds  int
	plan         int
}

// largestClique is the most pods that carry the same required hostname
// anti-affinity term and match it themselves.
func largestClique(pods []*state.Pod) int {
	members := map[string]int{}
	largest := 0
	sigs := map[*corev1.PodAntiAffinity][]string{}
	for _, p := range pods {
		if p.Affinity == nil || p.Affinity.PodAntiAffinity == nil {
			continue
		}
		a := p.Affinity.PodAntiAffinity
		list, ok := sigs[a]
		if !ok {
			for _, t := range a.RequiredDuringSchedulingIgnoredDuringExecution {
				if scheduling.NormalizeLabelKey(t.TopologyKey) != scheduling.LabelHostname {
					continue
				}
				if sel, err := scheduling.AffinityTermSelector(t, p.Namespace, p.Labels); err == nil && sel.Matches(p.Namespace, p.Labels) {
					list = append(list, sel.String())
				}
			}
			sigs[a] = list
		}
		for _, sig := range list {
			members[sig]++
			largest = max(largest, members[sig])
		}
	}
	return largest
}

// compileShared compiles zones, daemonsets and pools, sorted by weight.
func (s *solver) compileShared() {
	s.compileZones()
	s.daemons = compileDaemons(s.snap.DaemonSets, s.dims)
	s.compilePools()
	slices.SortStableFunc(s.pools, func(a, b *poolPlan) int {
		return cmp.Or(cmp.Compare(b.pool.Weight, a.pool.Weight), cmp.Compare(a.pool.Name, b.pool.Name))
	})
}

// compileCached is compileShared with the pools' LP columns started
// (see startColumns), or both taken from the options' cache when it holds
// them for the same pools, daemonsets, resources and zones.
func (s *solver) compileCached(columns *sync.WaitGroup) {
	c := s.opts.cache
	if c == nil {
		s.compileShared()
		startColumns(s.pools, len(s.dims.names), columns)
		return
	}
	s.compileZones()
	if e := c.sharedFor(s); e != nil {
		s.zoneIdx, s.daemons, s.pools = e.zoneIdx, e.daemons, e.plans
		return
	}
	s.zones, s.zoneIdx = nil, map[string]int{}
	s.compileShared()
	startColumns(s.pools, len(s.dims.names), columns)
	c.keepShared(s)
}

// share takes the compiled zones, daemonsets and pools of another solver
// whose dimensions are the same, with fresh per-solve pool state.
func (s *solver) share(from *solver) {
	s.zones, s.zoneIdx, s.daemons, s.bases = from.zones, from.zoneIdx, from.daemons, from.bases
	s.planStarts = from.planStarts
	s.pools = make([]*poolPlan, len(from.pools))
	for i, p := range from.pools {
		c := *p
		c.masks = map[string]bitset{}
		c.usage, c.next = resources.Vector{}, 0
		s.pools[i] = &c
	}
}

// solveOnce is one packing of the batch with one strategy. The result has
// no claims or placements yet (see describe): only what Solve compares.
func solveOnce(ctx context.Context, snap *state.Snapshot, pods []*state.Pod, keys []string, part partition, o options, shared *solver) (*solver, *Result, error) {
	s := newSolver(ctx, snap, o)
	s.placed = make(map[*state.Pod]string, len(pods))
	s.podClass = make(map[*state.Pod]*class, len(pods))
	pending := pendingKeys(snap, keys)
	if err := s.classifyAs(pods, part); err != nil {
		return nil, nil, fmt.Errorf("solving: %w", err)
	}
	s.internExistingTerms(pending)
	s.share(shared)
	s.banFill()
	s.matchClasses()
	s.compileNodes(pending)
	left, pinFailed, err := s.rounds()
	if err != nil {
		return nil, nil, err
	}
	repaired := map[*state.Pod]string{}
	for range 4 {
		before := len(repaired)
		s.repairAffinity(repaired)
		s.repairSpreads(repaired)
		if len(repaired) == before {
			break
		}
	}
	s.liftFillBans()
	if !s.opts.noImprove && s.improve() {
		s.renumber()
	}
	cost, dropped, dropReasons := s.finalize()
	for p, reason := range repaired {
		dropped = append(dropped, p)
		dropReasons[p] = reason
	}
	res := &Result{CostPerHour: cost}
	for c, ps := range left {
		reason := s.reasonFor(c)
		for _, p := range ps {
			if r, ok := pinFailed[p]; ok {
				res.Unschedulable = append(res.Unschedulable, Unschedulable{Pod: p.Key(), Reason: r})
				continue
			}
			res.Unschedulable = append(res.Unschedulable, Unschedulable{Pod: p.Key(), Reason: reason})
		}
	}
	for _, p := range dropped {
		res.Unschedulable = append(res.Unschedulable, Unschedulable{Pod: p.Key(), Reason: dropReasons[p]})
	}
	slices.SortFunc(res.Unschedulable, func(a, b Unschedulable) int { return cmp.Compare(a.Pod, b.Pod) })
	s.setExoticMay()
	return s, res, nil
}

// pendingKeys is the set of keys when some pod of snap is bound to a node,
// else nil: internExistingTerms and compileNodes look a pod up only once
// they know it is bound, so a batch with no bound pod needs no set.
func pendingKeys(snap *state.Snapshot, keys []string) map[string]bool {
	if !slices.ContainsFunc(snap.Pods, func(p *state.Pod) bool { return p.NodeName != "" }) {
		return nil
	}
	pending := make(map[string]bool, len(keys))
	for _, key := range keys {
		pending[key] = true
	}
	return pending
}

// sortedUnique returns the pods that are not nil sorted by key, the first
// of each key only, and their keys (built once: comparing by Key() built
// two strings per comparison).
func sortedUnique(pods []*state.Pod) ([]*state.Pod, []string) {
	type keyed struct {
		key string
		pod *state.Pod
	}
	ks := make([]keyed, 0, len(pods))
	for _, p := range pods {
		if p != nil {
			ks = append(ks, keyed{p.Key(), p})
		}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	ks = slices.CompactFunc(ks, func(a, b keyed) bool { return a.key == b.key })
	out := make([]*state.Pod, len(ks))
	keys := make([]string, len(ks))
	for i, k := range ks {
		out[i], keys[i] = k.pod, k.key
	}
	return out, keys
}

// rounds places the classes: once as they are, once more for pods whose
// affinity targets the first round placed, then relaxing preferences one
// at a time.
// It returns the pods left per (final) class and the pods whose pins failed.
func (s *solver) rounds() (map[*class][]*state.Pod, map[*state.Pod]string, error) {
	classes := s.classes
	var failed map[*state.Pod]string
	// Round 0 places everything; round 1 retries for pods whose affinity
	// targets round 0 placed; later rounds relax one preference at a time
	// for the pods still left, until none has a preference left.
	// Every relaxation drops a preference, so the rounds end: two, then
	// one per preference of the class that has most.
	for round := 0; ; round++ {
		left, f, err := s.round(classes)
		if err != nil {
			return nil, nil, err
		}
		failed = f
		classes = classes[:0:0]
		relaxed := false
		for _, c := range sortedClasses(left) {
			if len(left[c]) == 0 {
				continue
			}
			next := *c
			if round >= 1 && c.hasSoft() {
				next = *c.relax(len(s.classes))
				s.classes = append(s.classes, &next)
				relaxed = true
			}
			next.pods = left[c]
			classes = append(classes, &next)
		}
		if len(classes) == 0 {
			return nil, nil, nil
		}
		if round >= 1 && !relaxed {
			break
		}
	}
	left := map[*class][]*state.Pod{}
	for _, c := range classes {
		left[c] = c.pods
	}
	return left, failed, nil
}

func sortedClasses(m map[*class][]*state.Pod) []*class {
	out := make([]*class, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *class) int { return cmp.Compare(a.id, b.id) })
	return out
}

// round places classes' pods: pins, existing nodes and open claims, then
// new claims pool by pool.
func (s *solver) round(classes []*class) (map[*class][]*state.Pod, map[*state.Pod]string, error) {
	s.hostSpread = map[int]int32{}
	for _, sp := range s.spreadsInForce(classes) {
		if isHostname(s.groups.list[sp.group].key) {
			if cur, ok := s.hostSpread[sp.group]; !ok || sp.maxSkew < cur {
				s.hostSpread[sp.group] = sp.maxSkew
			}
		}
	}
	lp := s.newLabelPinner()
	classes = lp.pin(classes)
	pins := s.newPinner(classes)
	buckets := pins.pin(classes)
	maps.Copy(pins.failed, lp.failed)
	for _, b := range buckets {
		b.size, b.hardness = s.size(b.class.req), s.hardness(b.class)
	}
	slices.SortStableFunc(buckets, func(a, b *bucket) int {
		if c := cmp.Compare(b.hardness, a.hardness); c != 0 {
			return c
		}
		if c := cmp.Compare(b.size, a.size); c != 0 {
			return c
		}
		return cmp.Compare(a.class.id, b.class.id)
	})
	for i, b := range buckets {
		if i%64 == 0 {
			if err := s.ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("placing pods on existing nodes: %w", err)
			}
		}
		s.firstFit(b, s.byScore(b.class))
		s.firstFit(b, s.claims)
	}
	for _, p := range s.pools {
		if err := s.fillPool(p, buckets); err != nil {
			return nil, nil, err
		}
	}
	left := map[*class][]*state.Pod{}
	for _, b := range buckets {
		if b.left() > 0 {
			left[b.class] = append(left[b.class], b.pods[b.next:]...)
		}
	}
	for _, c := range classes {
		for _, p := range c.pods {
			if _, ok := pins.failed[p]; ok {
				left[c] = append(left[c], p)
			}
		}
	}
	for c, ps := range lp.failedBy {
		left[c] = append(left[c], ps...)
	}
	for c := range left {
		slices.SortFunc(left[c], func(a, b *state.Pod) int { return cmp.Compare(a.Key(), b.Key()) })
	}
	return left, pins.failed, nil
}

// byScore are the existing nodes in the order a class's pods take them:
// initialized nodes first and, with several preferred node affinity terms,
// within each part the nodes matching the greater sum of their weights
// first, as kube-scheduler's NodeAffinity score ranks them (the heaviest
// term alone is enforced while it holds).
func (s *solver) byScore(c *class) []*node {
	if len(c.scored) < 2 {
		return s.nodes
	}
	score := make(map[*node]int32, len(s.nodes))
	for _, n := range s.nodes {
		for _, t := range c.scored {
			if t.Requirements.SatisfiedBy(n.labels) {
				score[n] += t.Weight
			}
		}
	}
	out := slices.Clone(s.nodes)
	byScore := func(a, b *node) int { return cmp.Compare(score[b], score[a]) }
	slices.SortStableFunc(out[:s.initialized], byScore)
	slices.SortStableFunc(out[s.initialized:], byScore)
	return out
}

// spreadsInForce are the spreads every matching pod must respect in a
// round: the hard ones of every pending class, placed or not, and the
// preferences of the classes in the round.
func (s *solver) spreadsInForce(classes []*class) []spread {
	var out []spread
	for _, c := range s.classes {
		for _, sp := range c.spreads {
			if !sp.soft {
				out = append(out, sp)
			}
		}
	}
	for _, c := range classes {
		out = append(out, c.activeSpreads()...)
	}
	return out
}

// size orders pods: the larger of cpu and memory, with 4 GiB per core.
func (s *solver) size(v resources.Vector) int64 {
	return max(v[resources.CPU]*(4<<20), v[resources.Memory])
}

// hardness ranks classes so the most constrained are placed first: pods
// needing a node each, then hostname spread, then zonal constraints.
func (s *solver) hardness(c *class) int {
	h := 0
	for _, t := range c.activeTerms(c.anti) {
		if isHostname(s.groups.list[t.group].key) {
			h = max(h, 3)
		} else {
			h = max(h, 2)
		}
	}
	for _, sp := range c.activeSpreads() {
		if isHostname(s.groups.list[sp.group].key) {
			h = max(h, 2)
		} else {
			h = max(h, 1)
		}
	}
	if len(c.ports) > 0 {
		h = max(h, 3)
	}
	return h
}
