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
// pool costs more than the narrower one's today (w5: 179.2277 against
// 178.7960 $/h, 0.24 %). The narrower answer is its greedy strategy's,
// 178.7960, within 0.03 % of the plan's configuration LP (178.75 on both
// pools after 60 rounds of column generation); the plan strategy costs
// 179.0304 there and 179.2277 on the whole catalog. The greedy's path
// there is a lucky one: on c/m/r plus the burstable t types it costs
// 179.67, plus the x types 179.79, on the r5a and r6a families alone
// 179.56, and 179.53 on the whole catalog (179.75 before the improve
// pass, 12 of its claims t3a.medium). TestMonotoneSharedPairs fails when another pair breaks,
// and when a listed one holds again.
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
