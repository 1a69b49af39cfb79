package consolidation

import (
	"context"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestReplacementCommitsToOpenKeys: on a pool that leaves a key open
// (example.com/team In [a, b]), a replacement for a node whose pod requires
// team=a carries that value, and the node Apply makes of it has the label,
// so the agent launches a node the pod can move to.
func TestReplacementCommitsToOpenKeys(t *testing.T) {
	pool := testPool("p", withReq(scheduling.In("example.com/team", "a", "b")))
	big := testNode(pool, "big", "m5.4xlarge", "us-east-1a", "on-demand")
	big.Labels["example.com/team"] = "a"
	pod := testPod("web-1", "1", "1Gi", "big", statetest.WithNodeSelector("example.com/team", "a"))
	snap := snapshot([]*state.Pool{pool}, []*state.Node{big}, []*state.Pod{pod})
	res, err := Plan(context.Background(), snap, t0, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) != 1 || len(res.Commands[0].Replacements) != 1 {
		t.Fatalf("want one replacement of big, got %+v (kept %+v)", res.Commands, res.Kept)
	}
	r := res.Commands[0].Replacements[0]
	if r.Labels["example.com/team"] != "a" {
		t.Fatalf("replacement labels %v, want example.com/team=a", r.Labels)
	}
	after, err := Apply(snap, res)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range after.Nodes {
		if n.Name == r.Name && n.Labels["example.com/team"] != "a" {
			t.Errorf("the applied replacement's labels %v lack example.com/team=a", n.Labels)
		}
	}
}
