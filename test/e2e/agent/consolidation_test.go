package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
)

// consolidationPods is the workload of test 2: pods of 100m CPU and 128 MiB,
// several to a node. Each starts behind a scheduling gate that a
// podStarter removes (see there).
func consolidationPods(replicas int) string {
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: packed
spec:
  replicas: %d
  selector:
    matchLabels:
      app: packed
  template:
    metadata:
      labels:
        app: packed
    spec:
      terminationGracePeriodSeconds: 0
      schedulingGates:
        - name: `+slowStartGate+`
      nodeSelector:
        tenon.dev/nodepool: packed
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
`, replicas)
}

// consolidationPolicy is test 2's NodeClass, NodePool and PDB, applied to
// the cluster and fed to `tenon simulate`.
var consolidationPolicy = kwokClass("packed") + "\n---\n" + poolYAML("packed", "packed", `  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 5s`) + `
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: packed
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app: packed
`

// TestConsolidationHonoursPDB is the e2e test 2: a
// WhenEmptyOrUnderutilized pool with consolidateAfter 5s runs 40 pods of a
// Deployment guarded by a PDB with maxUnavailable 1, then 10. The agent
// consolidates (consolidation commands, not only emptiness), and
//
//   - the pool ends with exactly the instance types, node count and cost
//     `tenon simulate --until-stable` predicts for the cluster as the
//     scale-down left it (its nodes and bound pods, the pool and the PDB,
//     captured before the agent disrupted anything), and stays there. The
//     agent runs one command per 10 s tick where simulate applies a
//     round's commands together, and the kube-scheduler, not the plan,
//     places the evicted pods' replacements; the end states still agree
//     here (every run so far), and a difference would be a finding, not
//     noise to tolerate;
//   - the PDB is never violated: see pdbWatch for what is counted.
//
// Consolidation evicts several of the budget's pods from one node (the node
// it replaces holds 2 or 3 of them), which engine/consolidation refused
// while it summed evictions per PDB. The evicted pods' replacements take
// replacementStart to start (podStarter), so such a drain must meet the
// Eviction API's 429, and the test requires that it did.
func TestConsolidationHonoursPDB(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "consolidate")
	ctx := context.Background()
	start := time.Now()
	apply(t, e, ns, consolidationPolicy)
	agentProc := startAgent(t, e, "consolidate", "--log-level=debug")
	cleanupPool(t, e, ns, "packed")
	starter := startPods(t, e, ns, "app=packed")
	apply(t, e, ns, consolidationPods(40))
	waitFor(t, 60*time.Second, "40 pods Running", func() (bool, string) {
		running, _, _ := runningOn(t, e, ns, "app=packed", "packed")
		return running == 40, fmt.Sprintf("%d running", running)
	})
	before := poolCost(t, e, "packed")
	nodesBefore := len(poolNodes(t, e, "packed"))
	t.Logf("40 pods on %d nodes %v, $%.4f/h", nodesBefore, instanceTypes(poolNodes(t, e, "packed")), before)

	w := watchBudget(t, e, ns, "app=packed", 40)
	starter.setDelay(replacementStart)
	w.setDesired(10)
	scale(t, e, ns, "packed", 10)
	waitFor(t, 30*time.Second, "10 pods Running", func() (bool, string) {
		running, total, _ := runningOn(t, e, ns, "app=packed", "packed")
		return running == 10 && total == 10, fmt.Sprintf("%d running of %d", running, total)
	})
	// The prediction starts from the cluster as the scale-down left it,
	// before the agent disrupts anything (consolidateAfter is 5 s since
	// each node's last pod event, and the agent plans every 10 s).
	scenario, busy := clusterScenario(t, e, ns, "packed", consolidationPolicy)
	if busy != "" {
		t.Fatalf("the agent was already disrupting when the scale-down settled (%s); the prediction would not start from the scale-down's cluster", busy)
	}
	want := predictConsolidation(t, scenario)
	if want.Summary.NodesAfter >= nodesBefore {
		t.Fatalf("tenon simulate keeps %d of %d nodes; the test needs a cluster where consolidation removes nodes", want.Summary.NodesAfter, nodesBefore)
	}

	settled := waitFor(t, 180*time.Second, fmt.Sprintf("the pool at simulate's %d nodes %v, $%.4f/h",
		want.Summary.NodesAfter, want.types, want.Summary.CostAfterPerHour), func() (bool, string) {
		nodes := poolNodes(t, e, "packed")
		cost := poolCost(t, e, "packed")
		running, _, _ := runningOn(t, e, ns, "app=packed", "packed")
		pdb := &policyv1.PodDisruptionBudget{}
		_ = e.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "packed"}, pdb)
		return len(nodes) == want.Summary.NodesAfter && math.Abs(cost-want.Summary.CostAfterPerHour) < 1e-4 &&
				slices.Equal(instanceTypes(nodes), want.types) && running == 10 && len(poolClaims(t, e, "packed")) == len(nodes),
			fmt.Sprintf("%d nodes %v, $%.4f/h, %d running; PDB status %+v; claims: %s",
				len(nodes), instanceTypes(nodes), cost, running, pdb.Status, describeClaims(t, e, "packed"))
	})
	// Hold the state a consolidation round longer: the agent must not
	// disrupt further once there (simulate's plan is stable there too).
	time.Sleep(12 * time.Second)
	nodes := poolNodes(t, e, "packed")
	after := poolCost(t, e, "packed")
	if len(nodes) != want.Summary.NodesAfter || math.Abs(after-want.Summary.CostAfterPerHour) >= 1e-4 {
		t.Errorf("the pool moved on from simulate's state: %d nodes %v, $%.4f/h", len(nodes), instanceTypes(nodes), after)
	}
	if !strings.Contains(agentProc.log.String(), "msg=consolidating") {
		t.Errorf("no consolidation command ran (only emptiness); the test does not exercise the PDB rule")
	}

	r := w.stop()
	if r.worst > 1 {
		t.Errorf("%d pods of the budget were unavailable at once (%s); the PDB allows 1", r.worst, r.worstAt)
	}
	if r.evictedWhileUnavailable > 0 {
		t.Errorf("%d evictions happened while a pod of the budget was already unavailable", r.evictedWhileUnavailable)
	}
	if len(r.evicted) == 0 {
		t.Errorf("no pod was evicted through the Eviction API; consolidation moved no pod under the budget")
	}
	// The ReplicaSet deletes exactly 30; a drain that deleted pods instead
	// of evicting them would add to it.
	if r.deleted != 30 {
		t.Errorf("%d pods were deleted without the Eviction API; the scale-down accounts for 30", r.deleted)
	}
	// The agent's own count agrees with the watch, and it forced nothing.
	ev := counters(t, agentProc.metricsAddr, "tenon_pod_evictions_total")
	if ev[`result="evicted"`] != len(r.evicted) || ev[`result="forced"`] != 0 {
		t.Errorf("the agent counts evictions %v; the watch saw %d evicted and none may be forced", ev, len(r.evicted))
	}
	// A node holding several of the budget's pods is drained one pod at a
	// time: its next eviction is asked while the last one's replacement
	// is still starting (replacementStart), and must be refused.
	several := false
	for _, c := range r.evictionsByNode() {
		several = several || c > 1
	}
	if several && ev[`result="blocked"`] == 0 {
		t.Errorf("a node lost several of the budget's pods (%v) and no eviction was refused with 429: the drain did not wait on the budget", r.perNode())
	}
	t.Logf("the agent's evictions: %d evicted, %d refused with 429 and retried, %d forced",
		ev[`result="evicted"`], ev[`result="blocked"`], ev[`result="forced"`])
	t.Logf("test 2 took %s (consolidation settled %s after the prediction); cost $%.4f/h -> $%.4f/h on %v, simulate --until-stable predicts %d nodes %v $%.4f/h",
		time.Since(start).Round(time.Second), settled.Round(100*time.Millisecond), before, after, instanceTypes(nodes),
		want.Summary.NodesAfter, want.types, want.Summary.CostAfterPerHour)
	t.Logf("PDB maxUnavailable 1: %d pods evicted (per node %v), %d deleted without eviction (the scale-down); at most %d unavailable at once",
		len(r.evicted), r.perNode(), r.deleted, r.worst)
}

// slowStartGate holds test 2's pods until a podStarter lets them go.
const slowStartGate = "tenon.dev/e2e-slow-start"

// replacementStart is how long the pods created after the scale-down (the
// evicted pods' replacements) wait before they may be scheduled.
const replacementStart = 2 * time.Second

// podStarter stands in for an application that takes a while to become
// Ready. KWOK makes a pod Ready within milliseconds of its binding, so a
// replacement is usually Ready before the drain asks for the next
// eviction, and the PDB never has to say no; with a start-up time, the
// drain of a node holding several of the budget's pods must meet the
// Eviction API's 429 and retry, as it would on a real cluster. It removes
// slowStartGate from each pod delay after it first saw the pod (0 until
// setDelay).
type podStarter struct {
	mu    sync.Mutex
	delay time.Duration
	stop  chan struct{}
	done  chan struct{}
}

func startPods(t *testing.T, e env, ns, selector string) *podStarter {
	t.Helper()
	s := &podStarter{stop: make(chan struct{}), done: make(chan struct{})}
	seen := map[string]time.Time{}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
			s.mu.Lock()
			delay := s.delay
			s.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			pods, err := e.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if err != nil {
				cancel()
				continue
			}
			for i := range pods.Items {
				p := &pods.Items[i]
				if len(p.Spec.SchedulingGates) == 0 {
					continue
				}
				first, ok := seen[p.Name]
				if !ok {
					first = time.Now()
					seen[p.Name] = first
				}
				if time.Since(first) < delay {
					continue
				}
				p.Spec.SchedulingGates = nil
				// A conflict is retried on the next tick.
				_, _ = e.kube.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{})
			}
			cancel()
		}
	}()
	t.Cleanup(func() {
		close(s.stop)
		<-s.done
	})
	return s
}

func (s *podStarter) setDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// evictionReason is the reason of the DisruptionTarget condition the
// Eviction API puts on a pod before deleting it (kube-apiserver's
// EvictionByEvictionAPI; client-go has no constant for it).
const evictionReason = "EvictionByEvictionAPI"

// pdbWatch follows the budget's pods (one watch, from the resourceVersion
// of a List, so every state it computes is a state the API server held)
// and measures, at every event, how many are unavailable: the
// Deployment's desired replicas less the pods that are Ready and not being
// deleted, which is how the disruption controller counts healthy pods for
// maxUnavailable.
//
// The scale-down from 40 to 10 deletes 30 pods through the ReplicaSet;
// that is not a disruption, and it does not count: desired is set to 10
// before the scale, and the ReplicaSet only removes pods beyond 10, so
// while it works at least 10 stay Ready. Anything that takes a pod below
// 10 — an eviction, a pod deleted after a terminationGracePeriod, a drain
// that deletes instead of evicting — counts, at the moment it happens,
// until its replacement is Ready. Evictions are told apart by the
// DisruptionTarget condition the Eviction API sets; each is also checked on
// its own: no pod may be evicted while another is unavailable; and every
// pod that leaves without the Eviction API is counted (the scale-down's 30
// and nothing else).
type pdbWatch struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	// stopped is set when the test ends the watch.
	stopped                 bool
	desired                 int
	pods                    map[string]*corev1.Pod
	worst                   int
	worstAt                 string
	evicted                 map[string]string // pod → node it was evicted from
	evictedWhileUnavailable int
	// left marks the pods seen leaving; deleted counts those that left
	// without the Eviction API.
	left    map[string]bool
	deleted int
	// gone counts pods that left while the watch was down and a re-list
	// (relists) found them gone.
	gone    int
	relists int
}

type budgetReport struct {
	gone, relists           int
	worst                   int
	worstAt                 string
	evicted                 map[string]string
	evictedWhileUnavailable int
	deleted                 int
}

// evictionsByNode is how many pods each node lost to evictions.
func (r budgetReport) evictionsByNode() map[string]int {
	n := map[string]int{}
	for _, node := range r.evicted {
		n[node]++
	}
	return n
}

// perNode lists the evictions of each node as node:count, sorted by node.
func (r budgetReport) perNode() []string {
	var out []string
	for node, c := range r.evictionsByNode() {
		out = append(out, fmt.Sprintf("%s:%d", node, c))
	}
	sort.Strings(out)
	return out
}

// watchBudget starts following the pods of ns matching selector, with
// desired replicas. The watch resumes when its connection ends; when the API
// server cannot resume it (410 Gone after a restart: its watch cache starts
// anew), the pods are listed again, and those that left meanwhile are counted
// in gone: their way out was not seen.
func watchBudget(t *testing.T, e env, ns, selector string, desired int) *pdbWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := e.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	pw := &pdbWatch{cancel: cancel, done: make(chan struct{}), desired: desired, pods: map[string]*corev1.Pod{}, evicted: map[string]string{}, left: map[string]bool{}}
	for i := range list.Items {
		pw.pods[list.Items[i].Name] = &list.Items[i]
	}
	if u := pw.unavailable(); u != 0 {
		cancel()
		t.Fatalf("%d of %d pods unavailable when the watch starts", u, desired)
	}
	go func() {
		defer close(pw.done)
		rv := list.ResourceVersion
		for ctx.Err() == nil {
			rv = pw.follow(ctx, t, e, ns, selector, rv)
			if rv == "" && ctx.Err() == nil {
				rv = pw.relist(ctx, e, ns, selector)
			}
		}
	}()
	t.Cleanup(func() { pw.stop() })
	return pw
}

// follow watches from rv until the watch ends; it returns the last resource
// version seen, or "" when the server cannot resume from it.
func (pw *pdbWatch) follow(ctx context.Context, t *testing.T, e env, ns, selector, rv string) string {
	w, err := e.kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
		return rv
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			if status, ok := ev.Object.(*metav1.Status); ok && status.Code == http.StatusGone {
				return ""
			}
			if ctx.Err() == nil {
				t.Errorf("pod watch error: %v", ev.Object)
			}
			return rv
		}
		if p, ok := ev.Object.(*corev1.Pod); ok {
			rv = p.ResourceVersion
			if ev.Type != watch.Bookmark {
				pw.observe(ev)
			}
		}
	}
	return rv
}

// relist lists the pods again after a watch could not resume and returns the
// list's resource version ("" while the API server does not answer).
func (pw *pdbWatch) relist(ctx context.Context, e env, ns, selector string) string {
	list, err := e.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
		return ""
	}
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.relists++
	now := map[string]*corev1.Pod{}
	for i := range list.Items {
		now[list.Items[i].Name] = &list.Items[i]
	}
	for name := range pw.pods {
		if _, ok := now[name]; !ok && !pw.left[name] {
			pw.left[name] = true
			pw.gone++
		}
	}
	pw.pods = now
	return list.ResourceVersion
}

func (pw *pdbWatch) setDesired(n int) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.desired = n
}

func (pw *pdbWatch) observe(ev watch.Event) {
	p, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return
	}
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if ev.Type == watch.Deleted {
		delete(pw.pods, p.Name)
	} else {
		pw.pods[p.Name] = p
	}
	u := pw.unavailable()
	if u > pw.worst {
		pw.worst = u
		pw.worstAt = fmt.Sprintf("%s of pod %s on %s at %s", ev.Type, p.Name, p.Spec.NodeName, time.Now().Format("15:04:05.000"))
	}
	if evictedByAPI(p) {
		if _, seen := pw.evicted[p.Name]; !seen {
			pw.evicted[p.Name] = p.Spec.NodeName
			// The Eviction API marks the pod before deleting it: the
			// others unavailable at this moment were so when it let the
			// eviction through.
			others := u
			if p.DeletionTimestamp != nil || ev.Type == watch.Deleted || !podReady(p) {
				others--
			}
			if others > 0 {
				pw.evictedWhileUnavailable++
			}
		}
	}
	if leaving := ev.Type == watch.Deleted || p.DeletionTimestamp != nil; leaving && !pw.left[p.Name] {
		pw.left[p.Name] = true
		if _, evicted := pw.evicted[p.Name]; !evicted {
			pw.deleted++
		}
	}
}

// unavailable is desired less the pods Ready and not being deleted.
func (pw *pdbWatch) unavailable() int {
	healthy := 0
	for _, p := range pw.pods {
		if p.DeletionTimestamp == nil && podReady(p) {
			healthy++
		}
	}
	return max(pw.desired-healthy, 0)
}

// stop ends the watch and reports.
func (pw *pdbWatch) stop() budgetReport {
	pw.mu.Lock()
	pw.stopped = true
	pw.mu.Unlock()
	pw.cancel()
	<-pw.done
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return budgetReport{gone: pw.gone, relists: pw.relists, worst: pw.worst, worstAt: pw.worstAt, evicted: pw.evicted, evictedWhileUnavailable: pw.evictedWhileUnavailable, deleted: pw.deleted}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func evictedByAPI(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == evictionReason {
			return true
		}
	}
	return false
}

// clusterScenario writes the pool's cluster as a `tenon simulate` scenario:
// policy, the pool's Nodes and the pods of ns bound to them. busy names any
// claim of the pool being deleted (the agent already disrupting).
func clusterScenario(t *testing.T, e env, ns, pool, policy string) (string, string) {
	t.Helper()
	var docs []string
	docs = append(docs, policy)
	var busy []string
	for _, c := range poolClaims(t, e, pool) {
		if c.DeletionTimestamp != nil {
			busy = append(busy, "nodeclaim "+c.Name+" is being deleted")
		}
	}
	for _, n := range poolNodes(t, e, pool) {
		n.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
		n.ManagedFields = nil
		docs = append(docs, marshalDoc(t, &n))
	}
	var pods corev1.PodList
	if err := e.client.List(context.Background(), &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
			continue
		}
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		p.ManagedFields = nil
		docs = append(docs, marshalDoc(t, &p))
	}
	return strings.Join(docs, "\n---\n"), strings.Join(busy, "; ")
}

func marshalDoc(t *testing.T, o any) string {
	t.Helper()
	b, err := yaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// prediction is what `tenon simulate --until-stable` ends with.
type prediction struct {
	simulate.ConsolidationReport
	types []string
}

// predictConsolidation runs `tenon simulate --until-stable -o json` in
// process on scenario, a minute after now (so consolidateAfter has passed
// as it will have for the agent), with rounds enough for the pool's
// default budget (10% of the nodes, one at a time here).
func predictConsolidation(t *testing.T, scenario string) prediction {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(scenario), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	now := time.Now().UTC().Add(time.Minute).Truncate(time.Second).Format(time.RFC3339)
	args := []string{"-f", path, "--until-stable", "--max-rounds", "100", "-o", "json", "--now", now}
	if code := simulate.Command(context.Background(), args, &stdout, &stderr); code != simulate.ExitOK {
		t.Fatalf("tenon simulate %s: exit %d: %s\nscenario:\n%s", strings.Join(args, " "), code, stderr.String(), scenario)
	}
	var p prediction
	if err := json.Unmarshal(stdout.Bytes(), &p.ConsolidationReport); err != nil {
		t.Fatalf("reading tenon simulate's JSON: %v\n%s", err, stdout.String())
	}
	if !p.Summary.Stable {
		t.Fatalf("tenon simulate --until-stable did not reach a stable cluster in %d rounds", p.Summary.Rounds)
	}
	for _, n := range p.Nodes {
		p.types = append(p.types, n.InstanceType)
	}
	sort.Strings(p.types)
	var cmds []string
	for _, c := range p.Commands {
		cmds = append(cmds, fmt.Sprintf("round %d %s %v -> %d replacements", c.Round, c.Reason, c.Nodes, len(c.Replacements)))
	}
	t.Logf("tenon simulate --until-stable: %d nodes $%.4f/h -> %d nodes %v $%.4f/h in %d rounds: %s",
		p.Summary.NodesBefore, p.Summary.CostBeforePerHour, p.Summary.NodesAfter, p.types, p.Summary.CostAfterPerHour,
		p.Summary.Rounds, strings.Join(cmds, "; "))
	return p
}

// counters reads the series of a counter from the agent's /metrics, by
// their labels as printed (result="evicted").
func counters(t *testing.T, addr, name string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for labels, v := range gauges(t, addr, name) {
		out[labels] = int(v)
	}
	return out
}

// poolCost prices the pool's nodes with the catalog.
func poolCost(t *testing.T, e env, pool string) float64 {
	t.Helper()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, n := range poolNodes(t, e, pool) {
		it, ok := cat.Get(n.Labels[corev1.LabelInstanceTypeStable])
		if !ok {
			t.Fatalf("node %s: unknown type", n.Name)
		}
		for _, o := range it.Offerings {
			if o.Zone == n.Labels[corev1.LabelTopologyZone] && o.CapacityType == n.Labels[v1.LabelCapacityType] {
				total += o.PricePerHour
			}
		}
	}
	return total
}
