package packing_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// monotoneScenarios is how many random pool/sub-pool pairs
// TestMonotoneCost solves.
const monotoneScenarios = 1000

// monotoneScenario is one pool of random types, pending pods with random
// requests and constraints, maybe a daemonset; sub is a random non-empty
// subset of the pool's types, in the same order.
func monotoneScenario(rng *rand.Rand) (pool, sub []*catalog.InstanceType, build func([]*catalog.InstanceType) *state.Snapshot, pending []*state.Pod) {
	pool = randomTypes(rng, 8+rng.IntN(40))
	for len(sub) == 0 {
		sub = sub[:0]
		for _, it := range pool {
			if rng.IntN(3) != 0 {
				sub = append(sub, it)
			}
		}
	}
	zones := statetest.Zones[:1+rng.IntN(3)]
	spot := rng.IntN(3) == 0
	var daemons []*state.DaemonSet
	if rng.IntN(3) == 0 {
		daemons = append(daemons, statetest.DaemonSet("agent", pick(rng, []string{"50m", "200m"}), pick(rng, []string{"64Mi", "512Mi"})))
	}
	build = func(types []*catalog.InstanceType) *state.Snapshot {
		opts := []statetest.PoolOption{statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, zones...))}
		if spot {
			opts = append(opts, statetest.WithSpot())
		}
		p := statetest.Pool("default", opts...)
		p.InstanceTypes = types
		return statetest.Snapshot([]*state.Pool{p}, nil, nil, daemons...)
	}
	for i := range 1 + rng.IntN(24) {
		app := pick(rng, []string{"a", "b", "c"})
		sel := map[string]string{"app": app}
		opts := []statetest.PodOption{statetest.WithLabel("app", app)}
		switch rng.IntN(8) {
		case 0:
			opts = append(opts, statetest.WithAntiAffinity(scheduling.LabelHostname, sel))
		case 1:
			opts = append(opts, statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, sel))
		case 2:
			opts = append(opts, statetest.WithSpread(scheduling.LabelHostname, 1, corev1.DoNotSchedule, sel))
		}
		pending = append(pending, statetest.Pod(fmt.Sprintf("p%d", i),
			pick(rng, []string{"100m", "250m", "500m", "1", "2", "4"}),
			pick(rng, []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi", "16Gi"}), opts...))
	}
	return pool, sub, build, pending
}

// maxNonMonotone is how many of the monotoneScenarios pairs may still
// cost more on the pool than on its sub-pool. Issue 22 asks for none; the
// greedy fill and its local moves are path-dependent (a wider pool values
// pods by another LP, so opens other nodes first). Pods with hostname
// rules move between claims of a zone only in relocate and pairs (31 ->
// 29 with moves across zones, 26 with relocate, 17 with narrow's search
// of sub-pools for small batches, 11 with narrow also trying the answer's
// own types less one, 10 with pods valued on the types that hold one of
// them, 4 with the improve pass splitting the pods of every two claims
// afresh, pairs.go, 3 with narrow's answer from a sub-pool retyped on the
// whole pool, refit in narrow.go). In the 3 left (0.3-2.3 % dearer) the
// fill's path on the wider pool opens claims that no split of two claims'
// pods (of at most pairMaxPods, in one zone) undoes. Lower it with every
// fix; the test fails when more pairs break, and says so when fewer do.
const maxNonMonotone = 3

// TestMonotoneCost checks that a pool that allows more instance types
// never costs more than a random sub-pool of it (any answer on the
// sub-pool is an answer on the pool), on monotoneScenarios random pairs,
// up to maxNonMonotone known misses, and that every answer keeps every
// rule (check.Result).
func TestMonotoneCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 5))
	var bad []string
	for i := range monotoneScenarios {
		pool, sub, build, pending := monotoneScenario(rng)
		wide, err := packing.Solve(t.Context(), build(pool), pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		narrow, err := packing.Solve(t.Context(), build(sub), pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		// A cheaper answer must not be one that breaks a rule: the
		// improve pass moves pods with hostname rules (relocate, pairs).
		for _, v := range check.Result(build(pool), pending, wide) {
			t.Errorf("scenario %d, pool: %v", i, v)
		}
		for _, v := range check.Result(build(sub), pending, narrow) {
			t.Errorf("scenario %d, sub-pool: %v", i, v)
		}
		if len(wide.Unschedulable) > len(narrow.Unschedulable) ||
			len(wide.Unschedulable) == len(narrow.Unschedulable) && wide.CostPerHour > narrow.CostPerHour*(1+1e-9)+1e-9 {
			bad = append(bad, fmt.Sprintf("scenario %d (%d pods, %d types, sub-pool %d): pool %.5f $/h (%d unplaced), sub-pool %.5f $/h (%d unplaced)",
				i, len(pending), len(pool), len(sub), wide.CostPerHour, len(wide.Unschedulable), narrow.CostPerHour, len(narrow.Unschedulable)))
		}
	}
	switch {
	case len(bad) > maxNonMonotone:
		t.Errorf("%d of %d pools cost more than a sub-pool, at most %d may:\n%s", len(bad), monotoneScenarios, maxNonMonotone, strings.Join(bad, "\n"))
	case len(bad) < maxNonMonotone:
		t.Errorf("only %d of %d pools cost more than a sub-pool: lower maxNonMonotone to %d", len(bad), monotoneScenarios, len(bad))
	}
}

// knownNonMonotone names the wider scenario of each shared pair whose
// pool costs more than the narrower one's today (w5: 178.9174 against
// 178.7960 $/h, 0.07 %; 179.2277, 0.24 %, before the second fill on the
// answer's families, families.go). The narrower answer is its greedy
// strategy's, within 0.03 % of the plan's configuration LP (178.75 on
// both pools after 60 rounds of column generation). The whole catalog's
// first answer buys r5a, r6a and one x8i (a family c/m/r lacks), so its
// second fill runs on other types than c/m/r's and finds 178.9174 there. TestMonotoneSharedPairs fails when another
// pair breaks, and when a listed one holds again.
var knownNonMonotone = map[string]bool{"w5": true}

// TestMonotoneSharedPairs solves each shared scenario beside its pool
// variants: X costs no more than X-cmr (a sub-pool: categories c, m, r,
// generation above 2), and X-spot (spot allowed too) no more than X.
func TestMonotoneSharedPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("solves the shared scenarios that have pool variants")
	}
	if _, err := os.Stat(workloadsDir); err != nil {
		t.Skipf("no %s: %v", workloadsDir, err)
	}
	cost := map[string]float64{}
	solve := func(name string) (float64, bool) {
		if c, ok := cost[name]; ok {
			return c, true
		}
		f := filepath.Join(workloadsDir, name+".yaml")
		if _, err := os.Stat(f); err != nil {
			return 0, false
		}
		sc, err := simulate.Load(f)
		if err != nil {
			t.Fatalf("loading %s: %v", f, err)
		}
		snap, err := sc.Snapshot()
		if err != nil {
			t.Fatalf("converting %s: %v", f, err)
		}
		r, err := packing.Solve(t.Context(), snap, snap.PendingPods())
		if err != nil || len(r.Unschedulable) > 0 {
			t.Fatalf("%s: %v, %d unschedulable", name, err, len(r.Unschedulable))
		}
		cost[name] = r.CostPerHour
		return r.CostPerHour, true
	}
	files, _ := filepath.Glob(filepath.Join(workloadsDir, "*.yaml"))
	pairs := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		var wide, narrow string
		if base, ok := strings.CutSuffix(name, "-cmr"); ok {
			wide, narrow = base, name
		} else if base, ok := strings.CutSuffix(name, "-spot"); ok {
			wide, narrow = name, base
		} else {
			continue
		}
		w, okW := solve(wide)
		n, okN := solve(narrow)
		if !okW || !okN {
			continue
		}
		pairs++
		switch holds := w <= n*(1+1e-9); {
		case !holds && !knownNonMonotone[wide]:
			t.Errorf("%s costs %.4f $/h, more than %s's narrower pool at %.4f", wide, w, narrow, n)
		case holds && knownNonMonotone[wide]:
			t.Errorf("%s (%.4f $/h) no longer costs more than %s (%.4f): drop it from knownNonMonotone", wide, w, narrow, n)
		default:
			t.Logf("%s %.4f $/h, %s %.4f", wide, w, narrow, n)
		}
	}
	if pairs == 0 {
		t.Skip("no pool variants beside their scenarios in " + workloadsDir)
	}
}

