package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// TestBurstShapes: the burst is 16 Deployments of the shapes holding exactly the pods
// asked for, and the scale-down keeps the rounded share of each.
func TestBurstShapes(t *testing.T) {
	ws := burst(500)
	if len(ws) != 16 || total(ws) != 500 {
		t.Fatalf("burst(500): %d Deployments, %d pods", len(ws), total(ws))
	}
	if ws[0].Replicas != 32 || ws[15].Replicas != 31 || ws[0].Name != "cpu250m-mem512mi" || ws[15].Name != "cpu2-mem4gi" {
		t.Errorf("burst(500) = %+v ... %+v", ws[0], ws[15])
	}
	down := scaled(ws, 0.3)
	if down[0].Replicas != 10 || down[15].Replicas != 9 || total(down) != 148 {
		t.Errorf("scaled to 30%%: %d and %d replicas, %d pods; want 10, 9, 148", down[0].Replicas, down[15].Replicas, total(down))
	}
	if ws[0].Replicas != 32 {
		t.Error("scaled changed its input")
	}
}

// TestWorkloadYAML: the Deployments and PDBs created are what the scenario says, and apply as
// objects.
func TestWorkloadYAML(t *testing.T) {
	data, err := workloadYAML(burst(64), "20%")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := kube.ReadData("burst.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
		if o.GetNamespace() != namespace {
			t.Errorf("%s %s in namespace %q", o.GetKind(), o.GetName(), o.GetNamespace())
		}
	}
	if kinds["Deployment"] != 16 || kinds["PodDisruptionBudget"] != 16 {
		t.Errorf("kinds %v", kinds)
	}
	if !strings.Contains(data, "cpu: 250m") || !strings.Contains(data, "memory: 4Gi") || !strings.Contains(data, "maxUnavailable: 20%") {
		t.Errorf("requests or PDB missing:\n%s", data[:min(len(data), 800)])
	}
	none, err := workloadYAML(burst(64), "")
	if err != nil || strings.Contains(none, "PodDisruptionBudget") {
		t.Errorf("no PDB asked for, got one (%v)", err)
	}
}

// TestKarpenterInstanceTypes: Karpenter's instance-types file is Tenon's catalog under the
// shared policy: only c, m and r of generation 3 or later, amd64, on-demand, the catalog's
// prices, and allocatable plus the overhead the KWOK provider takes off again.
func TestKarpenterInstanceTypes(t *testing.T) {
	data, err := karpenterInstanceTypes()
	if err != nil {
		t.Fatal(err)
	}
	var types []karpenterType
	if err := json.Unmarshal(data, &types); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPricer()
	if err != nil {
		t.Fatal(err)
	}
	if len(types) < 20 {
		t.Fatalf("only %d types", len(types))
	}
	for _, kt := range types {
		it, ok := cat.Get(kt.Name)
		if !ok {
			t.Fatalf("%s is not in the catalog", kt.Name)
		}
		if kt.Architecture != "amd64" {
			t.Errorf("%s: architecture %s", kt.Name, kt.Architecture)
		}
		cpu := it.Allocatable.Cpu().DeepCopy()
		cpu.Add(karpenterOverhead[corev1.ResourceCPU])
		if got := kt.Resources[corev1.ResourceCPU]; got.Cmp(cpu) != 0 {
			t.Errorf("%s: cpu %s, want allocatable %s + 100m", kt.Name, got.String(), it.Allocatable.Cpu())
		}
		for _, o := range kt.Offerings {
			labels := map[string]string{}
			for _, r := range o.Requirements {
				labels[r.Key] = r.Values[0]
			}
			gen, _ := strconv.Atoi(labels[labelGeneration])
			if labels["karpenter.sh/capacity-type"] != "on-demand" || !slices.Contains([]string{"c", "m", "r"}, labels[labelCategory]) || gen <= 2 {
				t.Errorf("%s: offering outside the policy: %v", kt.Name, labels)
			}
			if want := p.price(map[string]string{corev1.LabelInstanceTypeStable: kt.Name, corev1.LabelTopologyZone: labels[corev1.LabelTopologyZone],
				"karpenter.sh/capacity-type": "on-demand"}); want != o.Price || want == 0 {
				t.Errorf("%s in %s: price %v, catalog %v", kt.Name, labels[corev1.LabelTopologyZone], o.Price, want)
			}
		}
	}
}

// TestPredictIsSimulate: the prediction is tenon simulate's packing of the burst at once, and
// costs at least its lower bound.
func TestPredictIsSimulate(t *testing.T) {
	p, err := predict(context.Background(), burst(64))
	if err != nil {
		t.Fatal(err)
	}
	if p.Nodes == 0 || p.CostPerHour <= 0 || p.CostPerHour < p.BoundPerHour-1e-9 {
		t.Errorf("prediction %+v", p)
	}
}

