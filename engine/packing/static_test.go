package packing_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// Pending pods land on a static pool's nodes, but packing never opens a node
// in a static pool: the rest go to a dynamic pool, or stay pending with a
// reason naming the static pool.
func TestSolveStaticPool(t *testing.T) {
	two := int64(2)
	static := statetest.Pool("static", func(p *state.Pool) { p.Replicas = &two },
		statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.large")))
	dynamic := statetest.Pool("dynamic")
	nodes := []*state.Node{statetest.Node(static, "static-1", "m5.large", "us-east-1a")}
	for _, tc := range []struct {
		name  string
		pools []*state.Pool
		// onStatic pods fit the static node; claims > 0 when the dynamic pool
		// must launch.
		onStatic, claims, unschedulable int
	}{
		{name: "static pool only", pools: statetest.Pools(static), onStatic: 1, unschedulable: 3},
		{name: "with a dynamic pool", pools: statetest.Pools(static, dynamic), onStatic: 1, claims: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := statetest.Pods(4, "web", "1", "1Gi")
			res, err := packing.Solve(context.Background(), statetest.Snapshot(tc.pools, nodes, pods), pods)
			if err != nil {
				t.Fatal(err)
			}
			on := 0
			for _, pl := range res.Placements {
				if pl.Node == "static-1" {
					on++
				}
			}
			if on != tc.onStatic || (len(res.Claims) > 0) != (tc.claims > 0) || len(res.Unschedulable) != tc.unschedulable {
				t.Fatalf("on the static node %d, claims %d, unschedulable %d; want %d, %d, %d", on, len(res.Claims), len(res.Unschedulable), tc.onStatic, tc.claims, tc.unschedulable)
			}
			for _, c := range res.Claims {
				if c.Pool == "static" {
					t.Fatalf("claim %s opened in the static pool", c.Name)
				}
			}
			for _, u := range res.Unschedulable {
				if !strings.Contains(u.Reason, `nodepool "static" is static (replicas 2)`) {
					t.Fatalf("reason %q does not name the static pool", u.Reason)
				}
			}
		})
	}
}
