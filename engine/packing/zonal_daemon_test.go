package packing_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
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

// An existing node keeps room for each daemonset that selects it but has
// no pod bound there yet (a node just registered), and only for those:
// a daemonset whose pod is there already, or that selects other nodes,
// reserves nothing more.
func TestExistingNodeDaemonSetRoom(t *testing.T) {
	def := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.xlarge", "m5.2xlarge")))
	agent := statetest.DaemonSet("agent", "2", "256Mi")
	gpuOnly := statetest.DaemonSet("gpu", "2", "256Mi", statetest.WithNodeSelector("accelerator", "nvidia"))
	node := func() *state.Node { return statetest.Node(def, "n1", "m5.xlarge", "us-east-1a") }
	web := statetest.Pod("web", "1", "1Gi", statetest.BoundTo("n1"))
	agentPod := statetest.Pod("agent-n1", "2", "256Mi", statetest.BoundTo("n1"), statetest.OwnedBy("DaemonSet", "agent"), func(p *state.Pod) { p.DaemonSet = true })
	onNode := func(name string) func(t *testing.T, r *packing.Result) {
		return func(t *testing.T, r *packing.Result) {
			if got := nodeOf(r, name); got != "n1" {
				t.Errorf("%s on %q, want n1", name, got)
			}
		}
	}
	onClaim := func(name string) func(t *testing.T, r *packing.Result) {
		return func(t *testing.T, r *packing.Result) {
			if got := nodeOf(r, name); got == "n1" || len(r.Claims) != 1 {
				t.Errorf("%s on %q with %d claims, want a new claim: n1's spare 2.92 cpu less the 2 the agent's pod will take is too little", name, got, len(r.Claims))
			}
		}
	}
	runCases(t, []constraintCase{
		{name: "the daemonset's pod is not on the node yet: its room is reserved",
			snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{node()}, []*state.Pod{web}, agent),
			pods: one(statetest.Pod("a", "2", "1Gi")), placed: []string{"a"}, check: onClaim("a")},
		{name: "the daemonset's pod is there: nothing more is reserved",
			snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{node()}, []*state.Pod{web, agentPod}, agent),
			pods: one(statetest.Pod("a", "900m", "1Gi")), placed: []string{"a"}, check: onNode("a")},
		{name: "a daemonset selecting other nodes reserves nothing",
			snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{node()}, []*state.Pod{web}, gpuOnly),
			pods: one(statetest.Pod("a", "2", "1Gi")), placed: []string{"a"}, check: onNode("a")},
	})
}
