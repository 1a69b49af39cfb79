package agent_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// deletionCostPolicy is a pool of m5.large nodes (four 400m pods each) that removes empty nodes
// 5 s after their last pod left, and never moves pods itself (WhenEmpty): a node goes only if the
// scale-down empties it.
var deletionCostPolicy = kwokClass("dcost") + "\n---\n" + poolYAML("dcost", "dcost", `        - key: node.kubernetes.io/instance-type
          operator: In
          values: [m5.large]
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5s`)

// orderedDeployment is one pod filling a node, whose template sets its own deletion cost: a
// ReplicaSet a user orders, which the agent must leave alone.
const orderedDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ordered
spec:
  replicas: 1
  selector:
    matchLabels:
      app: ordered
  template:
    metadata:
      labels:
        app: ordered
      annotations:
        controller.kubernetes.io/pod-deletion-cost: "7"
    spec:
      terminationGracePeriodSeconds: 0
      nodeSelector:
        tenon.dev/nodepool: dcost
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources:
            requests:
              cpu: 1800m
`

// TestPodDeletionCostEmptiesTheFirstRankedNode: with --pod-deletion-cost, the agent writes
// controller.kubernetes.io/pod-deletion-cost on the ReplicaSet pods (the test fails if it does
// not), lowest on the node with the fewest replicas; a scale-down of exactly that node's replicas
// then deletes them there (the ReplicaSet controller would otherwise delete from the nodes with
// the most replicas, which empties none), so the node is empty and removed, with no eviction and
// no other pod touched. A Deployment whose pods carry their own deletion cost keeps it.
func TestPodDeletionCostEmptiesTheFirstRankedNode(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "dcost")
	ctx := context.Background()
	apply(t, e, ns, deletionCostPolicy)
	agentProc := startAgent(t, e, "dcost", "--pod-deletion-cost")
	cleanupPool(t, e, ns, "dcost")
	apply(t, e, ns, orderedDeployment)
	apply(t, e, ns, deploymentYAML("web", "dcost", 10, "400m"))
	waitFor(t, 90*time.Second, "11 pods Running", func() (bool, string) {
		web, _, _ := runningOn(t, e, ns, "app=web", "dcost")
		ordered, _, _ := runningOn(t, e, ns, "app=ordered", "dcost")
		return web == 10 && ordered == 1, fmt.Sprintf("%d web and %d ordered running", web, ordered)
	})

	// Every web pod gets the agent's value, recorded as the agent's.
	var costs map[string]int // pod name -> deletion cost
	waitFor(t, 60*time.Second, "every web pod's deletion cost written", func() (bool, string) {
		costs = map[string]int{}
		var missing []string
		for _, p := range listPods(t, e, ns, "app=web") {
			v, err := strconv.Atoi(p.Annotations[v1.AnnotationPodDeletionCost])
			if err != nil || p.Annotations[v1.AnnotationPodDeletionCostOwned] != p.Annotations[v1.AnnotationPodDeletionCost] {
				missing = append(missing, fmt.Sprintf("%s %v", p.Name, p.Annotations))
				continue
			}
			costs[p.Name] = v
		}
		return len(missing) == 0 && len(costs) == 10, "not written: " + strings.Join(missing, "; ")
	})
	pods := listPods(t, e, ns, "app=web")
	byNode := map[string][]string{}
	costOf := map[string]int{}
	for _, p := range pods {
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p.Name)
		if c, ok := costOf[p.Spec.NodeName]; ok && c != costs[p.Name] {
			t.Fatalf("pods of node %s have different costs %d and %d", p.Spec.NodeName, c, costs[p.Name])
		}
		costOf[p.Spec.NodeName] = costs[p.Name]
	}
	nodes := slices.Sorted(maps.Keys(byNode))
	first := slices.MinFunc(nodes, func(a, b string) int { return costOf[a] - costOf[b] })
	k, most := len(byNode[first]), 0
	for _, n := range nodes {
		if len(byNode[n]) < k {
			t.Errorf("node %s holds %d web pods, fewer than the first-ranked %s's %d", n, len(byNode[n]), first, k)
		}
		most = max(most, len(byNode[n]))
	}
	if k == most {
		t.Fatalf("every node holds %d web pods (%v): the test needs a node with fewer, where the ReplicaSet controller would not delete first", k, byNode)
	}
	for _, p := range listPods(t, e, ns, "app=ordered") {
		if p.Annotations[v1.AnnotationPodDeletionCost] != "7" || p.Annotations[v1.AnnotationPodDeletionCostOwned] != "" {
			t.Errorf("the ordered pod's own deletion cost changed: %v", p.Annotations)
		}
	}
	t.Logf("web pods per node %v, costs per node %v; scaling down by %d, the pods of %s", byNode, costOf, k, first)

	// Let kube-controller-manager's informer see the last write.
	time.Sleep(time.Second)
	scale(t, e, ns, "web", int32(10-k))
	waitFor(t, 60*time.Second, fmt.Sprintf("the first-ranked node %s empty and removed", first), func() (bool, string) {
		node := &corev1.Node{}
		err := e.client.Get(ctx, client.ObjectKey{Name: first}, node)
		web, total, states := runningOn(t, e, ns, "app=web", "dcost")
		return client.IgnoreNotFound(err) == nil && err != nil && web == 10-k && total == 10-k,
			fmt.Sprintf("node present: %v; %d web running of %d: %s", err == nil, web, total, states)
	})
	for _, p := range listPods(t, e, ns, "app=web") {
		if !slices.ContainsFunc(pods, func(q corev1.Pod) bool { return q.UID == p.UID }) {
			t.Errorf("web pod %s on %s is new: the scale-down or a drain replaced a pod", p.Name, p.Spec.NodeName)
		}
	}
	if ev := counters(t, agentProc.metricsAddr, "tenon_pod_evictions_total"); ev[`result="evicted"`] != 0 {
		t.Errorf("the agent evicted %v pods; the scale-down alone emptied the node", ev)
	}
	writes := counters(t, agentProc.metricsAddr, "tenon_pod_deletion_cost_writes_total")
	if n := writes[`action="set",result="written"`]; n > 2*10 {
		t.Errorf("the agent wrote %d deletion costs for 10 web pods: the ranking churns", n)
	}
	t.Logf("deletion-cost writes %v; nodes now %v", writes, instanceTypes(poolNodes(t, e, "dcost")))
}
