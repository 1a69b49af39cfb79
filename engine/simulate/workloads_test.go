package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestSimulateWorkloadsJSON runs `tenon simulate -o json --check` in
// process on a sample of the reference workloads (example-features for its
// daemonsets) and validates the JSON on its own terms, as the benchmark's
// judge does: every pod exactly once, no node over-committed against the
// catalog's allocatable (daemonsets included), every offering real and
// allowed, the topology rules held, and a summary consistent with the nodes.
func TestSimulateWorkloadsJSON(t *testing.T) {
	requirePacking(t)
	for _, name := range []string{"w1", "w3", "diverse-1k", "example-features"} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(workloadsDir, name+".yaml")
			if _, err := os.Stat(file); err != nil {
				t.Skipf("SKIPPING: %s is absent", file)
			}
			var stdout, stderr bytes.Buffer
			c := command{engine: packingSolver{}, now: time.Now}
			if code := c.run(context.Background(), []string{"-f", file, "-o", "json", "--check"}, &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			var rep Report
			dec := json.NewDecoder(&stdout)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rep); err != nil {
				t.Fatalf("decoding the JSON: %v", err)
			}
			s, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			validateReport(t, s, snap, &rep)
		})
	}
}

func validateReport(t *testing.T, s *Scenario, snap *state.Snapshot, rep *Report) {
	t.Helper()
	pending := map[string]*state.Pod{}
	for _, p := range snap.PendingPods() {
		pending[p.Key()] = p
	}
	seen := map[string]int{}
	nodeOf := map[string]*ReportNode{}
	newNodes := 0
	cost := 0.0
	for i := range rep.Nodes {
		n := &rep.Nodes[i]
		for _, key := range n.Pods {
			seen[key]++
			nodeOf[key] = n
		}
		if n.Existing {
			continue
		}
		newNodes++
		cost += checkNode(t, s, snap, n, pending)
	}
	for _, u := range rep.Unschedulable {
		seen[u.Pod]++
		if u.Reason == "" {
			t.Errorf("pod %s is unschedulable without a reason", u.Pod)
		}
	}
	for key := range pending {
		if seen[key] != 1 {
			t.Errorf("pod %s appears %d times, want exactly once", key, seen[key])
		}
	}
	for key := range seen {
		if pending[key] == nil {
			t.Errorf("output names pod %s, which is not pending", key)
		}
	}
	sum := rep.Summary
	if sum.Pods != len(pending) || sum.NewNodes != newNodes || sum.Placed+sum.Unschedulable != len(pending) {
		t.Errorf("summary %+v: want pods %d, newNodes %d", sum, len(pending), newNodes)
	}
	if math.Abs(sum.CostPerHour-cost) > 1e-4 {
		t.Errorf("summary cost %.6f, catalog prices of the nodes sum to %.6f", sum.CostPerHour, cost)
	}
	if sum.LowerBoundPerHour <= 0 || sum.LowerBoundPerHour > sum.CostPerHour+1e-6 {
		t.Errorf("lower bound %.6f is not in (0, cost %.6f]", sum.LowerBoundPerHour, sum.CostPerHour)
	}
	if len(sum.SolveRuns) != 1 || sum.SolveSeconds != sum.SolveRuns[0] {
		t.Errorf("solveRuns %v, solveSeconds %v", sum.SolveRuns, sum.SolveSeconds)
	}
	t.Logf("%s: %d nodes, $%.4f/h, bound $%.4f/h, ratio %.4f, %d unschedulable", s.Name, newNodes, sum.CostPerHour,
		sum.LowerBoundPerHour, sum.CostPerHour/sum.LowerBoundPerHour, sum.Unschedulable)
	checkSpread(t, pending, nodeOf)
}

