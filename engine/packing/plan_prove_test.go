package packing

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// TestProvenEmptyIsABound checks provenEmpty against enumeration: a type
// it proves empty at some duals has no configuration worth more than its
// price. It also checks that the proof fires on some searches and that
// knapsack, which skips what it proves, still returns what the full
// search does.
func TestProvenEmptyIsABound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	proven, searched := 0, 0
	for n := range 600 {
		plan := randomPlanner(rng)
		pi := make([]float64, len(plan.items))
		for i := range pi {
			pi[i] = 0.03 * rng.Float64()
		}
		for j, typ := range plan.types {
			order := plan.knapsackOrder(pi, j)
			if len(order) == 0 {
				continue
			}
			searched++
			if !plan.provenEmpty(pi, j, order) {
				continue
			}
			proven++
			if best := bestConfig(plan, pi, typ.alloc, 0); best > typ.price {
				t.Fatalf("case %d type %d: proven empty, yet a configuration is worth %.9f at price %.9f", n, j, best, typ.price)
			}
			plan.noEmptyProof = true
			v, c := plan.knapsack(pi, j, 1_000_000)
			plan.noEmptyProof = false
			if v != 0 || c.idx != nil {
				t.Fatalf("case %d type %d: proven empty, yet the full search returns %.9f %v", n, j, v, c)
			}
		}
	}
	t.Logf("%d of %d searches proven empty", proven, searched)
	if proven == 0 || proven == searched {
		t.Fatalf("%d of %d searches proven empty: the test does not exercise both outcomes", proven, searched)
	}
}

// bigPlanner is a planner over many requests of many pods and types that
// hold up to a hundred of them, so that searches run into their step
// limits (planEffort.bigSteps) as on real batches.
func bigPlanner(rng *rand.Rand) *planner {
	plan := &planner{effort: planEfforts[rng.IntN(len(planEfforts))], ndims: 3, resDims: 3}
	cpus := []int64{100, 250, 500, 1000, 2000, 4000}
	mems := []int64{128, 512, 1024, 2048, 4096, 8192}
	for range 5 + rng.IntN(30) {
		var req resources.Vector
		req[resources.CPU], req[resources.Memory], req[resources.Pods] = cpus[rng.IntN(6)], mems[rng.IntN(6)], 1
		count := int64(1 + rng.IntN(80))
		plan.items = append(plan.items, planItem{req: req, count: count, perNode: count - rng.Int64N(count)/2})
	}
	for range 5 + rng.IntN(40) {
		var alloc resources.Vector
		k := int64(1) << rng.IntN(7)
		alloc[resources.CPU] = 1900 * k
		alloc[resources.Memory] = int64(2048+rng.IntN(3)*2048) * k
		alloc[resources.Pods] = min(110, 8+8*k)
		plan.types = append(plan.types, planType{alloc: alloc, price: 0.02 * float64(k) * (0.8 + 0.4*rng.Float64())})
	}
	for j := range plan.types {
		for _, it := range plan.items {
			plan.types[j].holds = max(plan.types[j].holds, it.req.Times(&plan.types[j].alloc, 1<<40))
		}
	}
	return plan
}

