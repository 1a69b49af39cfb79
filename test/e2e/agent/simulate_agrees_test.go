package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
)

// agreePolicy is the pool of TestAgentAgreesWithSimulate with
// consolidateAfter set to after: Never while the test builds its cluster,
// 0s for `tenon simulate` and once the agent may act. The budget of 100%
// lets one plan remove every node it chooses, so the agent's ticks and
// simulate's single round disrupt the same set; the pool lets bare pods be
// disrupted, so the test can place one where it wants it.
func agreePolicy(after string) string {
	pool := strings.Replace(poolYAML("agree", "agree", ""), "  name: agree\n", "  name: agree\n  annotations:\n    tenon.dev/disrupt-bare-pods: \"true\"\n", 1)
	return kwokClass("agree") + "\n---\n" + pool + fmt.Sprintf(`  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: %s
    budgets:
      - nodes: "100%%"
`, after)
}

// TestAgentAgreesWithSimulate is the test issue 16 asks for: the same
// cluster, run through `tenon simulate --consolidate` and through the agent
// on the local control plane, gives the same commands — the same nodes
// removed for the same reasons, and the same replacements. The agent
// plans emptiness on its 1 s tick and the rest on its 10 s tick, with
// consolidation's one Plan; simulate makes one plan of both.
//
// The cluster: Deployments "keep", "empty" and "underused" of one pod of 1
// CPU and 2 GiB each, created one after the other so each gets an agent-launched node of
// its own, while consolidation is off (consolidateAfter Never); a bare
// 100m pod bound to underused's node; then empty and underused scale to 0,
// leaving one node empty and one holding only the 100m pod, which fits on
// keep's node. The test captures that cluster, asks simulate for its
// commands (Empty for the one, Underutilized for the other), turns
// consolidation on (0s) and watches what the agent removes and launches.
func TestAgentAgreesWithSimulate(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "agree")
	apply(t, e, ns, agreePolicy("Never"))
	startAgent(t, e, "agree", "--log-level=debug")
	cleanupPool(t, e, ns, "agree")
	for _, name := range []string{"keep", "empty", "underused"} {
		// 2 GiB takes the pods past the smallest types, so that removing a
		// node saves more than consolidation's minimum of $0.01/h.
		apply(t, e, ns, strings.Replace(deploymentYAML(name, "agree", 1, "1"), `cpu: "1"`+"\n", `cpu: "1"`+"\n              memory: 2Gi\n", 1))
		waitFor(t, 60*time.Second, name+"'s pod Running", func() (bool, string) {
			running, _, states := runningOn(t, e, ns, "app="+name, "agree")
			return running == 1, states
		})
	}
	apply(t, e, ns, barePod("mover", nodeOf(t, e, ns, "app=underused"), "100m"))
	waitFor(t, 30*time.Second, "the bare pod Running", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=mover", "agree")
		return running == 1, states
	})
	scale(t, e, ns, "empty", 0)
	scale(t, e, ns, "underused", 0)
	waitFor(t, 60*time.Second, "empty and underused scaled to 0", func() (bool, string) {
		_, a, _ := runningOn(t, e, ns, "app=empty", "agree")
		_, b, states := runningOn(t, e, ns, "app=underused", "agree")
		return a == 0 && b == 0, states
	})

	scenario, busy := clusterScenario(t, e, ns, "agree", agreePolicy("0s"))
	if busy != "" {
		t.Fatalf("the agent disrupted while consolidation was off: %s", busy)
	}
	want := simulateConsolidate(t, scenario)
	if stable := predictConsolidation(t, scenario); stable.Summary.Rounds != 2 {
		t.Fatalf("tenon simulate --until-stable took %d rounds; the agent re-plans after each command, so only a cluster stable after one round compares command for command", stable.Summary.Rounds)
	}
	for _, reason := range []string{"Empty", "Underutilized"} {
		if !slices.ContainsFunc(want, func(c simulate.RoundCommand) bool { return string(c.Reason) == reason }) {
			t.Fatalf("tenon simulate plans no %s command (%+v); the test needs one of each", reason, want)
		}
	}

	w := watchDisruptions(t, e, "agree")
	patchConsolidateAfter(t, e, "agree", "0s")
	wantRemoved, wantTypes := expected(want)
	waitFor(t, 90*time.Second, fmt.Sprintf("the agent removing %v", wantRemoved), func() (bool, string) {
		removed, _ := w.seen()
		return len(removed) >= len(wantRemoved), fmt.Sprintf("removed %v; claims: %s", removed, describeClaims(t, e, "agree"))
	})
	// A consolidation tick and more: nothing else may happen.
	time.Sleep(12 * time.Second)
	removed, launched := w.seen()
	w.stop()
	if !maps.Equal(removed, wantRemoved) {
		t.Errorf("the agent removed %v; tenon simulate --consolidate removes %v", removed, wantRemoved)
	}
	if !slices.Equal(launched, wantTypes) {
		t.Errorf("the agent launched %v; tenon simulate --consolidate launches %v", launched, wantTypes)
	}
	t.Logf("agent and tenon simulate --consolidate agree: removed %v, launched %v", removed, launched)
}