// checkNode checks one new node and returns its catalog price.
func checkNode(t *testing.T, s *Scenario, snap *state.Snapshot, n *ReportNode, pending map[string]*state.Pod) float64 {
	t.Helper()
	it, ok := s.Catalog.Get(n.InstanceType)
	if !ok {
		t.Errorf("node %s: instance type %s is not in the catalog", n.Name, n.InstanceType)
		return 0
	}
	price := -1.0
	for _, o := range it.Offerings {
		if o.Zone == n.Zone && o.CapacityType == n.CapacityType {
			price = o.PricePerHour
		}
	}
	if price < 0 {
		t.Errorf("node %s: %s has no %s offering in %s", n.Name, n.InstanceType, n.CapacityType, n.Zone)
		return 0
	}
	var pool *state.Pool
	for _, p := range snap.Pools {
		if p.Name == n.NodePool {
			pool = p
		}
	}
	if pool == nil {
		t.Errorf("node %s: no pool %q", n.Name, n.NodePool)
		return price
	}
	for key, value := range map[string]string{
		scheduling.LabelTopologyZone: n.Zone, scheduling.LabelCapacityType: n.CapacityType,
		scheduling.LabelArch: it.Requirements.Get(scheduling.LabelArch).Values()[0],
	} {
		if pool.Requirements.Has(key) && !pool.Requirements.Get(key).Has(value) {
			t.Errorf("node %s: pool %s does not allow %s=%s", n.Name, pool.Name, key, value)
		}
	}
	used := corev1.ResourceList{}
	for _, ds := range snap.DaemonSets {
		addInto(used, ds.Pod.Requests)
	}
	for _, key := range n.Pods {
		if p := pending[key]; p != nil {
			addInto(used, p.Requests)
		}
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		u, a := used[r], it.Allocatable[r]
		if u.Cmp(a) > 0 {
			t.Errorf("node %s (%s): %s requested %s > allocatable %s", n.Name, n.InstanceType, r, u.String(), a.String())
		}
	}
	return price
}

// errorReporter is the part of testing.T the checks use, so a test can
// check the checks.
type errorReporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// checkSpread applies the benchmark judge's topology rules to the
// placement: DoNotSchedule spread on zone (over the scenario's three zones,
// empty ones counting 0) and hostname (over every node of the result),
// required anti-affinity, and required affinity (every domain with pods
// carrying a term also holds a matching pod without it, except at most one
// domain whose own pods of the term match the selector: the first-pod
// rule).
func checkSpread(t errorReporter, pending map[string]*state.Pod, nodeOf map[string]*ReportNode) {
	t.Helper()
	domain := func(key string, n *ReportNode) string {
		if key == scheduling.LabelTopologyZone {
			return n.Zone
		}
		return n.Name
	}
	type spread struct {
		sel     labels.Selector
		key     string
		maxSkew int32
	}
	spreads := map[string]spread{}
	for _, p := range pending {
		for _, c := range p.TopologySpread {
			if c.WhenUnsatisfiable == corev1.DoNotSchedule {
				sel, _ := metav1.LabelSelectorAsSelector(c.LabelSelector)
				spreads[fmt.Sprintf("%s %s %d", sel, c.TopologyKey, c.MaxSkew)] = spread{sel: sel, key: c.TopologyKey, maxSkew: c.MaxSkew}
			}
		}
	}
	for name, sp := range spreads {
		counts := map[string]int{}
		if sp.key == scheduling.LabelTopologyZone {
			for _, z := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
				counts[z] = 0
			}
		} else {
			for _, n := range nodeOf {
				counts[n.Name] += 0
			}
		}
		for key, p := range pending {
			if n := nodeOf[key]; n != nil && sp.sel.Matches(labels.Set(p.Labels)) {
				counts[domain(sp.key, n)]++
			}
		}
		lo, hi := math.MaxInt, 0
		for _, c := range counts {
			lo, hi = min(lo, c), max(hi, c)
		}
		if int32(hi-lo) > sp.maxSkew {
			t.Errorf("spread %s: max %d - min %d exceeds maxSkew", name, hi, lo)
		}
	}
	type term struct {
		sel labels.Selector
		key string
	}
	affinity := map[string]term{}
	carries := map[string]map[string]bool{} // term -> pods carrying it
	for key, p := range pending {
		if p.Affinity == nil {
			continue
		}
		if pa := p.Affinity.PodAntiAffinity; pa != nil {
			for _, tm := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				sel, _ := metav1.LabelSelectorAsSelector(tm.LabelSelector)
				for other, op := range pending {
					if other != key && nodeOf[key] != nil && nodeOf[other] != nil && sel.Matches(labels.Set(op.Labels)) &&
						domain(tm.TopologyKey, nodeOf[key]) == domain(tm.TopologyKey, nodeOf[other]) {
						t.Errorf("pod %s shares %s %s with %s, against its anti-affinity", key, tm.TopologyKey, domain(tm.TopologyKey, nodeOf[key]), other)
					}
				}
			}
		}
		if pa := p.Affinity.PodAffinity; pa != nil {
			for _, tm := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				sel, _ := metav1.LabelSelectorAsSelector(tm.LabelSelector)
				id := sel.String() + " " + tm.TopologyKey
				affinity[id] = term{sel: sel, key: tm.TopologyKey}
				if carries[id] == nil {
					carries[id] = map[string]bool{}
				}
				carries[id][key] = true
			}
		}
	}
	for id, tm := range affinity {
		satisfied, selfOnly := map[string]bool{}, map[string]bool{}
		for key := range carries[id] {
			if n := nodeOf[key]; n != nil {
				satisfied[domain(tm.key, n)] = false
			}
		}
		for key, p := range pending {
			n := nodeOf[key]
			if n == nil || !tm.sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			d := domain(tm.key, n)
			if _, ok := satisfied[d]; !ok {
				continue
			}
			if carries[id][key] {
				selfOnly[d] = true
			} else {
				satisfied[d] = true
			}
		}
		exceptions := 0
		for d, ok := range satisfied {
			if ok {
				continue
			}
			if !selfOnly[d] {
				t.Errorf("affinity %s: domain %s holds pods of the term and no pod they select", id, d)
			}
			exceptions++
		}
		if exceptions > 1 {
			t.Errorf("affinity %s: %d domains rely on the first-pod rule; at most one may", id, exceptions)
		}
	}
}

