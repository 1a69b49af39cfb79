package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// schedulingPool is a kwok pool named name with extra requirements; its
// pods select it by tenon.dev/nodepool so the cases stay apart.
func schedulingPool(name, extraReqs string) string {
	return fmt.Sprintf(`
apiVersion: tenon.dev/v1
kind: NodePool
metadata:
  name: %[1]s
spec:
  disruption:
    consolidateAfter: 10s
  template:
    spec:
      nodeClassRef:
        name: sched
      requirements:
        - key: tenon.dev/capacity-type
          operator: In
          values: [on-demand]
%[2]s`, name, extraReqs)
}

// schedulingPod is a bare pod of pool with spec lines added (indented by 2).
func schedulingPod(name, pool, labels, spec string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
  labels: {%[3]s}
spec:
  terminationGracePeriodSeconds: 0
  nodeSelector: {tenon.dev/nodepool: %[2]s}
%[4]s
  containers:
    - name: c
      image: registry.k8s.io/pause:3.10
      resources:
        requests: {cpu: 200m}
`, name, pool, labels, spec)
}

// TestKubeSchedulerUsesThePlannedNodes is issue 17's live check: for host
// ports, preferred pod anti-affinity and pod affinity on kubernetes.io/arch
// (as Karpenter's tests set them up), multi-valued pool requirements and an
// unknown topology key, the real
// kube-scheduler binds each pod to the node the agent launched for it (where
// the pods can tell nodes apart) or at least never leaves a pod Pending that
// a launched node was meant for, and no launched node stays empty.
func TestKubeSchedulerUsesThePlannedNodes(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "sched")
	apply(t, e, ns, kwokClass("sched"))
	pools := map[string]string{
		"hostports": "",
		"preferred": "",
		"arch":      "        - key: kubernetes.io/arch\n          operator: In\n          values: [amd64, arm64]\n",
		"multi":     "        - key: example.com/team\n          operator: In\n          values: [a, b]\n",
		"unknown":   "",
	}
	for name, reqs := range pools {
		apply(t, e, ns, schedulingPool(name, reqs))
	}
	var pods []string
	for i := range 3 {
		// kube-scheduler's NodePorts filter: one pod per node.
		pods = append(pods, strings.Replace(schedulingPod(fmt.Sprintf("hp-%d", i), "hostports", "app: hp", ""),
			"      resources:", "      ports: [{containerPort: 8080, hostPort: 8080}]\n      resources:", 1))
	}
	// Karpenter's "should allow violation of preferred pod anti-affinity":
	// ten pods that prefer zones without the three spread pods must still run.
	pods = append(pods, preferredDeployment("spread", 3, "test: test", `      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {matchLabels: {test: test}}`),
		preferredDeployment("avoid", 10, "app: avoid", `      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 50
              podAffinityTerm:
                topologyKey: topology.kubernetes.io/zone
                labelSelector: {matchLabels: {test: test}}`))
	// Karpenter's "should respect pod affinity (arch)": the follower must
	// share arm's architecture, on a node of its own (hostname spread).
	hostSpread := `
  topologySpreadConstraints:
    - maxSkew: 1
      topologyKey: kubernetes.io/hostname
      whenUnsatisfiable: DoNotSchedule
      labelSelector: {matchLabels: {security: s2}}`
	pods = append(pods,
		strings.Replace(schedulingPod("arm", "arch", "security: s2", "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [arm64]}]"+hostSpread),
			"cpu: 200m", "cpu: \"2\"", 1),
		strings.Replace(schedulingPod("arm-follower", "arch", "security: s2", `  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/arch
          labelSelector: {matchLabels: {security: s2}}`+hostSpread), "cpu: 200m", "cpu: \"1\"", 1),
		schedulingPod("team-a", "multi", "app: team", "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions: [{key: example.com/team, operator: In, values: [a]}]"),
		schedulingPod("team-b", "multi", "app: team", "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions: [{key: example.com/team, operator: In, values: [b]}]"),
		schedulingPod("rack", "unknown", "app: rack", `  topologySpreadConstraints:
    - maxSkew: 1
      topologyKey: example.com/rack
      whenUnsatisfiable: DoNotSchedule
      labelSelector: {matchLabels: {app: rack}}`),
	)
	const total = 3 + 3 + 10 + 2 + 2 + 1
	agent := startAgent(t, e, "sched")
	for name := range pools {
		cleanupPool(t, e, ns, name)
	}
	t.Cleanup(func() { _ = e.client.DeleteAllOf(context.Background(), &corev1.Pod{}, client.InNamespace(ns)) })
	apply(t, e, ns, strings.Join(pods, "\n---\n"))

	waitFor(t, 90*time.Second, "every pod but rack Running", func() (bool, string) {
		placed, states := schedulingState(t, e, ns)
		return placed == total-1, states
	})

	// Where pods differ, each is on the node the agent nominated it to.
	for _, name := range []string{"arm", "arm-follower", "team-a", "team-b"} {
		nominated := eventsFor(t, e, ns, name, "Nominated")
		node := podNode(t, e, ns, name)
		if len(nominated) == 0 || !strings.HasSuffix(nominated[len(nominated)-1], "nodeclaim "+node.Name) {
			t.Errorf("pod %s runs on %s, but the agent nominated it to %v", name, node.Name, nominated)
		}
	}
	if arm, follower := podNode(t, e, ns, "arm"), podNode(t, e, ns, "arm-follower"); arm.Name == follower.Name ||
		arm.Labels[scheduling.LabelArch] != "arm64" || follower.Labels[scheduling.LabelArch] != "arm64" {
		t.Errorf("arch: arm on %s (%s), its follower on %s (%s); both must be arm64, on two nodes",
			arm.Name, arm.Labels[scheduling.LabelArch], follower.Name, follower.Labels[scheduling.LabelArch])
	}
	a, b := podNode(t, e, ns, "team-a"), podNode(t, e, ns, "team-b")
	if a.Name == b.Name || a.Labels["example.com/team"] != "a" || b.Labels["example.com/team"] != "b" {
		t.Errorf("multi-valued requirement: team-a on %s (team %q), team-b on %s (team %q)",
			a.Name, a.Labels["example.com/team"], b.Name, b.Labels["example.com/team"])
	}
	if hp := poolNodes(t, e, "hostports"); len(hp) != 3 {
		t.Errorf("host ports: %d nodes for three pods that each need port 8080 of a node of their own", len(hp))
	}
	// The unknown key: no node carries it, so kube-scheduler cannot place the
	// pod and the agent must not launch for it, and says why.
	if n := len(poolClaims(t, e, "unknown")); n != 0 {
		t.Errorf("unknown topology key: %d claims launched for a pod kube-scheduler can never place", n)
	}
	if reasons := eventsFor(t, e, ns, "rack", "FailedScheduling"); !containsAny(reasons, "example.com/rack") {
		t.Errorf("unknown topology key: the pod's events %v do not name example.com/rack", reasons)
	}
	// No launched node stays empty: kube-scheduler used it, or the agent
	// removed it after consolidateAfter.
	waitFor(t, 60*time.Second, "every launched node running a pod", func() (bool, string) {
		var empty []string
		for name := range pools {
			for _, n := range poolNodes(t, e, name) {
				if !runsWorkload(t, e, n.Name) {
					empty = append(empty, n.Name)
				}
			}
		}
		return len(empty) == 0, fmt.Sprintf("empty nodes %v", empty)
	})
	if t.Failed() {
		t.Logf("agent log:\n%s", agent.log.String())
	}
}

// preferredDeployment is a Deployment of the "preferred" pool with its pod
// spec lines added (indented by 6).
func preferredDeployment(name string, replicas int, labels, spec string) string {
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: %[2]d
  selector:
    matchLabels: {%[3]s}
  template:
    metadata:
      labels: {%[3]s}
    spec:
      terminationGracePeriodSeconds: 0
      nodeSelector: {tenon.dev/nodepool: preferred}
%[4]s
      containers:
        - name: c
          image: registry.k8s.io/pause:3.10
          resources:
            requests: {cpu: 100m}
`, name, replicas, labels, spec)
}

// schedulingState counts the namespace's Running pods and describes all.
func schedulingState(t *testing.T, e env, ns string) (int, string) {
	t.Helper()
	var list corev1.PodList
	if err := e.client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		return 0, err.Error()
	}
	running := 0
	var states []string
	for _, p := range list.Items {
		states = append(states, fmt.Sprintf("%s %s on %q", p.Name, p.Status.Phase, p.Spec.NodeName))
		if p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	return running, strings.Join(states, ", ")
}

// podNode returns the node pod ns/name is bound to.
func podNode(t *testing.T, e env, ns, name string) *corev1.Node {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{}
	if err := e.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod); err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{}
	if err := e.client.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node); err != nil {
		t.Fatalf("node %q of pod %s: %v", pod.Spec.NodeName, name, err)
	}
	return node
}

// runsWorkload reports whether a pod that is not a DaemonSet's runs on node.
func runsWorkload(t *testing.T, e env, node string) bool {
	t.Helper()
	var list corev1.PodList
	if err := e.client.List(context.Background(), &list, client.MatchingFields{"spec.nodeName": node}); err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && (len(p.OwnerReferences) == 0 || p.OwnerReferences[0].Kind != "DaemonSet") {
			return true
		}
	}
	return false
}
