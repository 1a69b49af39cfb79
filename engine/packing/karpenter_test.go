package packing_test

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestKarpenterLabelsAreAliases: a pod selecting Karpenter's labels is
// placed as if it selected Tenon's, on existing nodes and new claims alike,
// and refused where Tenon's label would refuse it.
func TestKarpenterLabelsAreAliases(t *testing.T) {
	pool := statetest.Pool("general", statetest.WithSpot())
	spotNode := statetest.Node(pool, "spot-1", "m5.xlarge", "us-east-1a", statetest.WithCapacityType(scheduling.CapacityTypeSpot))
	for _, tc := range []struct {
		desc  string
		nodes []*state.Node
		pod   *state.Pod
		// node is where the pod must go ("" for a new claim, "-" for
		// unschedulable); check inspects the claim.
		node  string
		claim func(t *testing.T, typ, capacityType string)
	}{
		{"existing spot node", []*state.Node{spotNode},
			statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector("karpenter.sh/capacity-type", "spot")), "spot-1", nil},
		{"existing node, other capacity type", []*state.Node{spotNode},
			statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector("karpenter.sh/capacity-type", "on-demand")), "", func(t *testing.T, _, ct string) {
				if ct != scheduling.CapacityTypeOnDemand {
					t.Errorf("capacity type %s", ct)
				}
			}},
		{"new claim by family and capacity type", nil,
			statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector("karpenter.sh/capacity-type", "spot"), statetest.WithNodeSelector("karpenter.k8s.aws/instance-family", "c6i")), "",
			func(t *testing.T, typ, ct string) {
				if !strings.HasPrefix(typ, "c6i.") || ct != scheduling.CapacityTypeSpot {
					t.Errorf("got %s %s, want a c6i spot node", typ, ct)
				}
			}},
		{"affinity on the instance cpu", nil,
			statetest.Pod("a", "1", "1Gi", statetest.WithRequiredNodeAffinity("karpenter.k8s.aws/instance-cpu", corev1.NodeSelectorOpGt, "30")), "",
			func(t *testing.T, typ, _ string) {
				it, _ := statetest.Catalog().Get(typ)
				v, _ := it.Requirements.Get(scheduling.LabelInstanceCPU).Any()
				if n, err := strconv.Atoi(v); err != nil || n <= 30 {
					t.Errorf("got %s with %s vCPUs, want more than 30", typ, v)
				}
			}},
		{"the pool's name", nil,
			statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector("karpenter.sh/nodepool", "general")), "", nil},
		{"another pool's name", nil,
			statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector("karpenter.sh/nodepool", "gpu")), "-", nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r := solveChecked(t, statetest.Snapshot(statetest.Pools(pool), tc.nodes, nil), one(tc.pod))
			got := nodeOf(r, "a")
			switch {
			case tc.node == "-":
				if reasonOf(r, "a") == "" {
					t.Errorf("placed on %q, want unschedulable", got)
				}
				return
			case tc.node != "":
				if got != tc.node {
					t.Errorf("placed on %q, want %s (unschedulable: %q)", got, tc.node, reasonOf(r, "a"))
				}
				return
			}
			cl := claimOf(r, got)
			if cl == nil {
				t.Fatalf("not on a new claim: %q (unschedulable: %q)", got, reasonOf(r, "a"))
			}
			if tc.claim != nil {
				tc.claim(t, cl.Options[0].InstanceType, cl.Options[0].CapacityType)
			}
		})
	}
}
