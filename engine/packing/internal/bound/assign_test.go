package bound

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// onDemandColumns are the embedded catalog's amd64 types in us-east-1 as
// lower-bound columns (cpu, memory, pods) at their on-demand price.
func onDemandColumns(tb testing.TB) []Column {
	tb.Helper()
	cat, err := catalog.New(catalog.WithRegion("us-east-1"))
	if err != nil {
		tb.Fatal(err)
	}
	var cols []Column
	for _, it := range cat.InstanceTypes() {
		if it.Requirements.Get(scheduling.LabelArch).Has("amd64") == false {
			continue
		}
		price := math.Inf(1)
		for _, o := range it.Offerings {
			if o.CapacityType == scheduling.CapacityTypeOnDemand {
				price = min(price, o.PricePerHour)
			}
		}
		if math.IsInf(price, 1) {
			continue
		}
		a := it.Allocatable
		cols = append(cols, Column{Alloc: resources.Vector{a.Cpu().MilliValue(), a.Memory().Value(), a.Pods().Value()}, Price: price})
	}
	return ParetoColumns(cols, 3)
}

// w1Items is the w1 benchmark's mix: every cpu × memory request, 28 pods
// each.
func w1Items() []Demand {
	var items []Demand
	for _, cpu := range []int64{100, 250, 500, 1000, 2000, 4000} {
		for _, mi := range []int64{128, 512, 1024, 2048, 4096, 8192} {
			items = append(items, Demand{Req: resources.Vector{cpu, mi << 20, 1}, Count: 28})
		}
	}
	return items
}

// TestAssignmentLPRoundsSingleRequests checks the rounding rows on pods of
// one request: every share of the node at least a fifth, so the rows know
// exactly how many whole pods a node holds and the bound is the integer
// optimum, n pods at the best price per whole pod; the plain fractional LP
// would stay below it.
func TestAssignmentLPRoundsSingleRequests(t *testing.T) {
	cols := []Column{
		{Alloc: resources.Vector{1930, 4 << 30, 17}, Price: 0.04},
		{Alloc: resources.Vector{3920, 8 << 30, 29}, Price: 0.09},
		{Alloc: resources.Vector{7910, 16 << 30, 58}, Price: 0.15},
	}
	// Every request takes more than a fifth of the largest type's cpu, so
	// each type's rounding rows hold its whole-pod count exactly.
	for _, cpu := range []int64{1583, 1600, 1930, 1977, 1978, 2000, 2636, 2637, 3000, 3920, 3950, 4000, 7910} {
		items := []Demand{{Req: resources.Vector{cpu, 1 << 20, 1}, Count: 30}}
		want := math.Inf(1)
		for _, c := range cols {
			if k := c.Alloc[resources.CPU] / cpu; k > 0 {
				want = min(want, 30*c.Price/float64(k))
			}
		}
		got, converged := assignmentLP(items, cols, 0, 3, defaultAssignEffort)
		if math.Abs(got-want) > 1e-6*want || !converged {
			t.Errorf("cpu %dm: bound %.6f (converged %t), want the integer optimum %.6f", cpu, got, converged, want)
		}
		// Without the rounding rows the LP would price fractions of pods.
		frac := math.Inf(1)
		for _, c := range cols {
			frac = min(frac, 30*c.Price*float64(cpu)/float64(c.Alloc[resources.CPU]))
		}
		if want <= frac*(1+1e-9) && cpu != 1930 && cpu != 3920 && cpu != 7910 {
			t.Errorf("cpu %dm: the case does not exercise rounding (fractional %.6f, integer %.6f)", cpu, frac, want)
		}
	}
}

// TestAssignmentLPBeatsTheAscent checks, on random mixes over the embedded
// catalog, that column generation reaches at least the coordinate ascent's
// bound (both bound the same LP from below, and column generation solves
// it) and converges within its effort.
func TestAssignmentLPBeatsTheAscent(t *testing.T) {
	cols := onDemandColumns(t)
	rng := rand.New(rand.NewPCG(7, 11))
	cpus := []int64{50, 100, 250, 500, 1000, 1500, 2000, 4000, 6000}
	mems := []int64{64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536}
	for i := range 40 {
		var items []Demand
		for range 1 + rng.IntN(12) {
			items = append(items, Demand{Req: resources.Vector{cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))] << 20, 1}, Count: 1 + rng.Int64N(200)})
		}
		items = MergeDemand(items)
		seed := []float64{1e-3, 1e-9, 0}
		ascent := assignmentProblem{items: items, cols: cols, ndims: 3, seed: seed}.bound(nil, 0)
		got, converged := assignmentLP(items, cols, 0, 3, defaultAssignEffort)
		if !converged {
			t.Errorf("case %d: column generation did not converge", i)
		}
		if got < ascent*(1-1e-7) {
			t.Errorf("case %d: column generation %.6f below the ascent's %.6f", i, got, ascent)
		}
	}
}

