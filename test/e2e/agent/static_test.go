package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestStaticPoolKeepsItsReplicas is issue 23 item 3 end to end: a NodePool
// with replicas 2 gets two nodes of its cheapest type before any pod asks;
// pods land on them, but the agent opens no third node for a pod that
// does not fit (it stays pending, told why); a lost node is replaced;
// raising replicas to 3 launches the third node and the pod runs; lowering
// it to 1 removes the emptiest nodes.
func TestStaticPoolKeepsItsReplicas(t *testing.T) {
	e := require(t)
	ctx := context.Background()
	ns := namespace(t, e, "static")
	apply(t, e, ns, kwokClass("fixed")+"\n---\n"+poolYAML("fixed", "fixed", `        - key: node.kubernetes.io/instance-type
          operator: In
          values: [m5.large, m5.xlarge]
  replicas: 2
  disruption:
    consolidateAfter: 0s
    budgets: [{nodes: "100%"}]`))
	startAgent(t, e, "static")
	cleanupPool(t, e, ns, "fixed")
	// Cleanups run last first: the pool goes before cleanupPool deletes its
	// claims, or the agent would launch them again.
	t.Cleanup(func() {
		np := &v1.NodePool{}
		np.Name = "fixed"
		_ = e.client.Delete(ctx, np)
	})

	nodesAre := func(want int) func() (bool, string) {
		return func() (bool, string) {
			nodes := poolNodes(t, e, "fixed")
			live := 0
			for _, c := range poolClaims(t, e, "fixed") {
				if c.DeletionTimestamp == nil {
					live++
				}
			}
			return len(nodes) == want && live == want, fmt.Sprintf("nodes %v, claims %s", instanceTypes(nodes), describeClaims(t, e, "fixed"))
		}
	}
	waitFor(t, 30*time.Second, "two nodes before any pod", nodesAre(2))
	for _, typ := range instanceTypes(poolNodes(t, e, "fixed")) {
		if typ != "m5.large" {
			t.Fatalf("static node launched as %s; the pool's cheapest type is m5.large", typ)
		}
	}

	// Three pods of 1 CPU: an m5.large holds one; the third waits.
	apply(t, e, ns, deploymentYAML("steady", "fixed", 3, "1"))
	waitFor(t, 40*time.Second, "two pods Running on the static nodes, the third told why it waits", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=steady", "fixed")
		if running != 2 {
			return false, states
		}
		msgs := eventMessages(t, e, ns, "", "FailedScheduling")
		return containsAny(msgs, `nodepool "fixed" is static (replicas 2)`), fmt.Sprintf("%s; events %v", states, msgs)
	})
	time.Sleep(3 * time.Second)
	if ok, got := nodesAre(2)(); !ok {
		t.Fatalf("the agent launched a node in the static pool for a pending pod: %s", got)
	}

	// A lost node comes back.
	lost := poolClaims(t, e, "fixed")[0]
	if err := e.client.Delete(ctx, &lost); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the lost node replaced", func() (bool, string) {
		for _, c := range poolClaims(t, e, "fixed") {
			if c.Name == lost.Name {
				return false, "claim " + lost.Name + " still there"
			}
		}
		return nodesAre(2)()
	})

	setReplicas(t, e, "fixed", 3)
	waitFor(t, 60*time.Second, "three nodes and every pod Running", func() (bool, string) {
		if ok, got := nodesAre(3)(); !ok {
			return false, got
		}
		running, _, states := runningOn(t, e, ns, "app=steady", "fixed")
		return running == 3, states
	})

	// Down to one: two nodes go, their pods wait for room.
	scale(t, e, ns, "steady", 1)
	waitFor(t, 30*time.Second, "the Deployment down to one pod", func() (bool, string) {
		pods := listPods(t, e, ns, "app=steady")
		return len(pods) == 1, fmt.Sprintf("%d pods", len(pods))
	})
	setReplicas(t, e, "fixed", 1)
	waitFor(t, 90*time.Second, "one node left", nodesAre(1))
	running, _, states := runningOn(t, e, ns, "app=steady", "fixed")
	if running != 1 {
		t.Fatalf("the pod on the kept node is not Running: %s", states)
	}
}

// setReplicas patches a NodePool's replicas.
func setReplicas(t *testing.T, e env, pool string, replicas int64) {
	t.Helper()
	patch := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas))
	np := &v1.NodePool{}
	np.Name = pool
	if err := e.client.Patch(context.Background(), np, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
}
