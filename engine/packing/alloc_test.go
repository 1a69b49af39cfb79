package packing_test

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// solveAllocBudget bounds the heap allocations of one Solve of 1,000
// unconstrained pods (W1's mix) on one pool with spot and on-demand. The
// packing code allocated about 35,600 times per such Solve before it was
// tuned and about 22,900 times after (most of the rest are the LP's and
// the result's), 28,500 before the second strategy packed from a plan
// (strategiesFor) and 32,100 after; the budget leaves room for real
// features, not for allocating per fill step or per candidate again. Allocations are
// counted, not timed, so the test does not depend on the machine's load.
const solveAllocBudget = 35_000

// TestSolveAllocationBudget guards the allocation diet of the packing
// loop: garbage made while solving is collected during the solve, on the
// same two cores.
func TestSolveAllocationBudget(t *testing.T) {
	snap := statetest.Snapshot(statetest.Pools(statetest.Pool("default", statetest.WithSpot())), nil, nil)
	ps := unconstrainedPods(1000, 1000)
	var err error
	allocs := testing.AllocsPerRun(3, func() {
		_, err = packing.Solve(t.Context(), snap, ps)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.0f allocations per Solve of %d pods (budget %d)", allocs, len(ps), solveAllocBudget)
	if allocs > solveAllocBudget {
		t.Errorf("Solve allocated %.0f times for %d pods, over the budget of %d: look for allocations per fill step, per candidate type or per placed pod (go test -bench 'BenchmarkSolve/unconstrained-1000$' -benchmem -memprofile)", allocs, len(ps), solveAllocBudget)
	}
}