// TestAssignmentLPNeverAboveTheOptimum checks the bound, rounding rows
// included, against the true optimum of small random instances: every
// partition of the pods into nodes, each node the cheapest type that holds
// its group, with a slot resource (one per node, as the bound models a
// hostname anti-affinity clique) and a least node count.
func TestAssignmentLPNeverAboveTheOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const ndims = 4 // cpu, memory, pods, slot
	tight := 0
	for c := range 400 {
		var cols []Column
		for range 2 + rng.IntN(3) {
			cpu := int64(500 + rng.IntN(8)*500)
			cols = append(cols, Column{Alloc: resources.Vector{cpu, int64(1+rng.IntN(8)) << 30, int64(2 + rng.IntN(6)), 1}, Price: float64(cpu) * (0.5 + rng.Float64()) / 1000})
		}
		var pods []resources.Vector
		var items []Demand
		for range 1 + rng.IntN(3) {
			req := resources.Vector{int64(100 + rng.IntN(30)*100), int64(64+rng.IntN(40)*64) << 20, 1, 0}
			if rng.IntN(4) == 0 {
				req[3] = 1
			}
			k := 1 + rng.IntN(3)
			items = append(items, Demand{Req: req, Count: int64(k)})
			for range k {
				pods = append(pods, req)
			}
		}
		minNodes := int64(rng.IntN(3))
		opt := math.Inf(1)
		var rec func(i int, groups []resources.Vector)
		rec = func(i int, groups []resources.Vector) {
			if i == len(pods) {
				var sum float64
				for _, g := range groups {
					best := math.Inf(1)
					for _, col := range cols {
						if g.Fits(col.Alloc) {
							best = min(best, col.Price)
						}
					}
					sum += best
				}
				// Extra nodes for the least Count: the cheapest type.
				cheapest := math.Inf(1)
				for _, col := range cols {
					cheapest = min(cheapest, col.Price)
				}
				if n := int64(len(groups)); n < minNodes {
					sum += float64(minNodes-n) * cheapest
				}
				opt = min(opt, sum)
				return
			}
			for k := range groups {
				groups[k] = groups[k].Add(pods[i])
				rec(i+1, groups)
				groups[k] = groups[k].Sub(pods[i])
			}
			rec(i+1, append(groups, pods[i]))
		}
		rec(0, nil)
		got, _ := assignmentLP(MergeDemand(items), cols, minNodes, ndims, defaultAssignEffort)
		if math.IsInf(opt, 1) {
			if got != 0 {
				t.Errorf("case %d: no node set exists, yet the bound is %.6f", c, got)
			}
			continue
		}
		if got > opt*(1+1e-9) {
			t.Errorf("case %d: bound %.6f above the optimum %.6f (items %v, types %v)", c, got, opt, items, cols)
		}
		if got > opt*0.98 {
			tight++
		}
	}
	// The bound is of use, not merely valid.
	if tight < 100 {
		t.Errorf("the bound is within 2%% of the optimum in only %d of 400 cases", tight)
	}
}

