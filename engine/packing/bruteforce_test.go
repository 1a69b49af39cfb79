package packing_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// bruteForceCost is the optimum for unconstrained pods on a pool's types:
// every partition of the pods into nodes, each node the cheapest type that
// holds its group.
func bruteForceCost(types []*catalog.InstanceType, ps []*state.Pod) float64 {
	return bruteForceCostApart(types, ps, nil)
}

// bruteForceCostApart is bruteForceCost where pods for which apart holds
// (members of one hostname anti-affinity clique) never share a node. A pod
// gets an exotic type (GPU, accelerator, metal) only when no ordinary type
// of the pool holds it, as Solve's rule says (exotic.go).
func bruteForceCostApart(types []*catalog.InstanceType, ps []*state.Pod, apart func(a, b *state.Pod) bool) float64 {
	mayHold := exoticRule(types, ps)
	groupCost := func(group []*state.Pod) float64 {
		best := math.Inf(1)
		for _, it := range types {
			if !mayHold(it, group) {
				continue
			}
			// The test pool allows on-demand only.
			for _, o := range it.Offerings {
				if o.CapacityType == scheduling.CapacityTypeOnDemand {
					best = min(best, o.PricePerHour)
				}
			}
		}
		return best
	}
	best := math.Inf(1)
	var rec func(i int, groups [][]*state.Pod)
	rec = func(i int, groups [][]*state.Pod) {
		if i == len(ps) {
			var sum float64
			for _, g := range groups {
				sum += groupCost(g)
			}
			best = min(best, sum)
			return
		}
	next:
		for k := range groups {
			if apart != nil {
				for _, q := range groups[k] {
					if apart(q, ps[i]) {
						continue next
					}
				}
			}
			groups[k] = append(groups[k], ps[i])
			rec(i+1, groups)
			groups[k] = groups[k][:len(groups[k])-1]
		}
		rec(i+1, append(groups, []*state.Pod{ps[i]}))
	}
	rec(0, nil)
	return best
}

// exoticRule returns whether a node of type it may hold group: it holds
// the pods, and is not exotic (GPU, accelerator, metal) unless no ordinary
// type of types holds any pod of the group alone (exotic.go).
func exoticRule(types []*catalog.InstanceType, ps []*state.Pod) func(it *catalog.InstanceType, group []*state.Pod) bool {
	ordinaryFits := map[*state.Pod]bool{}
	for _, p := range ps {
		for _, it := range types {
			if it.Exotic() == "" && holds(it.Allocatable, []*state.Pod{p}) {
				ordinaryFits[p] = true
			}
		}
	}
	return func(it *catalog.InstanceType, group []*state.Pod) bool {
		if !holds(it.Allocatable, group) {
			return false
		}
		return it.Exotic() == "" || !slices.ContainsFunc(group, func(p *state.Pod) bool { return ordinaryFits[p] })
	}
}

func holds(alloc corev1.ResourceList, group []*state.Pod) bool {
	var cpu, mem int64
	for _, p := range group {
		cpu += p.Requests.Cpu().MilliValue()
		mem += p.Requests.Memory().Value()
	}
	return cpu <= alloc.Cpu().MilliValue() && mem <= alloc.Memory().Value() && int64(len(group)) <= alloc.Pods().Value()
}

// TestLowerBoundBruteForce checks the bound never exceeds the true optimum
// on tiny instances, and Solve's cost is never below it.
func TestLowerBoundBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	optimal, cases := 0, 0
	var worst float64
	for i := range 200 {
		p := statetest.Pool("default")
		p.InstanceTypes = randomTypes(rng, 8)
		var ps []*state.Pod
		for j := range 1 + rng.IntN(5) {
			ps = append(ps, statetest.Pod(fmt.Sprintf("p%d", j), pick(rng, []string{"100m", "500m", "1", "2", "4"}), pick(rng, []string{"128Mi", "1Gi", "4Gi", "8Gi"})))
		}
		snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
		r := mustSolve(t, snap, ps)
		if len(r.Unschedulable) > 0 {
			continue
		}
		opt := bruteForceCost(p.InstanceTypes, ps)
		if r.LowerBoundPerHour > opt*(1+1e-9) {
			t.Errorf("case %d: lower bound %.5f above the optimum %.5f", i, r.LowerBoundPerHour, opt)
		}
		if r.CostPerHour < opt*(1-1e-9) {
			t.Errorf("case %d: cost %.5f below the optimum %.5f: the brute force is wrong", i, r.CostPerHour, opt)
		}
		cases++
		if r.CostPerHour <= opt*(1+1e-9) {
			optimal++
		}
		worst = max(worst, r.CostPerHour/opt)
	}
	t.Logf("Solve optimal in %d of %d tiny cases; worst cost/optimum %.3f", optimal, cases, worst)
}

