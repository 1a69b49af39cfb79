package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
)

// explainPolicy is a pool that consolidates at once: a node it keeps is kept for a reason
// other than consolidateAfter.
func explainPolicy() string {
	return kwokClass("explain") + "\n---\n" + poolYAML("explain", "explain", `  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s`)
}

// guardedPod is a bare 100m pod on a node of the explain pool.
const guardedPod = `
apiVersion: v1
kind: Pod
metadata:
  name: guarded
  labels: {app: guarded}
spec:
  terminationGracePeriodSeconds: 0
  nodeSelector: {tenon.dev/nodepool: explain}
  containers:
    - name: app
      image: registry.k8s.io/pause:3.10
      resources: {requests: {cpu: 100m}}
`

// TestExplainAgreesWithTheAgent is issue 21's acceptance on the local control plane: with the
// agent stopped, a pool, pending pods and a node kept by a do-not-disrupt pod, `tenon simulate
// --kubeconfig` names the nodes to launch and `tenon explain` the kept node's reason and each
// pod's node; the saved snapshot replays offline with the same answer; then the agent, started,
// launches the same instance types and records an Unconsolidatable event on the kept node with
// that reason.
func TestExplainAgreesWithTheAgent(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "explain")
	apply(t, e, ns, explainPolicy())
	first := startAgent(t, e, "explain-1")
	cleanupPool(t, e, ns, "explain")
	apply(t, e, ns, guardedPod)
	waitFor(t, 60*time.Second, "the guarded pod Running on a node of its own", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=guarded", "explain")
		return running == 1, states
	})
	kept := nodeOf(t, e, ns, "app=guarded")
	first.stop()

	// The agent is stopped: pin the pod, and make pods no node holds.
	patch := []byte(`{"metadata":{"annotations":{"tenon.dev/do-not-disrupt":"true"}}}`)
	if err := e.client.Patch(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: ns}}, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	apply(t, e, ns, deploymentYAML("web", "explain", 3, "3"))
	waitFor(t, 60*time.Second, "kube-scheduler marking web's pods unschedulable", func() (bool, string) {
		return unschedulable(t, e, ns, "app=web") == 3, fmt.Sprintf("%d of 3", unschedulable(t, e, ns, "app=web"))
	})

	saved := filepath.Join(t.TempDir(), "cluster.yaml")
	live := runTenon(t, simulate.CommandWith(agent.ReadCluster), "--kubeconfig", e.cp.Kubeconfig, "--save", saved, "-o", "json")
	var rep simulate.Report
	if err := json.Unmarshal([]byte(live), &rep); err != nil {
		t.Fatalf("%v: %s", err, live)
	}
	var want []string
	for _, n := range rep.Nodes {
		if !n.Existing {
			want = append(want, n.InstanceType)
		}
	}
	sort.Strings(want)
	if len(want) == 0 || rep.Summary.Unschedulable != 0 {
		t.Fatalf("tenon simulate --kubeconfig launches %v and leaves %d pods unschedulable: %s", want, rep.Summary.Unschedulable, live)
	}
	replay := runTenon(t, simulate.Command, "-f", saved, "-o", "json")
	if withoutTimings(t, live) != withoutTimings(t, replay) {
		t.Errorf("the live answer differs from the saved file's:\nlive: %s\nreplay: %s", live, replay)
	}

	node := explain(t, e, "node", kept)
	wantReason := "do-not-disrupt pod " + ns + "/guarded"
	if node.Verdict != simulate.VerdictKept || !strings.Contains(node.Reason, wantReason) {
		t.Fatalf("tenon explain node %s: %s (%s), want kept for %q", kept, node.Verdict, node.Reason, wantReason)
	}
	for _, pod := range podNames(t, e, ns, "app=web") {
		p := explain(t, e, "pod", ns+"/"+pod)
		if p.Verdict != simulate.VerdictNewNode || p.Node == nil || !slices.Contains(want, p.Node.InstanceType) {
			t.Errorf("tenon explain pod %s/%s: %s (%s), want a new node of %v", ns, pod, p.Verdict, p.Reason, want)
		}
	}
	t.Logf("tenon simulate --kubeconfig launches %v; tenon explain node %s: %s", want, kept, node.Reason)

	startAgent(t, e, "explain-2")
	cleanupPool(t, e, ns, "explain")
	t.Cleanup(func() {
		_ = e.client.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: ns}})
	})
	waitFor(t, 90*time.Second, "web's pods Running", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=web", "explain")
		return running == 3, states
	})
	var got []string
	for _, n := range poolNodes(t, e, "explain") {
		if n.Name != kept {
			got = append(got, n.Labels[corev1.LabelInstanceTypeStable])
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("the agent launched %v; tenon simulate --kubeconfig said %v", got, want)
	}
	waitFor(t, 40*time.Second, "an Unconsolidatable event on node "+kept, func() (bool, string) {
		msgs := nodeEvents(t, e, kept, agent.ReasonUnconsolidatable)
		return slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, node.Reason) }), strings.Join(msgs, " | ")
	})
}

// unschedulable counts the pods kube-scheduler marked unschedulable.
func unschedulable(t *testing.T, e env, ns, selector string) int {
	t.Helper()
	n := 0
	for _, p := range listPods(t, e, ns, selector) {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				n++
			}
		}
	}
	return n
}

func podNames(t *testing.T, e env, ns, selector string) []string {
	t.Helper()
	var out []string
	for _, p := range listPods(t, e, ns, selector) {
		out = append(out, p.Name)
	}
	return out
}

func listPods(t *testing.T, e env, ns, selector string) []corev1.Pod {
	t.Helper()
	sel, err := metav1.ParseToLabelSelector(selector)
	if err != nil {
		t.Fatal(err)
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	var pods corev1.PodList
	if err := e.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: s}); err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

// runTenon runs a tenon subcommand in process and returns its stdout.
func runTenon(t *testing.T, cmd func(context.Context, []string, io.Writer, io.Writer) int, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cmd(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("tenon %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// explain runs tenon explain KIND NAME -o json on the control plane.
func explain(t *testing.T, e env, kind, name string) simulate.Explanation {
	t.Helper()
	out := runTenon(t, simulate.ExplainCommand(agent.ReadCluster), kind, name, "--kubeconfig", e.cp.Kubeconfig, "-o", "json")
	var x simulate.Explanation
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return x
}

// withoutTimings is a packing report without its solve times.
func withoutTimings(t *testing.T, report string) string {
	t.Helper()
	var rep simulate.Report
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatal(err)
	}
	rep.Summary.SolveRuns, rep.Summary.SolveSeconds = nil, 0
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// nodeEvents returns the messages of the events about a node with reason.
func nodeEvents(t *testing.T, e env, node, reason string) []string {
	t.Helper()
	return eventMessages(t, e, "", "involvedObject.kind=Node,involvedObject.name="+node, reason)
}
