package consolidation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func staticPool(replicas int64, opts ...poolOpt) *state.Pool {
	base := []poolOpt{func(p *state.Pool) { p.Replicas = &replicas }, withReq(scheduling.In(scheduling.LabelInstanceType, "m5.large", "m5.xlarge"))}
	return testPool("static", append(base, opts...)...)
}

// A static pool above its replicas sheds the surplus: empty nodes first,
// then the node with the fewest pods, within budgets and PDBs; its other
// nodes are never consolidated, however underused.
func TestStaticScaleDown(t *testing.T) {
	cases := []struct {
		name     string
		replicas int64
		opts     []poolOpt
		pdb      bool
		// launching adds a fourth node, still launching.
		launching bool
		removed   []string
		kept      map[string]string
	}{
		{name: "at its replicas, underused nodes stay", replicas: 3,
			kept: map[string]string{"s-a": "is static (replicas 3): consolidation leaves its nodes alone", "s-c": "empty, but nodepool static is static"}},
		{name: "one over: the empty node goes", replicas: 2, removed: []string{"s-c"}},
		{name: "two over: then the node with fewer pods", replicas: 1, removed: []string{"s-b", "s-c"}},
		{name: "a budget of one", replicas: 1, opts: []poolOpt{withBudgets(state.Budget{Nodes: "1"})}, removed: []string{"s-c"},
			kept: map[string]string{"s-b": "budget of nodepool static allows 1 now"}},
		{name: "a budget for other reasons does not hold it", replicas: 2, opts: []poolOpt{withBudgets(state.Budget{Nodes: "0", Reasons: []string{"Drifted"}})},
			removed: []string{"s-c"}},
		{name: "a node still launching is waited for, not replaced by a busy one", replicas: 3, launching: true,
			kept: map[string]string{"s-a": "is static (replicas 3)", "s-b": "is static (replicas 3)", "s-c": "empty, but nodepool static is static"}},
		{name: "beyond the nodes still launching, the surplus goes", replicas: 2, launching: true, removed: []string{"s-c"}},
		{name: "a PDB keeps a node, the next goes", replicas: 1, pdb: true, removed: []string{"s-a", "s-c"},
			kept: map[string]string{"s-b": "PDB default/solo allows 0 disruptions"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pool := staticPool(tc.replicas, tc.opts...)
			nodes := []*state.Node{
				testNode(pool, "s-a", "m5.xlarge", "us-east-1a", "on-demand"),
				testNode(pool, "s-b", "m5.xlarge", "us-east-1b", "on-demand"),
				testNode(pool, "s-c", "m5.xlarge", "us-east-1c", "on-demand"),
			}
			if tc.launching {
				n := testNode(pool, "s-d", "m5.large", "us-east-1a", "on-demand")
				n.InFlight, n.Initialized = true, false
				nodes = append(nodes, n)
			}
			pods := []*state.Pod{
				testPod("web-1", "500m", "512Mi", "s-a"), testPod("web-2", "500m", "512Mi", "s-a"),
				testPod("solo-1", "500m", "512Mi", "s-b"),
			}
			snap := snapshot([]*state.Pool{pool}, nodes, pods)
			if tc.pdb {
				snap.PDBs = []*state.PDB{pdb("solo", "solo", ptr(intstr.FromInt32(1)), nil)}
			}
			res, err := Plan(context.Background(), snap, t0, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Removed(); strings.Join(got, ",") != strings.Join(tc.removed, ",") {
				t.Fatalf("removed %v, want %v; commands %+v", got, tc.removed, res.Commands)
			}
			for _, c := range res.Commands {
				if c.Reason != ReasonOverprovisioned || len(c.Replacements) != 0 {
					t.Errorf("command %+v: want an Overprovisioned deletion", c)
				}
			}
			for node, want := range tc.kept {
				if got := keptReason(res, node); !strings.Contains(got, want) {
					t.Errorf("%s kept for %q, want %q", node, got, want)
				}
			}
			if v := Validate(snap, res); len(v) > 0 {
				t.Fatalf("the plan does not hold: %v", v)
			}
		})
	}
}

// A drifted node of a static pool is replaced first by a node of the pool
// launched as engine/static launches one, even when its pods fit elsewhere;
// at limits.nodes it is removed alone, and the agent refills the pool.
func TestStaticDrift(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         []poolOpt
		replacements int
	}{
		{name: "replace first", replacements: 1},
		{name: "at limits.nodes", opts: []poolOpt{func(p *state.Pool) { p.Limits = nodesLimit("2") }}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := staticPool(2, tc.opts...)
			old := testNode(pool, "s-a", "m5.xlarge", "us-east-1a", "on-demand")
			old.TemplateHash = "hash-0"
			nodes := []*state.Node{old, testNode(pool, "s-b", "m5.xlarge", "us-east-1b", "on-demand")}
			pods := []*state.Pod{testPod("web-1", "500m", "512Mi", "s-a")}
			snap := snapshot([]*state.Pool{pool}, nodes, pods)
			res, err := Plan(context.Background(), snap, t0, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Commands) != 1 {
				t.Fatalf("commands %+v, want one", res.Commands)
			}
			c := res.Commands[0]
			if c.Reason != ReasonDrifted || strings.Join(c.Nodes, ",") != "s-a" || len(c.Replacements) != tc.replacements {
				t.Fatalf("command %+v", c)
			}
			if tc.replacements == 1 {
				r := c.Replacements[0]
				if r.NodePool != "static" || r.InstanceType != "m5.large" || r.Name == "s-a" || r.Name == "s-b" {
					t.Fatalf("replacement %+v: want the pool's cheapest type, m5.large", r)
				}
			}
			if v := Validate(snap, res); len(v) > 0 {
				t.Fatalf("the plan does not hold: %v", v)
			}
		})
	}
}