// TestLowerBoundBruteForceClique checks the bound against the optimum on
// tiny batches with a hostname anti-affinity clique, where the bound's
// slot resource and the assignment bound's LP start (lpStart) both apply.
func TestLowerBoundBruteForceClique(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	cases := 0
	var worst float64
	for i := range 150 {
		p := statetest.Pool("default")
		p.InstanceTypes = randomTypes(rng, 8)
		var ps []*state.Pod
		for j := range 1 + rng.IntN(3) {
			ps = append(ps, statetest.Pod(fmt.Sprintf("m%d", j), pick(rng, []string{"100m", "500m", "1", "2"}), pick(rng, []string{"128Mi", "1Gi", "4Gi"}),
				statetest.WithLabel("role", "solo"), statetest.WithAntiAffinity(scheduling.LabelHostname, map[string]string{"role": "solo"})))
		}
		for j := range rng.IntN(4) {
			ps = append(ps, statetest.Pod(fmt.Sprintf("p%d", j), pick(rng, []string{"100m", "500m", "1", "2", "4"}), pick(rng, []string{"128Mi", "1Gi", "4Gi", "8Gi"})))
		}
		r, opt, ok := solveAgainstOptimum(t, i, p, ps, func(a, b *state.Pod) bool {
			return a.Labels["role"] == "solo" && b.Labels["role"] == "solo"
		})
		if !ok {
			continue
		}
		if r.CostPerHour < opt*(1-1e-9) {
			t.Errorf("case %d: cost %.5f below the optimum %.5f: the brute force is wrong", i, r.CostPerHour, opt)
		}
		cases++
		worst = max(worst, r.CostPerHour/opt)
	}
	if cases < 100 {
		t.Fatalf("only %d of 150 cases placed every pod; the test proves little", cases)
	}
	t.Logf("%d cases; worst cost/optimum %.3f", cases, worst)
}

// TestLowerBoundBruteForceTwoCliques is TestLowerBoundBruteForceClique
// with two cliques, each its own slot resource in the bound: members of
// one clique never share a node, members of different cliques may (and,
// being small, usually should).
func TestLowerBoundBruteForceTwoCliques(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	cases, tight := 0, 0
	for i := range 150 {
		p := statetest.Pool("default")
		p.InstanceTypes = randomTypes(rng, 8)
		var ps []*state.Pod
		for _, role := range []string{"a", "b"} {
			for j := range 1 + rng.IntN(3) {
				ps = append(ps, statetest.Pod(fmt.Sprintf("%s%d", role, j), pick(rng, []string{"100m", "250m", "500m", "1"}), pick(rng, []string{"128Mi", "512Mi", "1Gi"}),
					statetest.WithLabel("role", role), statetest.WithAntiAffinity(scheduling.LabelHostname, map[string]string{"role": role})))
			}
		}
		for j := range rng.IntN(3) {
			ps = append(ps, statetest.Pod(fmt.Sprintf("p%d", j), pick(rng, []string{"100m", "500m", "1", "2", "4"}), pick(rng, []string{"128Mi", "1Gi", "4Gi", "8Gi"})))
		}
		r, opt, ok := solveAgainstOptimum(t, i, p, ps, func(a, b *state.Pod) bool {
			return a.Labels["role"] != "" && a.Labels["role"] == b.Labels["role"]
		})
		if !ok {
			continue
		}
		cases++
		if r.LowerBoundPerHour > opt*0.99 {
			tight++
		}
	}
	if cases < 100 {
		t.Fatalf("only %d of 150 cases placed every pod; the test proves little", cases)
	}
	t.Logf("%d cases; bound within 1%% of the optimum in %d", cases, tight)
}

// solveAgainstOptimum solves case i (pods ps on pool p), checks the result,
// and checks its lower bound against the optimum where apart pods never
// share a node. ok is false when some pod was not placed (no optimum to
// compare with).
func solveAgainstOptimum(t *testing.T, i int, p *state.Pool, ps []*state.Pod, apart func(a, b *state.Pod) bool) (*packing.Result, float64, bool) {
	t.Helper()
	snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
	r := mustSolve(t, snap, ps)
	if len(r.Unschedulable) > 0 {
		return nil, 0, false
	}
	if v := check.Result(snap, ps, r); len(v) > 0 {
		t.Fatalf("case %d: %v", i, v)
	}
	opt := bruteForceCostApart(p.InstanceTypes, ps, apart)
	if r.LowerBoundPerHour > opt*(1+1e-9) {
		t.Errorf("case %d: lower bound %.5f above the optimum %.5f", i, r.LowerBoundPerHour, opt)
	}
	return r, opt, true
}