// TestSimulateExistingNodes fills an existing node and an in-flight claim
// before launching anything, and reports them as existing.
func TestSimulateExistingNodes(t *testing.T) {
	requirePacking(t)
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now}
	if code := c.run(context.Background(), []string{"-f", filepath.Join("testdata", "existing.yaml"), "-o", "json", "--check"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	var rep Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]ReportNode{}
	for _, n := range rep.Nodes {
		got[n.Name] = n
	}
	tests := []struct {
		name string
		ok   bool
	}{
		{"no new node is launched", rep.Summary.NewNodes == 0 && rep.Summary.CostPerHour == 0},
		{"every pod is placed", rep.Summary.Placed == 6 && len(rep.Unschedulable) == 0},
		{"the existing node is used", got["old-node"].Existing && !got["old-node"].InFlight && len(got["old-node"].Pods) > 0},
		{"the in-flight claim is used", got["default-inflight"].Existing && got["default-inflight"].InFlight && got["default-inflight"].InstanceType == "m5.large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Errorf("report: %s", stdout.String())
			}
		})
	}
}

// collector records what a check reports.
type collector struct{ errs []string }

func (c *collector) Helper() {}

func (c *collector) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// TestCheckSpreadCatchesViolations makes sure the independent checks above
// can fail: each case breaks one rule.
func TestCheckSpreadCatchesViolations(t *testing.T) {
	newPod := func(name, app string, mutate func(*corev1.PodSpec)) *state.Pod {
		spec := &corev1.PodSpec{}
		if mutate != nil {
			mutate(spec)
		}
		return &state.Pod{Namespace: "default", Name: name, Labels: map[string]string{"app": app},
			Affinity: spec.Affinity, TopologySpread: spec.TopologySpreadConstraints}
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	zoneSpread := func(s *corev1.PodSpec) {
		s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: scheduling.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	}
	hostSpread := func(s *corev1.PodSpec) {
		s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: scheduling.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	}
	antiHost := func(s *corev1.PodSpec) {
		s.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: sel, TopologyKey: scheduling.LabelHostname}}}}
	}
	affZone := func(s *corev1.PodSpec) {
		s.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: sel, TopologyKey: scheduling.LabelTopologyZone}}}}
	}
	n1 := &ReportNode{Name: "n1", Zone: "us-east-1a"}
	n2 := &ReportNode{Name: "n2", Zone: "us-east-1a"}
	n3 := &ReportNode{Name: "n3", Zone: "us-east-1b"}
	n4 := &ReportNode{Name: "n4", Zone: "us-east-1c"}
	tests := []struct {
		name   string
		pods   []*state.Pod
		nodeOf []*ReportNode
		want   string
	}{
		{"zone spread holds", []*state.Pod{newPod("a-0", "a", zoneSpread), newPod("a-1", "a", zoneSpread), newPod("a-2", "a", zoneSpread)}, []*ReportNode{n1, n3, n4}, ""},
		{"zone spread broken", []*state.Pod{newPod("a-0", "a", zoneSpread), newPod("a-1", "a", zoneSpread)}, []*ReportNode{n1, n2}, "exceeds maxSkew"},
		{"hostname spread counts empty nodes", []*state.Pod{newPod("a-0", "a", hostSpread), newPod("a-1", "a", hostSpread), newPod("b-0", "b", nil)}, []*ReportNode{n1, n1, n2}, "exceeds maxSkew"},
		{"anti-affinity broken", []*state.Pod{newPod("a-0", "a", antiHost), newPod("a-1", "a", antiHost)}, []*ReportNode{n1, n1}, "against its anti-affinity"},
		{"anti-affinity holds", []*state.Pod{newPod("a-0", "a", antiHost), newPod("a-1", "a", antiHost)}, []*ReportNode{n1, n2}, ""},
		{"self-affinity in one zone holds", []*state.Pod{newPod("a-0", "a", affZone), newPod("a-1", "a", affZone)}, []*ReportNode{n1, n2}, ""},
		{"self-affinity split over zones", []*state.Pod{newPod("a-0", "a", affZone), newPod("a-1", "a", affZone)}, []*ReportNode{n1, n3}, "at most one may"},
		{"affinity to pods elsewhere", []*state.Pod{newPod("x-0", "x", affZone), newPod("a-0", "a", nil)}, []*ReportNode{n1, n3}, "no pod they select"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pending := map[string]*state.Pod{}
			nodeOf := map[string]*ReportNode{}
			for i, p := range tt.pods {
				pending[p.Key()] = p
				nodeOf[p.Key()] = tt.nodeOf[i]
			}
			var c collector
			checkSpread(&c, pending, nodeOf)
			got := strings.Join(c.errs, "\n")
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("errors %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSimulateUsesPoolSavingsThresholds: tenon simulate --consolidate applies the scenario's
// NodePool savings thresholds: with minSavingsPerHour 0.5 the node stays, naming the threshold;
// without it the same node is replaced by a cheaper one.
func TestSimulateUsesPoolSavingsThresholds(t *testing.T) {
	requirePacking(t)
	scenario, err := os.ReadFile(filepath.Join("testdata", "savings-thresholds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, scenario, want string
	}{
		{"the pool's threshold keeps the node", string(scenario), "saving $0.1752/h below threshold ($0.5/h and 10% of $0.192/h)"},
		{"the defaults replace it", strings.Replace(string(scenario), `minSavingsPerHour: "0.5"`, "", 1), "replace the node with 1 node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "scenario.yaml")
			if err := os.WriteFile(file, []byte(tc.scenario), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			c := command{engine: packingSolver{}, now: time.Now}
			if code := c.run(context.Background(), []string{"--consolidate", "-f", file}, &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("the report does not say %q:\n%s", tc.want, stdout.String())
			}
		})
	}
}