// TestTypesThatHoldNoPodChangeNothing adds to random pools a type that
// holds none of the batch's pods (t2.nano: 74Mi allocatable, every pod
// asks for 128Mi or more) and checks the answer costs the same: no answer
// can use it, so it must not lead the fill elsewhere. Before the pods were
// valued on the types that hold one of them (holdingSome), its cheap CPU
// lowered every pod's value and changed which claims the fill opened.
func TestTypesThatHoldNoPodChangeNothing(t *testing.T) {
	nano := slices.IndexFunc(pricedAMD64(), func(it *catalog.InstanceType) bool { return it.Name == "t2.nano" })
	if nano < 0 {
		t.Fatal("the catalog has no priced t2.nano")
	}
	useless := pricedAMD64()[nano]
	rng := rand.New(rand.NewPCG(22, 6))
	changed := 0
	const scenarios = 300
	for i := range scenarios {
		pool, _, build, pending := monotoneScenario(rng)
		if slices.Contains(pool, useless) {
			continue
		}
		with := append(slices.Clone(pool), useless)
		a, err := packing.Solve(t.Context(), build(pool), pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		b, err := packing.Solve(t.Context(), build(with), pending)
		if err != nil {
			t.Fatalf("scenario %d with %s: %v", i, useless.Name, err)
		}
		if a.CostPerHour != b.CostPerHour || len(a.Unschedulable) != len(b.Unschedulable) {
			changed++
			t.Errorf("scenario %d: %.5f $/h (%d unplaced), with %s %.5f (%d unplaced)",
				i, a.CostPerHour, len(a.Unschedulable), useless.Name, b.CostPerHour, len(b.Unschedulable))
		}
	}
	if changed > 0 {
		t.Errorf("a type that holds no pod changed the answer in %d of %d scenarios", changed, scenarios)
	}
}

// largeScenario is a batch of 500-2,500 pods of one of the shared
// workloads' kinds (w1's mix of requests, w4's with DaemonSets, w5's
// memory-heavy apps), on the whole catalog's amd64 types, on-demand or
// spot too, in 1-3 zones; narrow limits the pool as Karpenter's
// getting-started NodePool does (categories c, m and r, generation above
// 2).
func largeScenario(rng *rand.Rand) (kind string, wide, narrow *state.Snapshot, pending []*state.Pod) {
	zones := statetest.Zones[:1+rng.IntN(3)]
	opts := []statetest.PoolOption{statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, zones...))}
	if rng.IntN(3) == 0 {
		opts = append(opts, statetest.WithSpot())
	}
	kind = pick(rng, []string{"w1", "w4", "w5"})
	var daemons []*state.DaemonSet
	if kind == "w4" {
		for i := range 3 + rng.IntN(4) {
			daemons = append(daemons, statetest.DaemonSet(fmt.Sprintf("ds%d", i), pick(rng, []string{"10m", "25m", "100m", "150m"}), pick(rng, []string{"32Mi", "128Mi", "256Mi"})))
		}
	}
	n := 500 + rng.IntN(2001)
	for i := 0; len(pending) < n; i++ {
		cpu := pick(rng, []string{"100m", "250m", "500m", "1", "2", "4"})
		mem := pick(rng, []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"})
		replicas := 1
		if kind == "w5" {
			milli := pick(rng, []int{500, 1000, 2000, 4000})
			cpu = fmt.Sprintf("%dm", milli)
			mem = fmt.Sprintf("%dMi", milli*(6+rng.IntN(7))*1024/1000)
			replicas = 5 + rng.IntN(56)
		}
		app := fmt.Sprintf("app-%d", i)
		for r := range min(replicas, n-len(pending)) {
			pending = append(pending, statetest.Pod(fmt.Sprintf("%s-%d", app, r), cpu, mem, statetest.WithLabel("app", app)))
		}
	}
	wide = statetest.Snapshot([]*state.Pool{statetest.Pool("default", opts...)}, nil, nil, daemons...)
	cmr := append(slices.Clip(opts),
		statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceCategory, "c", "m", "r")),
		statetest.WithRequirement(scheduling.Gt(scheduling.LabelInstanceGeneration, 2)))
	narrow = statetest.Snapshot([]*state.Pool{statetest.Pool("default", cmr...)}, nil, nil, daemons...)
	return kind, wide, narrow, pending
}

