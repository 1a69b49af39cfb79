package packing_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestPlanValidWithClique solves random batches with a large hostname
// anti-affinity clique beside zonal spreads, hostname spreads and zonal
// self-affinity, which Solve packs from plans, and checks every result,
// and that the plans cost less than the greedy fill alone.
func TestPlanValidWithClique(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var planned, greedyCost float64
	for n := range 8 {
		p := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, statetest.Zones...)))
		p.InstanceTypes = randomTypes(rng, 60)
		var ps []*state.Pod
		cpus := []string{"100m", "250m", "500m", "1", "1500m"}
		mems := []string{"100Mi", "250Mi", "500Mi", "1Gi", "2Gi", "4Gi"}
		for i := range 260 + rng.IntN(140) {
			v := string(rune('a' + rng.IntN(3)))
			var opts []statetest.PodOption
			switch i % 5 {
			case 0:
				opts = []statetest.PodOption{statetest.WithLabel("role", "nginx"), statetest.WithAntiAffinity(scheduling.LabelHostname, map[string]string{"role": "nginx"})}
			case 1:
				opts = []statetest.PodOption{statetest.WithLabel("zs", v), statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"zs": v})}
			case 2:
				opts = []statetest.PodOption{statetest.WithLabel("hs", v), statetest.WithSpread(scheduling.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"hs": v})}
			case 3:
				opts = []statetest.PodOption{statetest.WithLabel("aff", v), statetest.WithPodAffinity(scheduling.LabelTopologyZone, map[string]string{"aff": v})}
			}
			ps = append(ps, statetest.Pod(fmt.Sprintf("p%d", i), pick(rng, cpus), pick(rng, mems), opts...))
		}
		snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
		r := mustSolve(t, snap, ps)
		for _, v := range check.Result(snap, ps, r) {
			t.Errorf("case %d: violation: %s", n, v)
		}
		if len(r.Unschedulable) > 0 {
			t.Errorf("case %d: %d pods unschedulable, first %s: %s", n, len(r.Unschedulable), r.Unschedulable[0].Pod, r.Unschedulable[0].Reason)
		}
		if r.LowerBoundPerHour > r.CostPerHour+1e-9 {
			t.Errorf("case %d: lower bound %.5f above cost %.5f", n, r.LowerBoundPerHour, r.CostPerHour)
		}
		greedy, err := packing.Solve(t.Context(), snap, ps, packing.WithStrategy(1))
		if err != nil {
			t.Fatal(err)
		}
		planned += r.CostPerHour
		greedyCost += greedy.CostPerHour
	}
	// The plans exist to cost less than the greedy fill's best strategy
	// for cliques.
	t.Logf("plans %.4f $/h, greedy fill %.4f $/h", planned, greedyCost)
	if planned >= greedyCost {
		t.Errorf("plans cost %.4f $/h in all, the greedy fill %.4f", planned, greedyCost)
	}
}

// TestSolveSameWithoutPlanShortcuts solves random batches that pack from
// plans (a W1-like mix of 100+ pods, with and without spot, and
// Karpenter's diverse mix with its clique, whose two strategies both
// plan) with and without each of the plan's shortcuts: the proof that a
// knapsack search finds nothing (provenEmpty) and the first column
// generation shared between strategies (planStarts); and claimOut's
// scan of a claim's options from its own offering. The results must be
// the same: same claims, pods, options and cost.
func TestSolveSameWithoutPlanShortcuts(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  packing.Option
	}{
		{"empty proof", packing.WithoutEmptyProof()},
		{"shared plans", packing.WithoutSharedPlans()},
		{"claim options from the claim's offering", packing.WithoutOfferSkip()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 8))
			for n := range 9 {
				var opts []statetest.PoolOption
				if n%3 == 1 {
					opts = append(opts, statetest.WithSpot())
				}
				p := statetest.Pool("default", opts...)
				if n%2 == 0 {
					p.InstanceTypes = randomTypes(rng, 40+rng.IntN(80))
				}
				var ps []*state.Pod
				if n%3 == 2 {
					ps = diversePods(150+rng.IntN(300), rng.Uint64())
				} else {
					ps = unconstrainedPods(100+rng.IntN(900), rng.Uint64())
				}
				snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
				with := mustSolve(t, snap, ps)
				without, err := packing.Solve(t.Context(), snap, ps, tc.opt)
				if err != nil {
					t.Fatal(err)
				}
				if with.CostPerHour != without.CostPerHour || !reflect.DeepEqual(with.Claims, without.Claims) ||
					!reflect.DeepEqual(with.Placements, without.Placements) {
					t.Errorf("case %d (%d pods): %.4f $/h on %d claims with the shortcut, %.4f on %d without, or the claims differ",
						n, len(ps), with.CostPerHour, len(with.Claims), without.CostPerHour, len(without.Claims))
				}
			}
		})
	}
}
