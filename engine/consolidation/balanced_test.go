package consolidation

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestBalancedPolicy: the same underutilized node is replaced under
// WhenEmptyOrUnderutilized and under Balanced, until its pods are costly to
// evict (tenon.dev/disruption-cost): then Balanced keeps it, saying the
// share of cost saved is too small for the share of disruption.
func TestBalancedPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, policy, annotation string
		replaced                 bool
		kept                     string
	}{
		{name: "WhenEmptyOrUnderutilized ignores the disruption cost", policy: "WhenEmptyOrUnderutilized", annotation: v1.AnnotationDisruptionCost, replaced: true},
		{name: "Balanced, cheap pods", policy: "Balanced", replaced: true},
		{name: "Balanced, costly pods", policy: "Balanced", annotation: v1.AnnotationDisruptionCost,
			kept: "Balanced: saves 37.5% of nodepool p's cost for 81.5% of its disruption (score 0.46, needs 0.5)"},
		{name: "Balanced, Karpenter's annotation", policy: "Balanced", annotation: v1.AnnotationKarpenterDisruptionCost, kept: "Balanced: saves 37.5%"},
		{name: "Balanced, pod deletion cost", policy: "Balanced", annotation: v1.AnnotationPodDeletionCost, kept: "Balanced: saves 37.5%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := testPool("p", func(p *state.Pool) { p.Disruption.ConsolidationPolicy = tc.policy },
				withReq(scheduling.In(scheduling.LabelInstanceFamily, "m5")))
			n1 := testNode(pool, "n1", "m5.2xlarge", "us-east-1a", "on-demand")
			n2 := testNode(pool, "n2", "m5.2xlarge", "us-east-1a", "on-demand")
			var pods []*state.Pod
			for i := range 8 {
				var opts []podOpt
				if tc.annotation != "" {
					opts = append(opts, annotated(tc.annotation, "2147483647"))
				}
				pods = append(pods, testPod(fmt.Sprintf("light-%d", i), "250m", "256Mi", "n1", opts...))
			}
			for i := range 30 {
				pods = append(pods, testPod(fmt.Sprintf("full-%d", i), "250m", "256Mi", "n2"))
			}
			snap := snapshot([]*state.Pool{pool}, []*state.Node{n1, n2}, pods)
			res, err := Plan(context.Background(), snap, t0, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			replaced := len(res.Commands) == 1 && res.Commands[0].Nodes[0] == "n1" && len(res.Commands[0].Replacements) > 0
			if replaced != tc.replaced {
				t.Fatalf("replaced %v, want %v: %+v", replaced, tc.replaced, res.Commands)
			}
			if got := keptReason(res, "n1"); tc.kept != "" && !strings.Contains(got, tc.kept) {
				t.Errorf("n1 kept for %q, want %q", got, tc.kept)
			}
		})
	}
}

