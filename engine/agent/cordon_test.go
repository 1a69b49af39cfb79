package agent

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
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
