package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/kwok"
)

// TestSpotInterruptionDrainsAndReplaces is the e2e test 7: a spot
// interruption notice (the kwok cloud's simulated event source: an
// annotation on the node) makes the agent drain the node and run its pods
// elsewhere before the notice's 2-minute deadline.
func TestSpotInterruptionDrainsAndReplaces(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "interrupt")
	ctx := context.Background()
	apply(t, e, ns, kwokClass("interrupt")+"\n---\n"+poolYAML("interrupt", "interrupt", ""))
	startAgent(t, e, "interrupt")
	cleanupPool(t, e, ns, "interrupt")
	apply(t, e, ns, deploymentYAML("victim", "interrupt", 2, "1"))
	waitFor(t, 30*time.Second, "2 pods Running", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=victim", "interrupt")
		return running == 2, states
	})
	nodes := poolNodes(t, e, "interrupt")
	victim := nodes[0]
	node := &corev1.Node{}
	if err := e.client.Get(ctx, client.ObjectKey{Name: victim.Name}, node); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(node.DeepCopy())
	node.Annotations[kwok.AnnotationInterruption] = "SpotInterruption"
	if err := e.client.Patch(ctx, node, patch); err != nil {
		t.Fatal(err)
	}
	deadline := 2 * time.Minute
	took := waitFor(t, deadline, "the interrupted node drained, gone, and both pods Running elsewhere", func() (bool, string) {
		gone := true
		for _, n := range poolNodes(t, e, "interrupt") {
			if n.Name == victim.Name {
				gone = false
			}
		}
		running, _, states := runningOn(t, e, ns, "app=victim", "interrupt")
		return gone && running == 2, fmt.Sprintf("node %s gone=%v; %s", victim.Name, gone, states)
	})
	t.Logf("replaced %s %s before the %s deadline", took.Round(100*time.Millisecond), "after the notice", deadline)
}
