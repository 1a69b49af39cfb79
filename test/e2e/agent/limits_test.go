package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// poolYAML is a kwok NodeClass and a NodePool named name, with extra
// NodePool spec lines (limits, disruption) appended.
func poolYAML(name, class, extraSpec string) string {
	return fmt.Sprintf(`
apiVersion: tenon.dev/v1
kind: NodePool
metadata:
  name: %[1]s
spec:
  template:
    spec:
      nodeClassRef:
        name: %[2]s
      requirements:
        - key: tenon.dev/capacity-type
          operator: In
          values: [on-demand]
        - key: kubernetes.io/arch
          operator: In
          values: [amd64]
%[3]s
`, name, class, extraSpec)
}

// kwokClass is a NodeClass the kwok cloud can launch.
func kwokClass(name string) string {
	return fmt.Sprintf(`
apiVersion: tenon.dev/v1
kind: NodeClass
metadata:
  name: %s
spec:
  kwok: {}
`, name)
}

// deploymentYAML is a Deployment of replicas pods of cpu each, pinned to
// pool by a node selector.
func deploymentYAML(name, pool string, replicas int, cpu string) string {
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: %[3]d
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      terminationGracePeriodSeconds: 0
      nodeSelector:
        tenon.dev/nodepool: %[2]s
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources:
            requests:
              cpu: "%[4]s"
`, name, pool, replicas, cpu)
}

// TestLimitsAreNeverExceeded is the e2e test 3: a pool with
// limits.cpu 8 and 20 pending 1-CPU pods never holds more than 8 CPU of
// nodes, and the pods left pending carry an event naming the limit.
func TestLimitsAreNeverExceeded(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "limits")
	apply(t, e, ns, kwokClass("limited")+"\n---\n"+poolYAML("limited", "limited", "  limits:\n    cpu: \"8\""))
	startAgent(t, e, "limits")
	cleanupPool(t, e, ns, "limited")

	// Watch the pool's capacity all along.
	var mu sync.Mutex
	maxCPU := resource.Quantity{}
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			sum := resource.Quantity{}
			var claims v1.NodeClaimList
			if err := e.client.List(context.Background(), &claims, client.MatchingLabels{v1.LabelNodePool: "limited"}); err != nil {
				continue
			}
			for _, c := range claims.Items {
				sum.Add(*c.Status.Capacity.Cpu())
			}
			var nodes corev1.NodeList
			if err := e.client.List(context.Background(), &nodes, client.MatchingLabels{v1.LabelNodePool: "limited"}); err != nil {
				continue
			}
			nodeSum := resource.Quantity{}
			for _, n := range nodes.Items {
				nodeSum.Add(*n.Status.Capacity.Cpu())
			}
			if nodeSum.Cmp(sum) > 0 {
				sum = nodeSum
			}
			mu.Lock()
			if sum.Cmp(maxCPU) > 0 {
				maxCPU = sum
			}
			mu.Unlock()
		}
	}()
	defer func() { close(stop); <-watched }()

	apply(t, e, ns, deploymentYAML("many", "limited", 20, "1"))
	var pending []string
	waitFor(t, 40*time.Second, "the pods the limit allows Running and the others told why", func() (bool, string) {
		var pods corev1.PodList
		if err := e.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"app": "many"}); err != nil {
			return false, err.Error()
		}
		running := 0
		pending = pending[:0]
		for _, p := range pods.Items {
			switch {
			case p.Status.Phase == corev1.PodRunning:
				running++
			case p.Spec.NodeName == "":
				pending = append(pending, p.Name)
			}
		}
		if running == 0 || len(pending) == 0 || running+len(pending) != 20 {
			return false, fmt.Sprintf("%d running, %d pending", running, len(pending))
		}
		for _, name := range pending {
			msgs := eventsFor(t, e, ns, name, "FailedScheduling")
			if !containsAny(msgs, "limit cpu=8") {
				return false, fmt.Sprintf("%d running; pod %s has no event naming the limit yet: %v", running, name, msgs)
			}
		}
		return true, fmt.Sprintf("%d running, %d pending", running, len(pending))
	})
	// Give the agent time to misbehave, then check the high-water mark.
	time.Sleep(5 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	if maxCPU.Cmp(resource.MustParse("8")) > 0 {
		t.Errorf("the pool reached %s CPU of nodes; its limit is 8", maxCPU.String())
	}
	example := ""
	for _, m := range eventsFor(t, e, ns, pending[0], "FailedScheduling") {
		if strings.Contains(m, "limit cpu=8") {
			example = m
		}
	}
	t.Logf("high-water mark %s CPU; %d pods left pending with the limit named, e.g. %q", maxCPU.String(), len(pending), example)
}

func containsAny(msgs []string, sub string) bool {
	for _, m := range msgs {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

// TestNodeClassNotReadyWaitsWhileOthersWork is the e2e test 6: a
// NodePool the API's CEL rules reject never reaches the agent; a pool whose
// NodeClass the cloud cannot launch (an aws class under --cloud kwok) makes
// its pods wait with an event saying why, while another pool keeps working.
func TestNodeClassNotReadyWaitsWhileOthersWork(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "notready")
	ctx := context.Background()

	bad := &v1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "rejected"},
		Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
			NodeClassRef: &v1.NodeClassReference{Name: "working"},
			Requirements: []v1.NodeSelectorRequirementWithMinValues{{Key: "karpenter.sh/nodepool", Operator: corev1.NodeSelectorOpIn, Values: []string{"rejected"}}},
		}}},
	}
	if err := e.client.Create(ctx, bad); err == nil {
		_ = e.client.Delete(ctx, bad)
		t.Fatal("the API accepted a NodePool requiring a restricted karpenter.sh label")
	} else {
		t.Logf("the API rejected the invalid NodePool: %v", err)
	}

	apply(t, e, ns, kwokClass("working")+"\n---\n"+poolYAML("working", "working", "")+`
---
apiVersion: tenon.dev/v1
kind: NodeClass
metadata:
  name: aws-only
spec:
  aws:
    role: KarpenterNodeRole-e2e
`+"\n---\n"+poolYAML("waiting", "aws-only", ""))
	startAgent(t, e, "notready")
	cleanupPool(t, e, ns, "working")
	apply(t, e, ns, deploymentYAML("works", "working", 2, "1")+"\n---\n"+deploymentYAML("waits", "waiting", 2, "1"))

	waitFor(t, 30*time.Second, "the working pool's pods Running", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=works", "working")
		return running == 2, states
	})
	waitFor(t, 30*time.Second, "the waiting pool's pods told why", func() (bool, string) {
		var pods corev1.PodList
		if err := e.client.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"app": "waits"}); err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				t.Fatalf("pod %s of the waiting pool was scheduled on %s", p.Name, p.Spec.NodeName)
			}
			msgs := eventsFor(t, e, ns, p.Name, "FailedScheduling")
			if !containsAny(msgs, `pool "waiting" is waiting`) || !containsAny(msgs, "--cloud kwok") {
				return false, fmt.Sprintf("pod %s events: %v", p.Name, msgs)
			}
		}
		return len(pods.Items) == 2, fmt.Sprintf("%d pods", len(pods.Items))
	})
	waitFor(t, 15*time.Second, "NodeClass aws-only Ready=False and NodePool waiting NodeClassReady=False", func() (bool, string) {
		nc := &v1.NodeClass{}
		np := &v1.NodePool{}
		if err := e.client.Get(ctx, client.ObjectKey{Name: "aws-only"}, nc); err != nil {
			return false, err.Error()
		}
		if err := e.client.Get(ctx, client.ObjectKey{Name: "waiting"}, np); err != nil {
			return false, err.Error()
		}
		ncReady := conditionStatus(nc.Status.Conditions, v1.ConditionReady)
		npClass := conditionStatus(np.Status.Conditions, v1.ConditionNodeClassReady)
		return ncReady == "False" && npClass == "False", fmt.Sprintf("nodeclass Ready=%q, nodepool NodeClassReady=%q", ncReady, npClass)
	})
	if got := poolNodes(t, e, "waiting"); len(got) != 0 {
		t.Errorf("the waiting pool has nodes %v", instanceTypes(got))
	}
}

func conditionStatus(conds []metav1.Condition, t string) string {
	for _, c := range conds {
		if c.Type == t {
			return string(c.Status)
		}
	}
	return ""
}