func TestEvictionCost(t *testing.T) {
	honour, ignore := testPool("h"), testPool("i", func(p *state.Pool) { p.IgnoreKarpenterAnnotations = true })
	for _, tc := range []struct {
		name        string
		pool        *state.Pool
		annotations map[string]string
		want        float64
	}{
		{"none", honour, nil, 1},
		{"tenon's first", honour, map[string]string{v1.AnnotationDisruptionCost: "134217728", v1.AnnotationKarpenterDisruptionCost: "-134217728"}, 2},
		{"karpenter's", honour, map[string]string{v1.AnnotationKarpenterDisruptionCost: "-134217728"}, 0},
		{"karpenter's ignored", ignore, map[string]string{v1.AnnotationKarpenterDisruptionCost: "-134217728"}, 1},
		{"pod deletion cost last", honour, map[string]string{v1.AnnotationPodDeletionCost: "268435456"}, 3},
		{"the agent's pod deletion cost is not read", honour, map[string]string{v1.AnnotationPodDeletionCost: "-268435456", v1.AnnotationPodDeletionCostOwned: "-268435456"}, 1},
		{"a pod deletion cost changed since the agent wrote it is read", honour, map[string]string{v1.AnnotationPodDeletionCost: "268435456", v1.AnnotationPodDeletionCostOwned: "-2000000"}, 3},
		{"not an int32", honour, map[string]string{v1.AnnotationDisruptionCost: "2147483648"}, 1},
		{"lowest", honour, map[string]string{v1.AnnotationDisruptionCost: "-2147483648"}, -15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod("p", "1", "1Gi", "n")
			pod.Annotations = tc.annotations
			if got := evictionCost(tc.pool, pod); math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBalancedScore(t *testing.T) {
	totals := balanceTotals{cost: 10, disruption: 100}
	for _, tc := range []struct {
		saving, disruption, want float64
	}{
		{1, 20, 0.5}, {1, 21, 10.0 / 21}, {0, 5, 0}, {-1, 5, 0}, {1, 0, math.Inf(1)},
	} {
		if got := balancedScore(tc.saving, tc.disruption, totals); math.Abs(got-tc.want) > 1e-9 && !(math.IsInf(got, 1) && math.IsInf(tc.want, 1)) {
			t.Errorf("score(%v, %v) = %v, want %v", tc.saving, tc.disruption, got, tc.want)
		}
	}
	if got := balancedScore(1, 1, balanceTotals{}); got != 0 {
		t.Errorf("empty totals score %v, want 0", got)
	}
}

// TestBalancedProperties: on random Balanced pools (node sizes, pods with
// random disruption costs), every consolidation command the plan makes
// scores at least 1/BalancedK against the pool's totals in the Snapshot,
// and every plan holds. (With the pool on WhenEmptyOrUnderutilized, 24 of
// the commands fail the score: the property can fail.)
func TestBalancedProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 6))
	scored := 0
	for i := range 150 {
		pool := testPool("p", func(p *state.Pool) { p.Disruption.ConsolidationPolicy = string(v1.ConsolidationPolicyBalanced) },
			withReq(scheduling.In(scheduling.LabelInstanceFamily, "m5")))
		var nodes []*state.Node
		var pods []*state.Pod
		for j := range 2 + r.IntN(5) {
			name := fmt.Sprintf("n%d", j)
			nodes = append(nodes, testNode(pool, name, []string{"m5.large", "m5.xlarge", "m5.2xlarge"}[r.IntN(3)], "us-east-1a", "on-demand"))
			for k := range r.IntN(6) {
				var opts []podOpt
				if r.IntN(3) == 0 {
					opts = append(opts, annotated(v1.AnnotationDisruptionCost, strconv.Itoa(r.IntN(1<<28)-1<<26)))
				}
				pods = append(pods, testPod(fmt.Sprintf("p-%d-%d", j, k), "100m", "128Mi", name, opts...))
			}
		}
		snap := snapshot([]*state.Pool{pool}, nodes, pods)
		res, err := Plan(context.Background(), snap, t0, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var total balanceTotals
		onNode := map[string]float64{}
		for _, n := range snap.Nodes {
			total.cost += n.PricePerHour
			total.disruption++
			onNode[n.Name] = 1
		}
		for _, pod := range snap.Pods {
			if pod.Workload() {
				c := max(0, evictionCost(pool, pod))
				total.disruption += c
				onNode[pod.NodeName] += c
			}
		}
		for _, c := range res.Commands {
			if c.Reason != ReasonUnderutilized {
				continue
			}
			disruption := 0.0
			for _, n := range c.Nodes {
				disruption += onNode[n]
			}
			scored++
			if s := balancedScore(c.CostBeforePerHour-c.CostAfterPerHour, disruption, total); s < 1.0/v1.BalancedK-1e-6 {
				t.Errorf("case %d: command %v saves $%.4f/h of $%.4f/h for disruption %.2f of %.2f: score %.3f < %.3f",
					i, c.Nodes, c.CostBeforePerHour-c.CostAfterPerHour, total.cost, disruption, total.disruption, s, 1.0/v1.BalancedK)
			}
		}
		if v := Validate(snap, res); len(v) > 0 {
			t.Errorf("case %d: the plan does not hold: %v", i, v)
		}
	}
	if scored == 0 {
		t.Error("no case made a consolidation command; the property was never checked")
	}
	t.Logf("%d consolidation commands scored", scored)
}
