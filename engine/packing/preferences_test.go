package packing_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestPreferencesAreNotRequirements: a preference never leaves a pod
// Pending that its required terms allow, never breaks a required rule, and
// is relaxed in Karpenter's order (preferences.go).
func TestPreferencesAreNotRequirements(t *testing.T) {
	def := statetest.Pool("default")
	twoZones := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, "us-east-1a", "us-east-1b")))
	zonal := statetest.Snapshot(statetest.Pools(def), nil, nil)
	s2 := map[string]string{"security": "s2"}
	test := map[string]string{"test": "test"}
	zoneIs := func(pod, want string) func(t *testing.T, r *packing.Result) {
		return func(t *testing.T, r *packing.Result) {
			t.Helper()
			if got := claimOf(r, nodeOf(r, pod)).Chosen().Zone; got != want {
				t.Errorf("%s in %s, want %s", pod, got, want)
			}
		}
	}
	perZone := func(prefix string, n int, want map[string]int) func(t *testing.T, r *packing.Result) {
		return func(t *testing.T, r *packing.Result) {
			t.Helper()
			got := map[string]int{}
			for i := range n {
				got[zoneOfPod(r, zonal, prefix+"-"+strconv.Itoa(i))]++
			}
			for z, w := range want {
				if got[z] != w {
					t.Errorf("%s pods per zone %v, want %v", prefix, got, want)
					return
				}
			}
		}
	}
	zonePods := func(anti func(string, map[string]string) statetest.PodOption) []*state.Pod {
		var out []*state.Pod
		for i, z := range statetest.Zones {
			out = append(out, statetest.Pod("z"+strconv.Itoa(i+1), "2", "1Gi", statetest.WithNodeSelector(scheduling.LabelTopologyZone, z), anti(scheduling.LabelTopologyZone, s2)))
		}
		return out
	}
	runCases(t, []constraintCase{
		{name: "only the heaviest preferred node affinity term is enforced, the next heaviest tried when it fails",
			snap: statetest.Snapshot(statetest.Pools(twoZones), nil, nil),
			pods: one(statetest.Pod("a", "1", "1Gi",
				statetest.WithPreferredNodeAffinity(1, scheduling.LabelTopologyZone, "us-east-1a"),
				statetest.WithPreferredNodeAffinity(100, scheduling.LabelInstanceType, "no-such-type"),
				statetest.WithPreferredNodeAffinity(50, scheduling.LabelTopologyZone, "us-east-1b"))),
			placed: []string{"a"}, check: zoneIs("a", "us-east-1b")},
		{name: "two preferences for different zones do not add up to an impossible one", snap: zonal,
			pods: one(statetest.Pod("a", "1", "1Gi",
				statetest.WithPreferredNodeAffinity(10, scheduling.LabelTopologyZone, "us-east-1c"),
				statetest.WithPreferredNodeAffinity(5, scheduling.LabelTopologyZone, "us-east-1b"))),
			placed: []string{"a"}, check: zoneIs("a", "us-east-1c")},
		{name: "preferred anti-affinity of other pods does not keep a pod out",
			snap: zonal, pods: append(zonePods(statetest.WithPreferredAntiAffinity), statetest.Pod("aff", "100m", "100Mi", statetest.WithLabel("security", "s2"))),
			placed: []string{"z1", "z2", "z3", "aff"}},
		{name: "preferred anti-affinity is violated rather than leaving the pod Pending", snap: zonal,
			pods: append(statetest.Pods(3, "p", "100m", "100Mi", statetest.WithLabel("test", "test"), statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, test)),
				statetest.Pods(4, "aff", "100m", "100Mi", statetest.WithPreferredAntiAffinity(scheduling.LabelTopologyZone, test))...),
			placed: []string{"p-0", "p-1", "p-2", "aff-0", "aff-1", "aff-2", "aff-3"}},
		{name: "a preferred zone does not narrow a DoNotSchedule spread's domains", snap: zonal,
			pods: statetest.Pods(6, "s", "100m", "100Mi", statetest.WithLabel("test", "test"),
				statetest.WithPreferredNodeAffinity(1, scheduling.LabelTopologyZone, "us-east-1a", "us-east-1b"),
				statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, test)),
			placed: []string{"s-0", "s-5"}, check: perZone("s", 6, map[string]int{"us-east-1a": 2, "us-east-1b": 2, "us-east-1c": 2})},
		{name: "among existing nodes, the greater sum of matched preference weights first",
			snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{
				statetest.Node(def, "n1-on-demand", "m5.xlarge", "us-east-1a"),
				statetest.Node(def, "n2-spot", "m5.xlarge", "us-east-1a", statetest.WithCapacityType(scheduling.CapacityTypeSpot)),
				statetest.Node(def, "n3-other-zone", "m5.xlarge", "us-east-1b", statetest.WithCapacityType(scheduling.CapacityTypeSpot)),
			}, nil),
			pods: one(statetest.Pod("a", "1", "1Gi",
				statetest.WithPreferredNodeAffinity(50, scheduling.LabelTopologyZone, "us-east-1a"),
				statetest.WithPreferredNodeAffinity(10, scheduling.LabelCapacityType, scheduling.CapacityTypeSpot))),
			placed: []string{"a"}, check: func(t *testing.T, r *packing.Result) {
				if got := nodeOf(r, "a"); got != "n2-spot" {
					t.Errorf("on %s, want n2-spot (zone and capacity type preferred, 60 against 50 and 10)", got)
				}
			}},
		{name: "a spread counting none of the pods does not pull them apart", snap: zonal,
			pods:   statetest.Pods(2, "n", "100m", "100Mi", statetest.WithLabel("app", "n"), statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, test)),
			placed: []string{"n-0", "n-1"}, check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "n-0") != nodeOf(r, "n-1") {
					t.Errorf("on %s and %s, want one node", nodeOf(r, "n-0"), nodeOf(r, "n-1"))
				}
			}},
	})
}

