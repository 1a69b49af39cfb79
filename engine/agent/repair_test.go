package agent

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
)

// TestDrainOfUnreachableNode: a pod already being deleted and past its
// grace period does not hold up the drain of a node that is not Ready (no
// kubelet will confirm it gone; node repair replaces such nodes), but on a
// Ready node, or before its grace period ends, the drain waits for it.
func TestDrainOfUnreachableNode(t *testing.T) {
	cases := []struct {
		name     string
		ready    corev1.ConditionStatus
		deleteIn time.Duration // the pod's deletion timestamp from now
		want     bool
	}{
		{"unreachable node, grace period over: drained", corev1.ConditionUnknown, -time.Minute, true},
		{"NotReady node, grace period over: drained", corev1.ConditionFalse, -time.Second, true},
		{"unreachable node, grace period running: waits", corev1.ConditionUnknown, time.Minute, false},
		{"Ready node, grace period over: waits for the kubelet", corev1.ConditionTrue, -time.Minute, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claim := testClaim("p-sick", "m5.large")
			claim.Status.NodeName = "n1"
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"},
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: tc.ready}}}}
			pod := budgetPod("web-1", "n1")
			pod.Finalizers = []string{"example.com/hold"}
			ctrls, c, _, clk := testAgentWith(t, nil, claim, node, pod)
			ctx := context.Background()
			if err := c.Delete(ctx, pod); err != nil {
				t.Fatal(err)
			}
			got := &corev1.Pod{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(pod), got); err != nil {
				t.Fatal(err)
			}
			// The fake stamps deletion at its own now; move the clock so
			// the deletion time is tc.deleteIn away.
			clk.SetTime(got.DeletionTimestamp.Add(-tc.deleteIn))
			if err := c.Delete(ctx, claim); err != nil {
				t.Fatal(err)
			}
			cur := &v1.NodeClaim{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(claim), cur); err != nil {
				t.Fatal(err)
			}
			n := &corev1.Node{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(node), n); err != nil {
				t.Fatal(err)
			}
			done, err := ctrls.termination.drain(ctx, cur, n)
			if err != nil {
				t.Fatal(err)
			}
			if done != tc.want {
				t.Errorf("drained = %v, want %v", done, tc.want)
			}
		})
	}
}

// TestKeptReasonUnhealthyThreshold: a node repair leaves because its pool
// has too many unhealthy nodes says so in its Unconsolidatable reason.
func TestKeptReasonUnhealthyThreshold(t *testing.T) {
	k := consolidation.Kept{Node: "n1", Held: consolidation.HeldByUnhealthyThreshold, Method: consolidation.ReasonUnhealthy}
	if got := keptReason(k); got != "UnhealthyThreshold" {
		t.Errorf("keptReason = %q, want UnhealthyThreshold", got)
	}
}