// simulateConsolidate runs `tenon simulate --consolidate -o json` in
// process on scenario, a minute from now, and returns its commands.
func simulateConsolidate(t *testing.T, scenario string) []simulate.RoundCommand {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(scenario), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	now := time.Now().UTC().Add(time.Minute).Truncate(time.Second).Format(time.RFC3339)
	args := []string{"-f", path, "--consolidate", "-o", "json", "--now", now}
	if code := simulate.Command(context.Background(), args, &stdout, &stderr); code != simulate.ExitOK {
		t.Fatalf("tenon simulate %s: exit %d: %s\nscenario:\n%s", strings.Join(args, " "), code, stderr.String(), scenario)
	}
	var rep simulate.ConsolidationReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("reading tenon simulate's JSON: %v\n%s", err, stdout.String())
	}
	for _, c := range rep.Commands {
		t.Logf("tenon simulate --consolidate: %s %v -> %d replacements (%s)", c.Reason, c.Nodes, len(c.Replacements), c.Detail)
	}
	for _, k := range rep.Kept {
		t.Logf("tenon simulate --consolidate keeps %s: %s", k.Node, k.Reason)
	}
	return rep.Commands
}

// expected is what commands remove (node → reason) and launch (instance
// types, sorted).
func expected(cmds []simulate.RoundCommand) (map[string]string, []string) {
	removed := map[string]string{}
	var types []string
	for _, c := range cmds {
		for _, n := range c.Nodes {
			removed[n] = string(c.Reason)
		}
		for _, r := range c.Replacements {
			types = append(types, r.InstanceType)
		}
	}
	sort.Strings(types)
	return removed, types
}

// disruptionWatch follows a pool's NodeClaims from one watch: the node of
// every claim the agent deletes with the disruption reason it recorded,
// and the instance type of every claim created after the watch started.
type disruptionWatch struct {
	w    watch.Interface
	done chan struct{}

	mu       sync.Mutex
	known    map[string]bool
	removed  map[string]string
	launched map[string]string
}

func watchDisruptions(t *testing.T, e env, pool string) *disruptionWatch {
	t.Helper()
	ctx := context.Background()
	var list v1.NodeClaimList
	if err := e.client.List(ctx, &list, client.MatchingLabels{v1.LabelNodePool: pool}); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", e.cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	scheme, err := agent.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &v1.NodeClaimList{}, client.MatchingLabels{v1.LabelNodePool: pool},
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	dw := &disruptionWatch{w: w, done: make(chan struct{}), known: map[string]bool{}, removed: map[string]string{}, launched: map[string]string{}}
	for _, c := range list.Items {
		dw.known[c.Name] = true
	}
	go func() {
		defer close(dw.done)
		for ev := range w.ResultChan() {
			if c, ok := ev.Object.(*v1.NodeClaim); ok {
				dw.observe(c)
			}
		}
	}()
	t.Cleanup(dw.stop)
	return dw
}

func (dw *disruptionWatch) observe(c *v1.NodeClaim) {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	if dw.known[c.Name] {
		if c.DeletionTimestamp != nil && c.Status.NodeName != "" {
			if _, seen := dw.removed[c.Status.NodeName]; !seen {
				dw.removed[c.Status.NodeName] = c.Annotations[v1.Group+"/disruption-reason"]
			}
		}
		return
	}
	if c.Status.InstanceType != "" {
		dw.launched[c.Name] = c.Status.InstanceType
	} else if _, ok := dw.launched[c.Name]; !ok {
		dw.launched[c.Name] = ""
	}
}

// seen returns the nodes removed (node → reason) and the instance types
// launched since the watch started, sorted.
func (dw *disruptionWatch) seen() (map[string]string, []string) {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	types := slices.Sorted(maps.Values(dw.launched))
	return maps.Clone(dw.removed), types
}

func (dw *disruptionWatch) stop() {
	dw.w.Stop()
	<-dw.done
}

// barePod is a pod without a controller, labelled app=name, bound to node
// with a cpu request.
func barePod(name, node, cpu string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
  labels:
    app: %[1]s
spec:
  nodeName: %[2]s
  terminationGracePeriodSeconds: 0
  containers:
    - name: app
      image: registry.k8s.io/pause:3.10
      resources:
        requests:
          cpu: %[3]s
`, name, node, cpu)
}

// nodeOf is the node of the first live pod of ns matching selector.
func nodeOf(t *testing.T, e env, ns, selector string) string {
	t.Helper()
	var pods corev1.PodList
	sel, err := labels.Parse(selector)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
			return p.Spec.NodeName
		}
	}
	t.Fatalf("no pod of %s is bound", selector)
	return ""
}

// patchConsolidateAfter sets a NodePool's consolidateAfter.
func patchConsolidateAfter(t *testing.T, e env, pool, after string) {
	t.Helper()
	np := &v1.NodePool{}
	if err := e.client.Get(context.Background(), client.ObjectKey{Name: pool}, np); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(np.DeepCopy())
	np.Spec.Disruption.ConsolidateAfter = v1.NillableDuration(after)
	if err := e.client.Patch(context.Background(), np, patch); err != nil {
		t.Fatal(err)
	}
}