// TestQueueOrderDecidesCompetingAntiAffinity: when a pod's zonal
// anti-affinity and pods it repels cannot all run, the one kube-scheduler
// takes first (priority, then creation time) wins.
func TestQueueOrderDecidesCompetingAntiAffinity(t *testing.T) {
	def := statetest.Pool("default")
	s2 := map[string]string{"security": "s2"}
	at := func(sec int) statetest.PodOption {
		return func(p *state.Pod) { p.CreatedAt = time.Unix(int64(sec), 0) }
	}
	zonePods := func() []*state.Pod {
		var out []*state.Pod
		for i, z := range statetest.Zones {
			out = append(out, statetest.Pod("z"+strconv.Itoa(i+1), "2", "1Gi", statetest.WithLabel("security", "s2"), statetest.WithNodeSelector(scheduling.LabelTopologyZone, z), at(10+i)))
		}
		return out
	}
	snap := func(pods []*state.Pod) *state.Snapshot { return statetest.Snapshot(statetest.Pools(def), nil, pods) }
	older := append(zonePods(), statetest.Pod("aff", "100m", "100Mi", statetest.WithAntiAffinity(scheduling.LabelTopologyZone, s2), at(20)))
	newer := append(zonePods(), statetest.Pod("aff", "100m", "100Mi", statetest.WithAntiAffinity(scheduling.LabelTopologyZone, s2), at(1)))
	urgent := append(zonePods(), statetest.Pod("aff", "100m", "100Mi", statetest.WithAntiAffinity(scheduling.LabelTopologyZone, s2), at(20), statetest.WithPriority(100)))
	runCases(t, []constraintCase{
		{name: "pods created first bind first", snap: snap(older), pods: older,
			placed: []string{"z1", "z2", "z3"}, refused: map[string]string{"aff": "anti-affinity"}},
		{name: "the anti-affine pod created first keeps its zone", snap: snap(newer), pods: newer,
			placed: []string{"aff"}, check: oneRefused("z1", "z2", "z3")},
		{name: "higher priority goes first whatever the creation time", snap: snap(urgent), pods: urgent,
			placed: []string{"aff"}, check: oneRefused("z1", "z2", "z3")},
	})
}

// oneRefused checks that exactly one of the pods is unschedulable, for
// anti-affinity.
func oneRefused(pods ...string) func(t *testing.T, r *packing.Result) {
	return func(t *testing.T, r *packing.Result) {
		t.Helper()
		refused := 0
		for _, p := range pods {
			if reason := reasonOf(r, p); reason != "" {
				refused++
				if !strings.Contains(reason, "anti-affinity") {
					t.Errorf("%s: reason %q does not name the anti-affinity", p, reason)
				}
			}
		}
		if refused != 1 {
			t.Errorf("%d of %v unschedulable, want 1", refused, pods)
		}
	}
}

// TestExistingNodeState: initialized nodes are used before uninitialized
// ones and in-flight claims, and the taints that lift once a node is
// ready do not keep pods off it.
func TestExistingNodeState(t *testing.T) {
	def := statetest.Pool("default")
	node := func(name string, initialized, notReady bool, taints ...corev1.Taint) *state.Node {
		n := statetest.Node(def, name, "m5.xlarge", "us-east-1a")
		n.Initialized, n.NotReady, n.Taints = initialized, notReady, taints
		return n
	}
	inFlight := node("a-claim", false, false)
	inFlight.InFlight = true
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	notReadyExec := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
	readiness := corev1.Taint{Key: "readiness.k8s.io/network", Effect: corev1.TaintEffectNoSchedule}
	on := func(pod, want string) func(t *testing.T, r *packing.Result) {
		return func(t *testing.T, r *packing.Result) {
			t.Helper()
			if got := nodeOf(r, pod); got != want {
				t.Errorf("%s on %s, want %s", pod, got, want)
			}
			if len(r.Claims) != 0 {
				t.Errorf("%d new claims, want none", len(r.Claims))
			}
		}
	}
	snap := func(nodes ...*state.Node) *state.Snapshot {
		return statetest.Snapshot(statetest.Pools(def), nodes, nil)
	}
	p := func() []*state.Pod { return one(statetest.Pod("b", "100m", "100Mi")) }
	runCases(t, []constraintCase{
		{name: "initialized before uninitialized", snap: snap(node("a-starting", false, true), node("z-ready", true, false)), pods: p(), placed: []string{"b"}, check: on("b", "z-ready")},
		{name: "initialized before in-flight", snap: snap(inFlight, node("z-ready", true, false)), pods: p(), placed: []string{"b"}, check: on("b", "z-ready")},
		{name: "not-ready NoExecute of an uninitialized node ignored", snap: snap(node("n", false, true, notReadyExec)), pods: p(), placed: []string{"b"}, check: on("b", "n")},
		{name: "readiness controller taint of an uninitialized node ignored", snap: snap(node("n", false, true, readiness)), pods: p(), placed: []string{"b"}, check: on("b", "n")},
		{name: "Kubernetes taints of a NotReady initialized node ignored", snap: snap(node("n", true, true, notReady)), pods: p(), placed: []string{"b"}, check: on("b", "n")},
		{name: "Kubernetes taints of a Ready initialized node kept", snap: snap(node("n", true, false, notReady)), pods: p(), placed: []string{"b"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "b") == "n" {
					t.Error("placed on a Ready node whose not-ready taint it does not tolerate")
				}
			}},
	})
}
