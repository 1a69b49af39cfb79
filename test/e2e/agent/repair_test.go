package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/kwok"
)

// repairPolicy is a pool name that repairs nodes unhealthy for 10 s (with
// repairExtra added to its repair block) and never consolidates, and a
// Deployment of 3 pods, one per node (anti-affinity), guarded by a PDB with
// minAvailable 2.
func repairPolicy(name, repairExtra string) string {
	return kwokClass(name) + "\n---\n" + poolYAML(name, name, `  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
    repair:
      enabled: true
      toleration: 10s`+repairExtra) + strings.ReplaceAll(`
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: spread
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app: spread
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: spread
spec:
  replicas: 3
  selector:
    matchLabels:
      app: spread
  template:
    metadata:
      labels:
        app: spread
    spec:
      terminationGracePeriodSeconds: 0
      nodeSelector:
        tenon.dev/nodepool: POOL
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: kubernetes.io/hostname
              labelSelector:
                matchLabels:
                  app: spread
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources:
            requests:
              cpu: 500m
`, "POOL", name)
}

// TestNodeRepairReplacesNotReadyNode: a node that stops answering (KWOK
// no longer manages it, and it reports Ready Unknown, as the node
// controller marks a node whose kubelet is gone) is repaired once its
// pool's 10 s toleration passes: a replacement is launched and
// initialized first, then the node is drained through the Eviction API and
// deleted, and its pod runs on the replacement. The PDB (minAvailable 2)
// is never broken: at every sample at least 2 of the Deployment's pods are
// Ready on healthy nodes, and the agent forced no pod out.
func TestNodeRepairReplacesNotReadyNode(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "repair")
	apply(t, e, ns, repairPolicy("repair", ""))
	agentProc := startAgent(t, e, "repair")
	cleanupPool(t, e, ns, "repair")
	waitFor(t, 60*time.Second, "3 pods Running on 3 nodes", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=spread", "repair")
		return running == 3 && len(poolNodes(t, e, "repair")) == 3, states
	})
	victim := poolNodes(t, e, "repair")[0].Name
	var victimClaim string
	for _, c := range poolClaims(t, e, "repair") {
		if c.Status.NodeName == victim {
			victimClaim = c.Name
		}
	}
	makeUnreachable(t, e, victim)
	var victimDeleted *metav1.Time
	minReady := 3
	took := waitFor(t, 120*time.Second, "the unhealthy node replaced and 3 pods Running on healthy nodes", func() (bool, string) {
		for _, c := range poolClaims(t, e, "repair") {
			if c.Name == victimClaim && c.DeletionTimestamp != nil && victimDeleted == nil {
				victimDeleted = c.DeletionTimestamp
			}
		}
		ready := readyPodsOffNode(t, e, ns, "app=spread", victim)
		minReady = min(minReady, ready)
		gone := true
		for _, n := range poolNodes(t, e, "repair") {
			gone = gone && n.Name != victim
		}
		running, _, states := runningOn(t, e, ns, "app=spread", "repair")
		return gone && running == 3, fmt.Sprintf("victim %s gone=%v; %d ready off it; %s; claims: %s", victim, gone, ready, states, describeClaims(t, e, "repair"))
	})
	if minReady < 2 {
		t.Errorf("only %d pods were Ready on healthy nodes at one point; the PDB requires 2", minReady)
	}
	replacement := replacementOf(t, e, "repair", victim)
	if replacement == nil {
		t.Fatalf("no claim annotated as the replacement of %s; claims: %s", victim, describeClaims(t, e, "repair"))
	}
	initialized := meta.FindStatusCondition(replacement.Status.Conditions, v1.ConditionInitialized)
	switch {
	case victimDeleted == nil:
		t.Errorf("never saw the victim's claim %s being deleted", victimClaim)
	case initialized == nil || initialized.Status != metav1.ConditionTrue:
		t.Errorf("the replacement %s is not initialized", replacement.Name)
	case initialized.LastTransitionTime.After(victimDeleted.Time):
		t.Errorf("the replacement %s initialized at %s, after the victim's claim was deleted at %s: repair must launch first",
			replacement.Name, initialized.LastTransitionTime, victimDeleted)
	}
	ev := counters(t, agentProc.metricsAddr, "tenon_pod_evictions_total")
	if ev[`result="forced"`] != 0 {
		t.Errorf("the agent forced %d pods out; the drain must go through the Eviction API", ev[`result="forced"`])
	}
	repairs := counters(t, agentProc.metricsAddr, "tenon_node_repairs_total")
	if repairs[`condition="Ready",nodepool="repair"`] != 1 {
		t.Errorf("tenon_node_repairs_total = %v, want 1 for Ready in pool repair", repairs)
	}
	if !repairEventOn(t, e, victim) {
		t.Errorf("no %s event explains the repair on node %s", "Repairing", victim)
	}
	if !strings.Contains(agentProc.log.String(), "repairing node") {
		t.Errorf("the agent did not log the repair")
	}
	t.Logf("node %s repaired %s after it stopped answering (toleration 10s; the agent plans every 10s): replacement %s, evictions %v",
		victim, took.Round(100*time.Millisecond), replacement.Name, ev)
}

