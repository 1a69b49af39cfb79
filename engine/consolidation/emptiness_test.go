package consolidation

import (
	"context"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestEmptinessAlone: with Options.Reasons the plan runs emptiness only
// (the agent's fast tick); an empty node a rule holds back is kept with the
// rule named in Kept.Held, for the agent's metrics; a nominated node
// (pending pods expected on it) is never disrupted.
func TestEmptinessAlone(t *testing.T) {
	pool := testPool("p", withBudgets(state.Budget{Nodes: "1"}))
	node := func(name string) *state.Node { return testNode(pool, name, "m5.large", "us-east-1a", "on-demand") }
	a, budget, nominated, pinned, busy := node("a"), node("b-budget"), node("c-nominated"), node("d-pinned"), node("e-busy")
	nominated.Nominated = true
	pinned.Annotations = map[string]string{v1.AnnotationDoNotDisrupt: "true"}
	// e-busy's pod fits on a: the full plan would delete it, not emptiness.
	snap := snapshot([]*state.Pool{pool}, []*state.Node{a, budget, nominated, pinned, busy}, []*state.Pod{testPod("web-1", "100m", "128Mi", "e-busy")})

	opts := DefaultOptions()
	opts.Reasons = []Reason{ReasonEmpty}
	res, err := Plan(context.Background(), snap, t0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) != 1 || res.Commands[0].Reason != ReasonEmpty || len(res.Commands[0].Nodes) != 1 || res.Commands[0].Nodes[0] != "a" {
		t.Fatalf("commands %+v, want one Empty command removing a (the budget allows 1)", res.Commands)
	}
	want := map[string]Hold{"b-budget": HeldByBudget, "c-nominated": HeldByPendingPods, "d-pinned": HeldByDoNotDisrupt, "e-busy": ""}
	for _, k := range res.Kept {
		if k.Held != want[k.Node] {
			t.Errorf("node %s kept (%s) held by %q, want %q", k.Node, k.Reason, k.Held, want[k.Node])
		}
		if (k.Held != "") != (k.Method == ReasonEmpty) {
			t.Errorf("node %s: method %q for hold %q", k.Node, k.Method, k.Held)
		}
	}
	if len(res.Kept) != len(want) {
		t.Errorf("kept %+v, want the four other nodes", res.Kept)
	}

	// The whole plan keeps the nominated node out of every method.
	full, err := Plan(context.Background(), snap, t0, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range full.Commands {
		for _, n := range c.Nodes {
			if n == "c-nominated" {
				t.Errorf("the full plan disrupts the nominated node: %+v", c)
			}
		}
	}
	if r := keptReason(full, "c-nominated"); r != "empty, but "+awaitsPods {
		t.Errorf("nominated node kept as %q", r)
	}
}
