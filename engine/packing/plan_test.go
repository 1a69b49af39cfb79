package packing

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// randomPlanner is a planner over a few random requests, some of them
// clique members (a slot in dimension 3) and some with fewer pods in any
// one zone than in all (perNode), and a few random node types.
func randomPlanner(rng *rand.Rand) *planner {
	plan := &planner{ctx: context.Background(), effort: planEfforts[0], ndims: 4, resDims: 3}
	for range 2 + rng.IntN(5) {
		var req resources.Vector
		req[resources.CPU] = int64(100 * (1 + rng.IntN(15)))
		req[resources.Memory] = int64(128 * (1 + rng.IntN(32)))
		req[resources.Pods] = 1
		if rng.IntN(3) == 0 {
			req[3] = 1
		}
		count := int64(1 + rng.IntN(6))
		perNode := count
		if rng.IntN(3) == 0 {
			perNode = 1 + rng.Int64N(count)
		}
		plan.items = append(plan.items, planItem{req: req, count: count, perNode: perNode})
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
// enumerating every whole number of each item up to what is left and
// one zone holds.
func bestConfig(plan *planner, pi []float64, alloc resources.Vector, i int) float64 {
	if i == len(plan.items) {
		return 0
	}
	best := 0.0
	it := plan.items[i]
	for x := int64(0); x <= min(plan.left[i], it.perNode); x++ {
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
// configurations, with either effort, fit their types, hold no more pods
// of a request than one zone does and never plan more pods of a request
// than there are.
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
				if c.cnt[k] > plan.items[i].perNode {
					t.Fatalf("case %d: configuration %v holds %d of item %d, one zone %d", n, c, c.cnt[k], i, plan.items[i].perNode)
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

// TestKnapsackOrderSkipsCliqueSlots checks that the search tries items by
// worth per share of the node's resources, a clique's slot aside: a
// member worth most per cpu comes first though it takes its clique's one
// slot per node, and a search of one descent (a big type's budget, in
// effect) puts it on the node.
func TestKnapsackOrderSkipsCliqueSlots(t *testing.T) {
	member := resources.Vector{4000, 2048, 1, 1}
	tests := []struct {
		name  string
		items []resources.Vector
		pi    []float64
		first int32
	}{
		{"member worth most per cpu", []resources.Vector{{4000, 512, 1}, {2000, 1024, 1}, member}, []float64{0.041, 0.0205, 0.076}, 2},
		{"member worth less per cpu", []resources.Vector{{4000, 512, 1}, {2000, 1024, 1}, member}, []float64{0.041, 0.0215, 0.040}, 1},
		{"memory decides", []resources.Vector{{1000, 8192, 1}, {100, 2048, 1}, {1000, 4096, 1, 1}}, []float64{0.02, 0.004, 0.0125}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := &planner{ctx: t.Context(), effort: planEfforts[0], ndims: 4, resDims: 3}
			for _, req := range tt.items {
				plan.items = append(plan.items, planItem{req: req, count: 20, perNode: 20})
			}
			plan.types = []planType{{alloc: resources.Vector{8000, 32768, 44, 1}, price: 0.05}}
			plan.left = []int64{20, 20, 20}
			plan.stepsLeft = math.MaxInt
			if order := plan.knapsackOrder(tt.pi, 0); order[0] != tt.first {
				t.Fatalf("order %v, want item %d first", order, tt.first)
			}
			_, c := plan.knapsack(tt.pi, 0, len(tt.items)+1)
			if !slices.Contains(c.idx, tt.first) {
				t.Fatalf("one descent found %v, without item %d", c, tt.first)
			}
		})
	}
}

// TestPerNodeIsTheMostOneZoneHolds checks planner.perNode against counts
// by hand: buckets pinned to one zone count there, those allowing several
// count in each, and zones outside the plan's do not count.
func TestPerNodeIsTheMostOneZoneHolds(t *testing.T) {
	bucketOf := func(zones uint64, pods int) *bucket {
		return &bucket{zones: zones, pods: make([]*state.Pod, pods)}
	}
	tests := []struct {
		name    string
		zones   uint64
		buckets []*bucket
		want    int64
	}{
		{"spread over three zones", 0b111, []*bucket{bucketOf(0b001, 7), bucketOf(0b010, 7), bucketOf(0b100, 6)}, 7},
		{"unpinned counts everywhere", 0b111, []*bucket{bucketOf(0b111, 10), bucketOf(0b010, 3)}, 13},
		{"two zones of three", 0b011, []*bucket{bucketOf(0b011, 4), bucketOf(0b100, 9), bucketOf(0b001, 2)}, 6},
		{"one zone", 0b001, []*bucket{bucketOf(0b001, 5), bucketOf(0b001, 5)}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := &planner{zones: tt.zones}
			if got := plan.perNode(tt.buckets); got != tt.want {
				t.Fatalf("perNode = %d, want %d", got, tt.want)
			}
		})
	}
}