// TestPlanSameWithoutEmptyProof plans random batches with and without
// the proof and checks that the master's columns and the rounded plan are
// the same: skipping a search provenEmpty proves empty changes nothing
// but the steps spent.
func TestPlanSameWithoutEmptyProof(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	for n := range 60 {
		seed := rng.Uint64()
		var cols [2][]planConfig
		var plans [2][]planConfig
		var steps [2]int
		for k, off := range []bool{false, true} {
			plan := bigPlanner(rand.New(rand.NewPCG(seed, 1)))
			plan.ctx = t.Context()
			plan.noEmptyProof = off
			plan.start()
			plan.generate(plan.effort.rounds)
			plans[k] = plan.round()
			cols[k] = plan.cols
			steps[k] = plan.effort.totalSteps - plan.stepsLeft
		}
		if !reflect.DeepEqual(cols[0], cols[1]) {
			t.Fatalf("case %d: %d columns with the proof, %d without, or they differ", n, len(cols[0]), len(cols[1]))
		}
		if !reflect.DeepEqual(plans[0], plans[1]) {
			t.Fatalf("case %d: plans differ:\n%v\n%v", n, plans[0], plans[1])
		}
		if steps[0] > steps[1] {
			t.Fatalf("case %d: %d steps with the proof, %d without", n, steps[0], steps[1])
		}
		if n < 5 {
			t.Logf("case %d: %d columns, %d nodes planned, steps %d with the proof, %d without", n, len(cols[0]), len(plans[0]), steps[0], steps[1])
		}
	}
}

// TestSurrogatePrunesAsItsBound checks prunes, the search's test, against
// the bound it stops computing early: v plus bound(k, room) at most limit
// exactly when prunes says so.
func TestSurrogatePrunesAsItsBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	agree := [2]int{}
	for n := range 300 {
		plan := randomPlanner(rng)
		pi := make([]float64, len(plan.items))
		for i := range pi {
			pi[i] = 0.03 * rng.Float64()
		}
		for j, typ := range plan.types {
			order := plan.knapsackOrder(pi, j)
			sg := plan.newSurrogate(pi, j, order)
			for range 20 {
				k := rng.IntN(len(order) + 1)
				var room resources.Vector
				for d := range plan.ndims {
					room[d] = rng.Int64N(typ.alloc[d] + 1)
				}
				v, limit := 0.05*rng.Float64(), 0.1*rng.Float64()
				want := v+sg.bound(k, &room) <= limit
				if got := sg.prunes(k, &room, v, limit); got != want {
					t.Fatalf("case %d type %d depth %d room %v: prunes %t, bound says %t", n, j, k, room, got, want)
				}
				agree[map[bool]int{false: 0, true: 1}[want]]++
			}
		}
	}
	if agree[0] == 0 || agree[1] == 0 {
		t.Fatalf("pruned %d, kept %d: the test does not exercise both", agree[1], agree[0])
	}
}

// TestRootRatioStopsOnlyWhenLeftOut checks rootRatio against the bound
// over every weighting: a type the full bound keeps (ratio above
// 1+1e-9) gets the same ratio, and one it leaves out is left out.
func TestRootRatioStopsOnlyWhenLeftOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	kept, out := 0, 0
	for n := range 300 {
		plan := bigPlanner(rng)
		plan.prepare()
		pi := make([]float64, len(plan.items))
		for i := range pi {
			pi[i] = 0.004 * rng.Float64()
		}
		nw, m := len(plan.weights()), len(plan.items)
		for j := range plan.types {
			full := math.Inf(1)
			for q := range nw {
				best := 0.0
				for i, x := range plan.rootX[(j*nw+q)*m : (j*nw+q+1)*m] {
					if pi[i] > 1e-12 && !math.IsNaN(x) {
						best = max(best, pi[i]/x)
					}
				}
				full = min(full, plan.rootC[j*nw+q]*best)
			}
			want, got := full/plan.types[j].price, plan.rootRatio(pi, j)
			switch {
			case want > 1+1e-9 && got != want:
				t.Fatalf("case %d type %d: ratio %g, every weighting gives %g", n, j, got, want)
			case want <= 1+1e-9 && got > 1+1e-9:
				t.Fatalf("case %d type %d: ratio %g keeps a type every weighting leaves out (%g)", n, j, got, want)
			case want > 1+1e-9:
				kept++
			default:
				out++
			}
		}
	}
	t.Logf("%d types kept, %d left out", kept, out)
	if kept == 0 || out == 0 {
		t.Fatalf("%d kept, %d left out: the test does not exercise both", kept, out)
	}
}