// TestObserverCounts: evictions (once per pod), launches and removals, PDB violations once
// the Deployment has reached its replicas, running pods and cost.
func TestObserverCounts(t *testing.T) {
	p, err := newPricer()
	if err != nil {
		t.Fatal(err)
	}
	o := newObserver(p)
	o.mark(map[string]int32{"web": 2})
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{
		"karpenter.sh/nodepool": "default", corev1.LabelInstanceTypeStable: "m5.large", corev1.LabelTopologyZone: "us-east-1a", "karpenter.sh/capacity-type": "on-demand"}}}
	o.node(node)
	o.node(node)
	o.node(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "other"}})
	evicted := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "a"}, Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI"}}}}
	o.pod(evicted)
	o.pod(evicted)
	o.podGone(evicted)
	o.pod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "b"}, Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
	o.pod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "c"}, Status: corev1.PodStatus{Phase: corev1.PodPending}})
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Status: policyv1.PodDisruptionBudgetStatus{ExpectedPods: 2, DesiredHealthy: 2, CurrentHealthy: 1}}
	o.pdb(pdb)
	o.pdb(pdb)
	s, c := o.status(), o.counts()
	if c.evictions != 1 || c.launches != 1 || c.violations != 1 {
		t.Errorf("counts %+v: want 1 eviction, 1 launch, 1 violation", c)
	}
	if s.Nodes != 1 || s.Running != 1 || s.Pending != 1 || s.Pods != 2 || s.CostPerHour != 0.096 {
		t.Errorf("status %+v", s)
	}
	o.nodeGone(node)
	if c := o.counts(); c.removals != 1 {
		t.Errorf("removals %d", c.removals)
	}
	o.lastChange = time.Now().Add(-time.Hour)
	o.mark(map[string]int32{"web": 1})
	if s := o.status(); s.SinceChange > time.Minute || s.Stable != 0 {
		t.Errorf("a new phase starts %s after the last node change, stable after %s: its quiet period must start with it", s.SinceChange, s.Stable)
	}
	if c := o.counts(); c.evictions != 0 || c.launches != 0 {
		t.Errorf("a new phase starts with counts %+v", c)
	}
}

// TestReport: every run and the medians per engine with Tenon's over Karpenter's.
func TestReport(t *testing.T) {
	run := func(engine string, n int, running time.Duration, cost float64) result {
		r := result{Engine: engine, Pods: 500, Run: n}
		r.Up.Running, r.Up.Cost, r.Up.Simulated.CostPerHour = running, cost, 20
		return r
	}
	results := []result{run("tenon", 1, 30*time.Second, 21), run("karpenter", 1, 40*time.Second, 24), run("tenon", 2, 34*time.Second, 23),
		run("karpenter", 2, 60*time.Second, 22), {Engine: "tenon", Pods: 500, Run: 3, Err: "boom"}}
	var buf bytes.Buffer
	report(&buf, config{ScaleDown: 0.3, Pods: []int{500}, Engines: []string{"tenon", "karpenter"}}, results)
	out := buf.String()
	for _, want := range []string{"| 500 | tenon | 3 | 0.0→0.0 | failed: boom |", "| tenon | 2 | 32 | 0 | 22.00 | 1.100 |", "| karpenter | 2 | 50 | 0 | 23.00 | 1.150 |",
		"| tenon ÷ karpenter |  | 0.640 | — | 0.957 |", "simulate of the burst at once: $20.00/h"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestFlags: the defaults, and the diagnostics of bad values.
func TestFlags(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseFlags([]string{"-dir", dir, "-pods", "500, 2000", "-engines", "karpenter,tenon"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Pods) != 2 || cfg.Pods[1] != 2000 || cfg.Engines[0] != "karpenter" || cfg.Runs != 3 || cfg.ScaleDown != 0.3 {
		t.Errorf("config %+v", cfg)
	}
	for args, want := range map[string]string{
		"-pods 10":       "at least 16",
		"-engines cas":   `unknown engine "cas"`,
		"-pods 500,many": "want burst sizes",
	} {
		if _, err := parseFlags(append([]string{"-dir", dir}, strings.Fields(args)...)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

// TestUsage reads this process's CPU time and peak RSS.
func TestUsage(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	x := 0
	for i := range 50_000_000 {
		x += i
	}
	cpu, rss := usage(os.Getpid())
	if cpu <= 0 || rss <= 1 || x == 0 {
		t.Errorf("cpu %v s, peak RSS %v MiB", cpu, rss)
	}
}
