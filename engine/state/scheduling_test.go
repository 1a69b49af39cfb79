package state_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestNodeLabelIsNodeLabels checks that NodeLabel gives every key what
// NodeLabels lists, and "" for a key it does not, with template labels
// and requirements overriding the type's.
func TestNodeLabelIsNodeLabels(t *testing.T) {
	p := statetest.Pool("default", statetest.WithTemplateLabel("team", "a"),
		statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceFamily, "m5")))
	for _, name := range []string{"m5.large", "c6a.xlarge", "t3a.micro"} {
		it, ok := statetest.Catalog().Get(name)
		if !ok {
			t.Fatalf("no %s in the catalog", name)
		}
		labels := p.NodeLabels(it, "us-east-1b", scheduling.CapacityTypeSpot, "default-7")
		for key, want := range labels {
			if got := p.NodeLabel(it, "us-east-1b", scheduling.CapacityTypeSpot, "default-7", key); got != want {
				t.Errorf("%s: NodeLabel(%s) = %q, NodeLabels has %q", name, key, got, want)
			}
		}
		if labels[scheduling.LabelInstanceFamily] != "m5" || labels["team"] != "a" || labels[scheduling.LabelHostname] != "default-7" {
			t.Errorf("%s: labels %v", name, labels)
		}
		if got := p.NodeLabel(it, "us-east-1b", scheduling.CapacityTypeSpot, "default-7", "absent"); got != "" {
			t.Errorf("%s: NodeLabel(absent) = %q", name, got)
		}
	}
}

func TestHostPortsClash(t *testing.T) {
	tcp80 := state.HostPort{Port: 80}
	tests := []struct {
		name string
		a, b state.HostPort
		want bool
	}{
		{"same port, TCP by default", tcp80, state.HostPort{Protocol: corev1.ProtocolTCP, Port: 80}, true},
		{"other protocol", tcp80, state.HostPort{Protocol: corev1.ProtocolUDP, Port: 80}, false},
		{"other port", tcp80, state.HostPort{Port: 81}, false},
		{"every IP against one", state.HostPort{IP: "0.0.0.0", Port: 80}, state.HostPort{IP: "10.0.0.1", Port: 80}, true},
		{"two IPs", state.HostPort{IP: "10.0.0.2", Port: 80}, state.HostPort{IP: "10.0.0.1", Port: 80}, false},
	}
	for _, tt := range tests {
		if got := state.HostPortsClash([]state.HostPort{tt.a}, []state.HostPort{tt.b}); got != tt.want {
			t.Errorf("%s: clash %t, want %t", tt.name, got, tt.want)
		}
	}
}

// TestDaemonSetRunsOn checks the daemonset rule: taints tolerated, node
// selector and node affinity satisfied, and an unparsable affinity runs
// nowhere.
func TestDaemonSetRunsOn(t *testing.T) {
	labels := map[string]string{"accelerator": "nvidia", scheduling.LabelTopologyZone: "us-east-1a"}
	gpu := statetest.DaemonSet("gpu", "100m", "64Mi", statetest.WithNodeSelector("accelerator", "nvidia"))
	zoneB := statetest.DaemonSet("b", "100m", "64Mi", statetest.WithRequiredNodeAffinity(scheduling.LabelTopologyZone, corev1.NodeSelectorOpIn, "us-east-1b"))
	broken := statetest.DaemonSet("broken", "100m", "64Mi", statetest.WithRequiredNodeAffinity("x", corev1.NodeSelectorOpGt, "not-a-number"))
	taint := []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	if !gpu.RunsOn(labels, nil) || gpu.RunsOn(labels, taint) || zoneB.RunsOn(labels, nil) || broken.RunsOn(labels, nil) {
		t.Error("RunsOn disagrees with the node selector, the affinity or the taint")
	}
	tolerant := statetest.DaemonSet("gpu", "100m", "64Mi", statetest.WithToleration("dedicated", "gpu", corev1.TaintEffectNoSchedule))
	if !tolerant.RunsOn(labels, taint) {
		t.Error("a daemonset tolerating the taint does not run")
	}
}

func TestSchedulingTaints(t *testing.T) {
	startup := corev1.Taint{Key: "cni", Effect: corev1.TaintEffectNoSchedule}
	hard := corev1.Taint{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	notReadyExec := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule}
	readiness := corev1.Taint{Key: "readiness.k8s.io/cni", Effect: corev1.TaintEffectNoSchedule}
	all := []corev1.Taint{startup, hard, notReady, notReadyExec, unreachable, readiness}
	p := &state.Pool{StartupTaints: []corev1.Taint{startup}}
	for _, tc := range []struct {
		name                  string
		initialized, notReady bool
		pool                  *state.Pool
		want                  []string
	}{
		{"starting node: only the lasting taint", false, true, p, []string{"dedicated"}},
		{"starting node of no pool keeps unknown startup taints", false, true, nil, []string{"cni", "dedicated"}},
		{"initialized and Ready: every taint", true, false, p, []string{"cni", "dedicated", corev1.TaintNodeNotReady, corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, "readiness.k8s.io/cni"}},
		{"initialized but NotReady: the ephemeral taints lift, startup taints stay", true, true, p, []string{"cni", "dedicated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &state.Node{Taints: all, Initialized: tc.initialized, NotReady: tc.notReady}
			var got []string
			for _, taint := range n.SchedulingTaints(tc.pool) {
				got = append(got, taint.Key)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("taints %v, want %v", got, tc.want)
			}
		})
	}
}