// maxLargeNonMonotone is how many of TestMonotoneLargeBatches' batches
// may still cost more on the whole catalog than on c/m/r: 2 before the
// second fill on the answer's families (0.73 % and 0.95 % dearer), 1 with
// it (scenario 2, spot, 0.27 %: the whole catalog's answer buys a family
// outside c/m/r, so the two pools fill a second time on different types).
// Lower it with every fix; the full run fails when more batches break,
// and says so when fewer do.
const maxLargeNonMonotone = 1

// TestMonotoneLargeBatches checks that the whole catalog costs no more
// than its c/m/r sub-pool on random batches of the shared workloads'
// kinds too large for narrow (largeScenario), up to maxLargeNonMonotone
// known misses, and that every answer keeps every rule. Under -short or
// -race it solves the first few batches only.
func TestMonotoneLargeBatches(t *testing.T) {
	scenarios, all := 16, true
	if testing.Short() || packing.RaceEnabled {
		scenarios, all = 2, false
	}
	rng := rand.New(rand.NewPCG(22, 30))
	var bad []string
	for i := range scenarios {
		kind, wide, narrow, pending := largeScenario(rng)
		w, err := packing.Solve(t.Context(), wide, pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		n, err := packing.Solve(t.Context(), narrow, pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		for _, v := range check.Result(wide, pending, w) {
			t.Errorf("scenario %d, whole catalog: %v", i, v)
		}
		for _, v := range check.Result(narrow, pending, n) {
			t.Errorf("scenario %d, c/m/r: %v", i, v)
		}
		if len(w.Unschedulable) > len(n.Unschedulable) ||
			len(w.Unschedulable) == len(n.Unschedulable) && w.CostPerHour > n.CostPerHour*(1+1e-9)+1e-9 {
			bad = append(bad, fmt.Sprintf("scenario %d (%s, %d pods): the whole catalog costs %.4f $/h (%d unplaced), c/m/r %.4f $/h (%d unplaced)",
				i, kind, len(pending), w.CostPerHour, len(w.Unschedulable), n.CostPerHour, len(n.Unschedulable)))
		}
	}
	switch {
	case len(bad) > maxLargeNonMonotone:
		t.Errorf("%d of %d batches cost more on the whole catalog, at most %d may:\n%s", len(bad), scenarios, maxLargeNonMonotone, strings.Join(bad, "\n"))
	case all && len(bad) < maxLargeNonMonotone:
		t.Errorf("only %d of %d batches cost more on the whole catalog: lower maxLargeNonMonotone to %d", len(bad), scenarios, len(bad))
	}
}