func nodesLimit(n string) corev1.ResourceList {
	return corev1.ResourceList{state.ResourceNodes: resource.MustParse(n)}
}

// TestStaticProperties: on random static pools (replicas, nodes with
// random pods, budget), consolidation only ever deletes surplus nodes
// (Overprovisioned, no replacement), never more than the surplus nor than
// the budget allows, all of it when the budget allows, emptiest first,
// and every plan holds.
func TestStaticProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 3))
	for i := range 200 {
		replicas, n := int64(r.IntN(6)), r.IntN(8)
		budget := []string{"100%", "1", "50%"}[r.IntN(3)]
		pool := staticPool(replicas, withBudgets(state.Budget{Nodes: budget}))
		var nodes []*state.Node
		var pods []*state.Pod
		podsOn := map[string]int{}
		for j := range n {
			name := fmt.Sprintf("s-%d", j)
			nodes = append(nodes, testNode(pool, name, []string{"m5.large", "m5.xlarge"}[r.IntN(2)], []string{"us-east-1a", "us-east-1b"}[r.IntN(2)], "on-demand"))
			for k := range r.IntN(4) {
				pods = append(pods, testPod(fmt.Sprintf("p-%d-%d", j, k), "100m", "128Mi", name))
				podsOn[name]++
			}
		}
		snap := snapshot([]*state.Pool{pool}, nodes, pods)
		res, err := Plan(context.Background(), snap, t0, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		surplus := max(0, n-int(replicas))
		allowed := surplus
		switch budget {
		case "1":
			allowed = min(surplus, 1)
		case "50%":
			allowed = min(surplus, (n+1)/2)
		}
		removed := res.Removed()
		desc := fmt.Sprintf("case %d (replicas %d, %d nodes, budget %s)", i, replicas, n, budget)
		if len(removed) != allowed {
			t.Errorf("%s: removed %v; want %d nodes", desc, removed, allowed)
		}
		for _, c := range res.Commands {
			if c.Reason != ReasonOverprovisioned || len(c.Replacements) != 0 {
				t.Errorf("%s: command %s %v with %d replacements; want Overprovisioned deletions only", desc, c.Reason, c.Nodes, len(c.Replacements))
			}
		}
		most := 0
		for _, name := range removed {
			most = max(most, podsOn[name])
		}
		for _, node := range nodes {
			if !slices.Contains(removed, node.Name) && podsOn[node.Name] < most {
				t.Errorf("%s: kept %s with %d pods and removed a node with %d; want emptiest first", desc, node.Name, podsOn[node.Name], most)
			}
		}
		if v := Validate(snap, res); len(v) > 0 {
			t.Errorf("%s: the plan does not hold: %v", desc, v)
		}
	}
}