// TestScreenBoundsTheLoad checks that a type's screen, before any solve
// and from the duals of an earlier one, and its dual bound never claim less
// than the load the type can really carry: a screened type is skipped on
// that claim, and the dual bound stands in for an unfinished solve.
func TestScreenBoundsTheLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	cols := onDemandColumns(t)
	items := w1Items()
	pr := &loadLP{}
	randPi := func() []float64 {
		pi := make([]float64, len(items))
		for i := range pi {
			if rng.IntN(5) > 0 {
				pi[i] = rng.Float64() * float64(items[i].Req[resources.CPU]) / 1000 * 0.04
			}
		}
		return pi
	}
	for c := range 300 {
		tl := newTypeLoad(items, cols[rng.IntN(len(cols))], 3)
		pi := randPi()
		before := tl.screen(pi)
		v := pr.solve(pi, tl)
		if before < v*(1-1e-9) {
			t.Fatalf("case %d: screen %.6f before any solve, below the load's value %.6f", c, before, v)
		}
		for range 5 {
			pi2 := randPi()
			up := tl.screen(pi2)
			v2 := pr.solve(slices.Clone(pi2), &typeLoad{price: tl.price, cols: tl.cols, rows: tl.rows})
			if up < v2*(1-1e-9) {
				t.Fatalf("case %d: screen %.6f from earlier duals, below the load's value %.6f", c, up, v2)
			}
			if db := tl.dualBound(pi2); db < v2*(1-1e-9) {
				t.Fatalf("case %d: dual bound %.6f from earlier duals, below the load's value %.6f", c, db, v2)
			}
		}
	}
}

// TestAssignStateFollowsTheDemand checks column generation carried on
// after the demand falls (setDemand's dual simplex, then run) against a
// fresh solve of the same LP: the same optimum at every step, as the fill
// uses it while packing.
func TestAssignStateFollowsTheDemand(t *testing.T) {
	cols := onDemandColumns(t)
	rng := rand.New(rand.NewPCG(23, 29))
	for c := range 10 {
		items := w1Items()
		for i := range items {
			items[i].Count = 1 + rng.Int64N(100)
		}
		st := newAssignState(items, cols, 0, 3, false)
		first, converged, values := st.run(defaultAssignEffort)
		if !converged || len(values) != len(items) {
			t.Fatalf("case %d: the first solve did not converge", c)
		}
		counts := make([]int64, len(items))
		for i, it := range items {
			counts[i] = it.Count
		}
		prev := first
		for step := range 6 {
			left := slices.Clone(items)
			for i := range counts {
				counts[i] -= rng.Int64N(counts[i] + 1)
				left[i].Count = counts[i]
			}
			st.setDemand(counts, defaultAssignEffort.pivots)
			got, converged, _ := st.run(defaultAssignEffort)
			var live []Demand
			for _, it := range left {
				if it.Count > 0 {
					live = append(live, it)
				}
			}
			want, _ := assignmentLP(live, cols, 0, 3, defaultAssignEffort)
			if !converged || math.Abs(got-want) > 1e-6*max(want, 1e-9) {
				t.Errorf("case %d step %d: carried on to %.6f (converged %t), a fresh solve gives %.6f", c, step, got, converged, want)
			}
			if got > prev*(1+1e-9) {
				t.Errorf("case %d step %d: less demand costs more (%.6f after %.6f)", c, step, got, prev)
			}
			prev = got
		}
	}
}

// TestLowerBoundWithManyRequests checks that a batch with more distinct
// requests than column generation takes on still gets the other bounds.
func TestLowerBoundWithManyRequests(t *testing.T) {
	cols := onDemandColumns(t)
	var items []Demand
	for i := range MaxAssignItems + 1 {
		items = append(items, Demand{Req: resources.Vector{int64(100 + 7*i), int64(256+i) << 20, 1}, Count: 3})
	}
	if b, _ := assignmentLP(items, cols, 0, 3, defaultAssignEffort); b != 0 {
		t.Fatalf("column generation took on %d requests", len(items))
	}
	var total resources.Vector
	for _, it := range items {
		total = total.Add(it.Req.Scale(it.Count))
	}
	got, frac := LowerBound(items, cols, 0, 3), FractionalBound(total, cols, 3)
	if got < frac || frac <= 0 {
		t.Errorf("bound %.6f below the fractional bound %.6f", got, frac)
	}
}

// BenchmarkAssignmentLP times the bound on the w1 mix over the catalog.
func BenchmarkAssignmentLP(b *testing.B) {
	cols := onDemandColumns(b)
	items := w1Items()
	var got float64
	for b.Loop() {
		got, _ = assignmentLP(items, cols, 0, 3, defaultAssignEffort)
	}
	b.ReportMetric(got, "$/h")
}

// BenchmarkLowerBound times the whole reported bound on the w1 mix.
func BenchmarkLowerBound(b *testing.B) {
	cols := onDemandColumns(b)
	items := w1Items()
	var got float64
	for b.Loop() {
		got = LowerBound(items, cols, 0, 3)
	}
	b.ReportMetric(got, "$/h")
}