// makeUnreachable takes node away from KWOK (which then stops renewing its
// lease and running its pods, as when a kubelet dies) and reports it Ready
// Unknown, as the node controller does after its grace period. The kwok
// cloud still lists it: it is still this cluster's instance.
func makeUnreachable(t *testing.T, e env, name string) {
	t.Helper()
	ctx := context.Background()
	node := &corev1.Node{}
	if err := e.client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(node.DeepCopy())
	node.Annotations[kwok.AnnotationKWOKNode] = "unreachable"
	if err := e.client.Patch(ctx, node, patch); err != nil {
		t.Fatal(err)
	}
	if err := e.client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		t.Fatal(err)
	}
	status := client.MergeFrom(node.DeepCopy())
	now := metav1.Now()
	for i := range node.Status.Conditions {
		if c := &node.Status.Conditions[i]; c.Type == corev1.NodeReady {
			c.Status, c.Reason, c.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
			c.LastTransitionTime, c.LastHeartbeatTime = now, now
		}
	}
	if err := e.client.Status().Patch(ctx, node, status); err != nil {
		t.Fatal(err)
	}
}

// readyPodsOffNode counts the selected pods that are Ready, not being
// deleted, and not on node.
func readyPodsOffNode(t *testing.T, e env, ns, selector, node string) int {
	t.Helper()
	var pods corev1.PodList
	sel, err := metav1.ParseToLabelSelector(selector)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := metav1.LabelSelectorAsSelector(sel)
	if err := e.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: s}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || p.Spec.NodeName == node || p.Spec.NodeName == "" {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n
}

// replacementOf returns the claim the agent launched in pool to replace node.
func replacementOf(t *testing.T, e env, pool, node string) *v1.NodeClaim {
	t.Helper()
	for _, c := range poolClaims(t, e, pool) {
		if c.Annotations[v1.Group+"/replacement-of"] == node {
			return &c
		}
	}
	return nil
}

// repairEventOn reports whether a Repairing event was recorded on node.
func repairEventOn(t *testing.T, e env, node string) bool {
	t.Helper()
	var events corev1.EventList
	if err := e.client.List(context.Background(), &events); err != nil {
		t.Fatal(err)
	}
	for _, ev := range events.Items {
		if ev.InvolvedObject.Kind == "Node" && ev.InvolvedObject.Name == node && ev.Reason == "Repairing" &&
			strings.Contains(ev.Message, "Ready Unknown") {
			return true
		}
	}
	return false
}

// TestNodeRepairStopsAboveMaxUnhealthy: two of a pool's three nodes stop
// answering. That is more than its maxUnhealthy (20%, of 3 nodes rounded up:
// 1) allows, so repair leaves both, and says so on their NodeClaims
// (Unconsolidatable, reason UnhealthyThreshold); once the pool's
// maxUnhealthy is raised to 100% both are repaired, one at a time (the
// default budget, 10% of 3 rounded up), and the pods run on replacements.
func TestNodeRepairStopsAboveMaxUnhealthy(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "breaker")
	ctx := context.Background()
	apply(t, e, ns, repairPolicy("breaker", ""))
	startAgent(t, e, "breaker")
	cleanupPool(t, e, ns, "breaker")
	waitFor(t, 60*time.Second, "3 pods Running on 3 nodes", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=spread", "breaker")
		return running == 3 && len(poolNodes(t, e, "breaker")) == 3, states
	})
	nodes := poolNodes(t, e, "breaker")
	victims := []string{nodes[0].Name, nodes[1].Name}
	for _, v := range victims {
		makeUnreachable(t, e, v)
	}
	waitFor(t, 45*time.Second, "both unhealthy nodes held by the pool's maxUnhealthy", func() (bool, string) {
		held := 0
		for _, c := range poolClaims(t, e, "breaker") {
			cond := meta.FindStatusCondition(c.Status.Conditions, v1.ConditionUnconsolidatable)
			if slices.Contains(victims, c.Status.NodeName) && cond != nil && cond.Reason == "UnhealthyThreshold" &&
				strings.Contains(cond.Message, "2 of nodepool breaker's 3 nodes are unhealthy") {
				held++
			}
		}
		return held == 2, describeClaims(t, e, "breaker")
	})
	// Hold it a plan longer: nothing is replaced while the breaker is open.
	time.Sleep(11 * time.Second)
	if claims := poolClaims(t, e, "breaker"); len(claims) != 3 {
		t.Fatalf("the pool has %d claims while repair is stopped, want 3: %s", len(claims), describeClaims(t, e, "breaker"))
	}
	for _, c := range poolClaims(t, e, "breaker") {
		if c.DeletionTimestamp != nil {
			t.Fatalf("claim %s is being deleted while repair is stopped", c.Name)
		}
	}

	np := &v1.NodePool{}
	if err := e.client.Get(ctx, client.ObjectKey{Name: "breaker"}, np); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(np.DeepCopy())
	all := "100%"
	np.Spec.Disruption.Repair.MaxUnhealthy = &all
	if err := e.client.Patch(ctx, np, patch); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, 150*time.Second, "both unhealthy nodes replaced and 3 pods Running", func() (bool, string) {
		left := 0
		for _, n := range poolNodes(t, e, "breaker") {
			if slices.Contains(victims, n.Name) {
				left++
			}
		}
		running, _, states := runningOn(t, e, ns, "app=spread", "breaker")
		return left == 0 && running == 3, fmt.Sprintf("%d unhealthy nodes left; %s; claims: %s", left, states, describeClaims(t, e, "breaker"))
	})
	for _, v := range victims {
		if replacementOf(t, e, "breaker", v) == nil {
			t.Errorf("no replacement was launched for %s", v)
		}
	}
	t.Logf("with maxUnhealthy 100%% both nodes were repaired in %s", took.Round(100*time.Millisecond))
}
