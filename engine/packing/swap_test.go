package packing

import (
	"fmt"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestSwapRetypesLopsidedClaim builds the case swap is for: claim A, a
// c5.4xlarge, holds 15 pods of 1 cpu and 256Mi (cpu full, memory mostly
// free); claim B, an m5.4xlarge, holds 15 pods of 1 cpu and 3Gi (cpu
// full, memory beyond any 16-cpu compute type). No pod fits the other's
// spare room, so shrink, merge, evacuate and relocate save nothing;
// exchanging B's memory-heavy pods for A's light ones one for one lets B
// become a compute type. The test checks that swap does it: the claims
// cost less, A keeps its type, both hold what their types allow, and
// every pod is still placed once. With hostname anti-affinity among B's
// pods (not movable), nothing may move.
func TestSwapRetypesLopsidedClaim(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rule  statetest.PodOption
		saves bool
	}{
		{name: "plain pods", saves: true},
		{name: "hostname anti-affinity", rule: statetest.WithAntiAffinity(scheduling.LabelHostname, map[string]string{"app": "nobody"}), saves: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ps []*state.Pod
			on := map[string]string{}
			for i := range 15 {
				light := fmt.Sprintf("light-%d", i)
				ps = append(ps, statetest.Pod(light, "1", "256Mi", statetest.WithLabel("app", "light")))
				on[light] = "A"
				heavy := fmt.Sprintf("heavy-%d", i)
				opts := []statetest.PodOption{statetest.WithLabel("app", "heavy")}
				if tc.rule != nil {
					opts = append(opts, tc.rule)
				}
				ps = append(ps, statetest.Pod(heavy, "1", "3Gi", opts...))
				on[heavy] = "B"
			}
			s := classifiedSolver(t, statetest.Snapshot(statetest.Pools(statetest.Pool("default")), nil, nil), ps)
			pool := s.pools[0]
			claims := map[string]*node{
				"A": s.newClaim(pool, typeNamed(t, pool, "c5.4xlarge"), 0, capacityOnDemand),
				"B": s.newClaim(pool, typeNamed(t, pool, "m5.4xlarge"), 0, capacityOnDemand),
			}
			for _, c := range s.classes {
				b := &bucket{class: c, zones: s.allZones(), capacityTypes: pool.capacityTypeMask, pods: c.pods}
				for _, p := range c.pods {
					s.place(b, claims[on[p.Name]], 1)
				}
			}
			pass := newImprover(s)
			var before float64
			for _, n := range s.claims {
				pass.shrink(n)
				before += price(n)
			}
			aType := claims["A"].typ
			pass.relocate()
			if _, cost := claimsLeft(t, s, ps); cost < before-1e-9 {
				t.Fatalf("relocate saves here (%.4f -> %.4f); the case no longer tests swap", before, cost)
			}
			pass.swap()
			left, cost := claimsLeft(t, s, ps)
			if len(left) != 2 {
				t.Fatalf("want both claims kept, got %d", len(left))
			}
			for _, n := range left {
				if !n.used.Fits(n.typ.alloc) {
					t.Errorf("%s holds %v, beyond its %s's %v", n.name, n.used, n.typ.instance.Name, n.typ.alloc)
				}
			}
			if claims["A"].typ != aType {
				t.Errorf("A became a %s; swap keeps the claims it sends pods to", claims["A"].typ.instance.Name)
			}
			if !tc.saves {
				if cost != before {
					t.Errorf("claims cost %.4f after swap, want %.4f: B's pods may not move", cost, before)
				}
				return
			}
			if cost >= before-1e-9 {
				t.Errorf("claims cost %.4f after swap, want less than %.4f", cost, before)
			}
			if got := claims["B"].typ.instance.Name; got == "m5.4xlarge" {
				t.Errorf("B is still an %s", got)
			}
		})
	}
}
