package packing_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// A daemonset that runs in one zone only reserves its overhead on nodes
// of that zone, not on every node of the pool.
func TestZonalDaemonSetOverhead(t *testing.T) {
	def := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.large", "m5.xlarge", "m5.4xlarge")))
	big := statetest.DaemonSet("zonal", "6", "1Gi", statetest.WithRequiredNodeAffinity(scheduling.LabelTopologyZone, corev1.NodeSelectorOpIn, "us-east-1a"))
	everywhere := statetest.DaemonSet("agent", "6", "1Gi")
	runCases(t, []constraintCase{
		{name: "a small node outside the daemonset's zone", snap: statetest.Snapshot(statetest.Pools(def), nil, nil, big), pods: one(statetest.Pod("a", "1", "1Gi")), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				o := r.Claims[0].Chosen()
				if o.Zone == "us-east-1a" || o.InstanceType != "m5.large" {
					t.Errorf("%s in %s, want m5.large outside us-east-1a", o.InstanceType, o.Zone)
				}
			}},
		{name: "pinned to the daemonset's zone, its overhead is reserved", snap: statetest.Snapshot(statetest.Pools(def), nil, nil, big),
			pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector(scheduling.LabelTopologyZone, "us-east-1a"))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if o := r.Claims[0].Chosen(); o.InstanceType != "m5.4xlarge" {
					t.Errorf("%s, want m5.4xlarge (pod plus the 6-CPU daemonset)", o.InstanceType)
				}
			}},
		{name: "a daemonset running everywhere reserves everywhere", snap: statetest.Snapshot(statetest.Pools(def), nil, nil, everywhere), pods: one(statetest.Pod("a", "1", "1Gi")), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if o := r.Claims[0].Chosen(); o.InstanceType != "m5.4xlarge" {
					t.Errorf("%s, want m5.4xlarge", o.InstanceType)
				}
			}},
	})
}
