package consolidation

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestPlanSameWithCache checks that planning with the packing.Cache Plan
// keeps per plan (and without the packing lower bound, which no plan
// reads) gives exactly the plan it gave before: on random clusters of
// both kinds the benchmarks use (DaemonSet-heavy packed clusters with
// half their pods deleted, and burst-packed clusters scaled down), the
// whole Result of Plan, look-ahead included, and the run to stable.
func TestPlanSameWithCache(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 11))
	cases := 6
	if testing.Short() {
		cases = 3
	}
	for i := range cases {
		var snap *state.Snapshot
		if i%2 == 0 {
			_, snap = daemonCluster(t, 200+r.IntN(600), r.Uint64())
		} else {
			budget := []string{"100%", "10%", "3"}[r.IntN(3)]
			snap = burstScaleDown(t, burstPool(budget), 150+r.IntN(350), 2+r.IntN(7), r.Uint64())
		}
		old := DefaultOptions()
		old.uncached = true
		want, got := mustPlan(t, snap, old), mustPlan(t, snap, DefaultOptions())
		if len(want.Commands) == 0 {
			t.Errorf("case %d (%d nodes): no command, nothing compared", i, len(snap.Nodes))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d (%d nodes): with the cache %d commands, $%.4f/h; without %d commands, $%.4f/h",
				i, len(snap.Nodes), len(got.Commands), got.CostAfterPerHour, len(want.Commands), want.CostAfterPerHour)
		}
		a, b := untilStable(t, snap, old, 10), untilStable(t, snap, DefaultOptions(), 10)
		if a.cost != b.cost || a.evicted != b.evicted || a.rounds != b.rounds {
			t.Fatalf("case %d: to stable with the cache $%.4f/h, %d evictions, %d rounds; without $%.4f/h, %d, %d",
				i, b.cost, b.evicted, b.rounds, a.cost, a.evicted, a.rounds)
		}
		t.Logf("case %d (%d nodes): %d commands, same with and without the cache; stable at $%.3f/h after %d rounds", i, len(snap.Nodes), len(got.Commands), b.cost, b.rounds)
	}
}
