package agent

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// tainted reports whether node carries the disruption taint.
func tainted(t *testing.T, c client.Client, name string) bool {
	t.Helper()
	node := &corev1.Node{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: name}, node); err != nil {
		t.Fatal(err)
	}
	return hasTaint(node, disruptedTaint)
}

// TestPlanNodesCordoned (issue 18: pods evicted twice): every node the
// plan's commands remove carries the disruption taint, put on before the
// first command runs, so pods an earlier command evicts do not land on a
// node a later one removes.
func TestPlanNodesCordoned(t *testing.T) {
	objs := append(twoNodes(claimOf("p-def", "n2")), namedNode("n3", "fake://p-ghi"), claimOf("p-ghi", "n3"), boundPod("c", "n3"))
	a, c, _, clk := testAgent(t, objs...)
	if err := a.disruption.consolidate(context.Background(), clk.Now()); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n2", "n3"} {
		if !tainted(t, c, n) {
			t.Errorf("%s, removed by the plan, is not tainted", n)
		}
	}
	if tainted(t, c, "n1") {
		t.Error("n1, which the plan keeps, is tainted")
	}
}

// TestAbandonedCommandUncordoned: a command whose pods no longer fit is
// abandoned, and its node loses the taint (it stays, and takes pods).
func TestAbandonedCommandUncordoned(t *testing.T) {
	big := boundPod("b", "n2")
	big.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1900m")
	objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(), pinnedPod("a", "n1"),
		namedNode("n2", "fake://p-def"), claimOf("p-def", "n2"), big}
	a, c, _, clk := testAgent(t, objs...)
	ctx := context.Background()
	v, err := a.disruption.observe(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	cmd := consolidation.Command{Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n2"},
		Moves: []consolidation.Move{{Pod: "default/b", From: "n2", To: "n1"}}, Detail: "delete the node: the pods fit on other nodes"}
	if err := a.disruption.executeAll(ctx, v, []consolidation.Command{cmd}, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if getClaim(t, c, "p-def").DeletionTimestamp != nil {
		t.Fatal("n2 removed although its pod fits nowhere else")
	}
	if tainted(t, c, "n2") {
		t.Error("n2 still tainted after its command was abandoned")
	}
	if held := a.disruption.inflight.get("n2"); held != "" {
		t.Errorf("n2 still in flight: %q", held)
	}
}

// TestStaleCordonRemoved: a node left tainted by an agent restarted
// mid-command (its claim not being deleted, no command holding it) loses
// the taint at the next consolidation tick.
func TestStaleCordonRemoved(t *testing.T) {
	n2 := namedNode("n2", "fake://p-def")
	n2.Spec.Taints = []corev1.Taint{disruptedTaint}
	objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(), pinnedPod("a", "n1"),
		n2, claimOf("p-def", "n2"), pinnedPod("b", "n2")}
	a, c, _, clk := testAgent(t, objs...)
	if err := a.disruption.consolidate(context.Background(), clk.Now()); err != nil {
		t.Fatal(err)
	}
	if tainted(t, c, "n2") {
		t.Error("n2 keeps a disruption taint nothing needs")
	}
}

// TestPodsChangedOn: a command whose nodes gained or lost a workload pod
// since its plan is not run (a scale-down in progress deletes pods whose
// budget's status lags); daemonset pods and other nodes do not count.
func TestPodsChangedOn(t *testing.T) {
	pod := func(name, node string, ds bool) *state.Pod {
		return &state.Pod{Namespace: "default", Name: name, NodeName: node, DaemonSet: ds}
	}
	base := []*state.Pod{pod("a", "n1", false), pod("b", "n1", false), pod("c", "n2", false), pod("ds", "n1", true)}
	for _, tc := range []struct {
		name string
		now  []*state.Pod
		want bool
	}{
		{"unchanged", base, false},
		{"a pod left the node", []*state.Pod{pod("b", "n1", false), pod("c", "n2", false), pod("ds", "n1", true)}, true},
		{"a pod came to the node", append(slices.Clone(base), pod("d", "n1", false)), true},
		{"a pod moved off the node", []*state.Pod{pod("a", "n2", false), pod("b", "n1", false), pod("c", "n2", false), pod("ds", "n1", true)}, true},
		{"another node changed", []*state.Pod{pod("a", "n1", false), pod("b", "n1", false), pod("ds", "n1", true)}, false},
		{"a daemonset pod went", []*state.Pod{pod("a", "n1", false), pod("b", "n1", false), pod("c", "n2", false)}, false},
	} {
		got := podsChangedOn(&state.Snapshot{Pods: base}, &state.Snapshot{Pods: tc.now}, []string{"n1"})
		if (got != "") != tc.want {
			t.Errorf("%s: podsChangedOn = %q, want changed %v", tc.name, got, tc.want)
		}
	}
}

// TestSteer: the planned-removal taint goes on the managed nodes the walk
// ends without, not on a node being removed already nor on a node without
// a claim, and comes off a node no longer leaving; a second pass with the
// same forecast writes nothing.
func TestSteer(t *testing.T) {
	stale := namedNode("n2", "fake://p-def")
	stale.Spec.Taints = []corev1.Taint{plannedRemovalTaint}
	going := namedNode("n4", "fake://p-jkl")
	going.Spec.Taints = []corev1.Taint{disruptedTaint}
	objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(),
		stale, claimOf("p-def", "n2"), namedNode("n3", "fake://p-ghi"), going, claimOf("p-jkl", "n4")}
	a, c, _, clk := testAgent(t, objs...)
	ctx := context.Background()
	v, err := a.disruption.observe(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.disruption.steer(ctx, v, []string{"n1", "n3", "n4"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"n1": true, "n2": false, "n3": false, "n4": false}
	for name, on := range want {
		node := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			t.Fatal(err)
		}
		if got := hasTaint(node, plannedRemovalTaint); got != on {
			t.Errorf("%s: planned-removal taint %v; want %v", name, got, on)
		}
		if on && !slices.Contains(node.Spec.Taints, plannedRemovalTaint) {
			t.Errorf("%s: taints %v; want %v among them", name, node.Spec.Taints, plannedRemovalTaint)
		}
	}
	if v, err = a.disruption.observe(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if err := a.disruption.steer(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{}
	if err := c.Get(ctx, client.ObjectKey{Name: "n1"}, node); err != nil {
		t.Fatal(err)
	}
	if hasTaint(node, plannedRemovalTaint) {
		t.Error("n1 keeps the planned-removal taint after a plan with nothing leaving")
	}
}
