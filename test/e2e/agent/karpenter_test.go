package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// karpenterPod is a bare pod written for Karpenter: it selects Karpenter's
// labels only (never Tenon's) and carries spec lines (indented by 2).
func karpenterPod(name, spec string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
  labels: {app: karp}
spec:
  terminationGracePeriodSeconds: 0
%[2]s
  containers:
    - name: c
      image: registry.k8s.io/pause:3.10
      resources:
        requests: {cpu: 200m}
`, name, spec)
}

// TestKarpenterWorkloadRunsOnTenonNodes is issue 23 item 7 live: pods
// selecting Karpenter's labels (karpenter.sh/capacity-type,
// karpenter.sh/nodepool, karpenter.k8s.aws/instance-*) get nodes from the
// agent, which carry the aliases, and the real kube-scheduler binds them.
func TestKarpenterWorkloadRunsOnTenonNodes(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "karp")
	apply(t, e, ns, kwokClass("karp")+"\n---\n"+poolYAML("karp", "karp", ""))
	pods := []string{
		karpenterPod("by-pool", "  nodeSelector: {karpenter.sh/nodepool: karp, karpenter.sh/capacity-type: on-demand}"),
		karpenterPod("by-family", "  nodeSelector: {karpenter.sh/nodepool: karp, karpenter.k8s.aws/instance-family: c6i}"),
		karpenterPod("by-affinity", `  nodeSelector: {karpenter.sh/nodepool: karp}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: karpenter.k8s.aws/instance-category, operator: In, values: [r]}
              - {key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ["3"]}`),
	}
	startAgent(t, e, "karp")
	cleanupPool(t, e, ns, "karp")
	t.Cleanup(func() { _ = e.client.DeleteAllOf(context.Background(), &corev1.Pod{}, client.InNamespace(ns)) })
	apply(t, e, ns, strings.Join(pods, "\n---\n"))

	waitFor(t, 90*time.Second, "every pod written for Karpenter Running", func() (bool, string) {
		placed, states := schedulingState(t, e, ns)
		return placed == len(pods), states
	})
	for name, want := range map[string]map[string]string{
		"by-pool":     {"karpenter.sh/nodepool": "karp", "karpenter.sh/capacity-type": "on-demand", "tenon.dev/capacity-type": "on-demand"},
		"by-family":   {"karpenter.k8s.aws/instance-family": "c6i", "tenon.dev/instance-family": "c6i"},
		"by-affinity": {"karpenter.k8s.aws/instance-category": "r", "tenon.dev/instance-category": "r"},
	} {
		node := podNode(t, e, ns, name)
		for k, v := range want {
			if node.Labels[k] != v {
				t.Errorf("pod %s runs on %s whose label %s is %q, want %q (labels %v)", name, node.Name, k, node.Labels[k], v, node.Labels)
			}
		}
	}
}
