package bound

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// bruteOptimum is the cheapest node set for pods on cols: every partition
// of the pods into nodes, each node the cheapest type that holds its
// group, at least minNodes nodes (the extra ones of the cheapest type).
func bruteOptimum(pods []resources.Vector, cols []Column, minNodes int64) float64 {
	cheapest := math.Inf(1)
	for _, col := range cols {
		cheapest = min(cheapest, col.Price)
	}
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
	return opt
}

// TestWholeLPNeverAboveTheOptimum checks the whole-pod LP's bound against
// the true optimum of small random instances shaped like the batches it
// is for: small nodes of a few pods each, pods of several requests, some
// of them members of a clique (one slot per node), a least node count. It
// runs each instance with the search's default budget, with one step per
// pricing and with none (where small types fall back on their fractional
// loads),
// and requires the bound to be valid in both, never below the assignment
// LP's, and above it in enough cases to be of use.
func TestWholeLPNeverAboveTheOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 43))
	const ndims = 4 // cpu, memory, pods, slot
	cases, higher := 0, 0
	for c := range 300 {
		var cols []Column
		for range 2 + rng.IntN(4) {
			cpu := int64(1000 + rng.IntN(4)*1000)
			mem := int64(512+rng.IntN(8)*512) << 20
			cols = append(cols, Column{Alloc: resources.Vector{cpu, mem, int64(2 + rng.IntN(7)), 1},
				Price: (float64(cpu)/1000*0.02 + float64(mem>>20)/1024*0.01) * (0.8 + 0.4*rng.Float64())})
		}
		var pods []resources.Vector
		var items []Demand
		for range 1 + rng.IntN(4) {
			req := resources.Vector{int64(100 + rng.IntN(15)*100), int64(100+rng.IntN(20)*100) << 20, 1, 0}
			if rng.IntN(3) == 0 {
				req[3] = 1
			}
			k := 1 + rng.IntN(3)
			items = append(items, Demand{Req: req, Count: int64(k)})
			for range k {
				pods = append(pods, req)
			}
		}
		if len(pods) > 9 {
			continue
		}
		minNodes := int64(rng.IntN(3))
		items = MergeDemand(items)
		opt := bruteOptimum(pods, cols, minNodes)
		frac, _, added := assignmentRun(items, ParetoColumns(cols, ndims), minNodes, ndims, defaultAssignEffort)
		for _, steps := range []int{wholeSteps, 1, 0} {
			got := wholeLP(items, ParetoColumns(cols, ndims), minNodes, ndims, wholeEffort, steps, added)
			if math.IsInf(opt, 1) {
				if got != 0 {
					t.Errorf("case %d: no node set exists, yet the bound is %.6f", c, got)
				}
				continue
			}
			if got > opt*(1+1e-9) {
				t.Errorf("case %d (steps %d): whole-pod bound %.6f above the optimum %.6f (items %v, types %v)", c, steps, got, opt, items, cols)
			}
			if steps == wholeSteps && got < frac*(1-1e-6) {
				t.Errorf("case %d: whole-pod bound %.6f below the assignment LP's %.6f", c, got, frac)
			}
			if steps == wholeSteps && got > frac*(1+1e-6) {
				higher++
			}
		}
		if !math.IsInf(opt, 1) {
			cases++
		}
	}
	if cases < 200 || higher < cases/4 {
		t.Errorf("%d cases with a node set, the whole-pod bound above the assignment LP's in %d: the test proves little", cases, higher)
	}
	t.Logf("%d cases; whole-pod bound above the assignment LP's in %d", cases, higher)
}

// TestLowerBoundUsesWholePods checks that LowerBound takes the whole-pod
// LP where whole pods leave gaps the assignment LP's rows do not see: on
// nodes of 2,000m, 1,000Mi and 3 pods, a 1,100m/200Mi clique member takes
// one 500m/450Mi pod beside it (two overrun the cpu), but 1.33 of one by
// the rows. Three members and five such pods need four nodes (a member
// and a pod each, then two pods); the assignment LP buys 3.5.
func TestLowerBoundUsesWholePods(t *testing.T) {
	cols := []Column{{Alloc: resources.Vector{2000, 1000 << 20, 3, 1}, Price: 1}}
	items := []Demand{
		{Req: resources.Vector{1100, 200 << 20, 1, 1}, Count: 3},
		{Req: resources.Vector{500, 450 << 20, 1, 0}, Count: 5},
	}
	frac, _ := assignmentLP(items, cols, 0, 4, defaultAssignEffort)
	got := LowerBound(items, cols, 0, 4)
	var pods []resources.Vector
	for _, it := range items {
		for range it.Count {
			pods = append(pods, it.Req)
		}
	}
	opt := bruteOptimum(pods, cols, 0)
	if math.Abs(got-opt) > 1e-6 || frac >= opt-1e-6 {
		t.Errorf("lower bound %.6f, assignment LP %.6f, optimum %.6f: want the bound at the optimum, above the assignment LP", got, frac, opt)
	}
}
