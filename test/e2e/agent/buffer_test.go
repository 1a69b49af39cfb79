package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestCapacityBufferKeepsRoomForABurst is issue 23 item 2 end to end: a NodePool with a buffer
// of three 1-CPU pods gets a node before any pod asks, and consolidation leaves it although no
// pod runs there; a burst of three real pods schedules on that room without a launch; then the
// agent launches a node for the buffer again, and keeps it.
func TestCapacityBufferKeepsRoomForABurst(t *testing.T) {
	e := require(t)
	ctx := context.Background()
	ns := namespace(t, e, "buffer")
	apply(t, e, ns, kwokClass("buffered")+"\n---\n"+poolYAML("buffered", "buffered", `        - key: node.kubernetes.io/instance-type
          operator: In
          values: [m5.xlarge]
  buffer:
    pods: 3
    resources: {cpu: "1", memory: 1Gi}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets: [{nodes: "100%"}]`))
	startAgent(t, e, "buffer")
	cleanupPool(t, e, ns, "buffered")
	// Cleanups run last first: the pool goes before cleanupPool deletes its claims, or the
	// agent would launch them again for the buffer.
	t.Cleanup(func() {
		np := &v1.NodePool{}
		np.Name = "buffered"
		_ = e.client.Delete(ctx, np)
	})

	claimNames := func() []string {
		var out []string
		for _, c := range poolClaims(t, e, "buffered") {
			if c.DeletionTimestamp == nil {
				out = append(out, c.Name)
			}
		}
		return out
	}
	nodesAre := func(want int) func() (bool, string) {
		return func() (bool, string) {
			nodes := poolNodes(t, e, "buffered")
			return len(nodes) == want && len(claimNames()) == want, fmt.Sprintf("nodes %v, claims %s", instanceTypes(nodes), describeClaims(t, e, "buffered"))
		}
	}
	waitFor(t, 30*time.Second, "one node for the buffer before any pod", nodesAre(1))
	room := poolNodes(t, e, "buffered")[0].Name
	// consolidateAfter is 0s: without the buffer the empty node would go within seconds.
	time.Sleep(5 * time.Second)
	if ok, got := nodesAre(1)(); !ok {
		t.Fatalf("the buffer's node did not stay: %s", got)
	}

	before := claimNames()
	apply(t, e, ns, deploymentYAML("burst", "buffered", 3, "1"))
	waitFor(t, 20*time.Second, "the burst Running on the buffer's node", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=burst", "buffered")
		if running != 3 {
			return false, states
		}
		for _, p := range listPods(t, e, ns, "app=burst") {
			if p.Spec.NodeName != room {
				return false, fmt.Sprintf("pod %s on %s, not the buffer's node %s", p.Name, p.Spec.NodeName, room)
			}
		}
		return true, states
	})
	// The burst took the room the buffer kept: the node it runs on was launched before it.
	for _, p := range listPods(t, e, ns, "app=burst") {
		if p.Spec.NodeName != room {
			t.Fatalf("pod %s on %s: the burst needed a launch (claims before it: %v)", p.Name, p.Spec.NodeName, before)
		}
	}

	waitFor(t, 40*time.Second, "the buffer restored on a second node", nodesAre(2))
	time.Sleep(5 * time.Second)
	if ok, got := nodesAre(2)(); !ok {
		t.Fatalf("consolidation took the restored buffer's node: %s", got)
	}
	running, _, states := runningOn(t, e, ns, "app=burst", "buffered")
	if running != 3 {
		t.Fatalf("the burst is not Running after the buffer was restored: %s", states)
	}
}
