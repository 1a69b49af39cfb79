package packing

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// randomPlanner is a planner over a few random requests, some of them
// clique members (a slot in dimension 3), and a few random node types.
func randomPlanner(rng *rand.Rand) *planner {
	plan := &planner{ctx: context.Background(), effort: planEfforts[0], ndims: 4}
	for range 2 + rng.IntN(5) {
		var req resources.Vector
		req[resources.CPU] = int64(100 * (1 + rng.IntN(15)))
		req[resources.Memory] = int64(128 * (1 + rng.IntN(32)))
		req[resources.Pods] = 1
		if rng.IntN(3) == 0 {
			req[3] = 1
		}
		plan.items = append(plan.items, planItem{req: req, count: int64(1 + rng.IntN(6))})
	}
	for range 1 + rng.IntN(4) {
		var alloc resources.Vector
		alloc[resources.CPU] = int64(1000 * (1 + rng.IntN(4)))
		alloc[resources.Memory] = int64(1024 * (1 + rng.IntN(8)))
		alloc[resources.Pods] = int64(2 + rng.IntN(10))
		alloc[3] = 1
		plan.types = append(plan.types, planType{alloc: alloc, price: 0.01 * float64(1+rng.IntN(30))})
	}
	plan.left = make([]int64, len(plan.items))
	for i, it := range plan.items {
		plan.left[i] = it.count
	}
	plan.stepsLeft = math.MaxInt
	return plan
}

// bestConfig is the most a node of alloc can be worth at duals pi, by
// enumerating every whole number of each item up to what is left.
func bestConfig(plan *planner, pi []float64, alloc resources.Vector, i int) float64 {
	if i == len(plan.items) {
		return 0
	}
	best := 0.0
	it := plan.items[i]
	for x := int64(0); x <= plan.left[i]; x++ {
		room := alloc
		room.SubTimes(&it.req, x)
		if !(resources.Vector{}).Fits(room) && x > 0 {
			break
		}
		best = max(best, float64(x)*pi[i]+bestConfig(plan, pi, room, i+1))
	}
	return best
}

// TestPlanKnapsackIsExact checks knapsack's branch and bound against
// enumeration: with steps to spare it finds the most valuable
// configuration whenever one is worth more than the type's price, and
// what it returns fits the node.
func TestPlanKnapsackIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for n := range 500 {
		plan := randomPlanner(rng)
		pi := make([]float64, len(plan.items))
		for i := range pi {
			pi[i] = 0.03 * rng.Float64()
		}
		for j, typ := range plan.types {
			want := bestConfig(plan, pi, typ.alloc, 0)
			got, c := plan.knapsack(pi, j, 1_000_000)
			if want <= typ.price*(1+1e-9) {
				if got != 0 {
					t.Fatalf("case %d type %d: worth %.6f at price %.6f, want nothing", n, j, got, typ.price)
				}
				continue
			}
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("case %d type %d: knapsack %.9f, enumeration %.9f", n, j, got, want)
			}
			var used resources.Vector
			var v float64
			for k, i := range c.idx {
				used.AddTimes(&plan.items[i].req, c.cnt[k])
				v += float64(c.cnt[k]) * pi[i]
			}
			if !used.Fits(typ.alloc) || math.Abs(v-got) > 1e-9 {
				t.Fatalf("case %d type %d: configuration %v uses %v of %v, worth %.6f (said %.6f)", n, j, c, used, typ.alloc, v, got)
			}
		}
	}
}

// TestPlanRoundsWithinDemand checks that the rounded plan's
// configurations, with either effort, fit their types and never plan more
// pods of a request than there are.
func TestPlanRoundsWithinDemand(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	for n := range 300 {
		plan := randomPlanner(rng)
		plan.effort = planEfforts[n%len(planEfforts)]
		plan.start()
		plan.generate(plan.effort.rounds)
		planned := make([]int64, len(plan.items))
		for _, c := range plan.round() {
			var used resources.Vector
			for k, i := range c.idx {
				if c.cnt[k] <= 0 {
					t.Fatalf("case %d: configuration %v has an empty count", n, c)
				}
				used.AddTimes(&plan.items[i].req, c.cnt[k])
				planned[i] += c.cnt[k]
			}
			if !used.Fits(plan.types[c.typ].alloc) {
				t.Fatalf("case %d: configuration %v uses %v of %v", n, c, used, plan.types[c.typ].alloc)
			}
		}
		for i, it := range plan.items {
			if planned[i] > it.count {
				t.Fatalf("case %d: %d pods of item %d planned, %d pending", n, planned[i], i, it.count)
			}
		}
	}
}

// TestPlanStopsWhenCancelled checks that column generation stops once
// the caller's context is done: a cancelled plan adds no configuration to
// its starting ones.
func TestPlanStopsWhenCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		plan := randomPlanner(rng)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		plan.ctx = ctx
		plan.start()
		start := len(plan.cols)
		plan.generate(plan.effort.rounds)
		if len(plan.cols) != start {
			t.Fatalf("cancelled plan grew from %d to %d configurations", start, len(plan.cols))
		}
	}
}
