package consolidation

import (
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestTriage classes a candidate without simulating: likely deletion when
// first fit places its pods on the other nodes, maybe replacement when
// the new nodes that must hold what does not fit may still cost less
// than the node by the saving a command must make, hopeless otherwise.
func TestTriage(t *testing.T) {
	m5 := func() *state.Pool {
		return testPool("default", withReq(scheduling.In(scheduling.LabelInstanceFamily, "m5")))
	}
	cases := []struct {
		name string
		// pods are the candidate c's pods as cpu requests; other holds
		// one pod of otherCPU on an m5.xlarge.
		pods     []string
		otherCPU string
		want     triage
		reason   string
	}{
		{name: "its pod fits on the other node", pods: []string{"1"}, otherCPU: "2", want: likelyDeletion},
		{name: "a full node of the cheapest size per cpu: no replacement can pay", pods: []string{"1900m"}, otherCPU: "3900m", want: hopeless,
			reason: "no cheaper placement: its pods do not fit in the other nodes' free room (first fit), and new nodes for the 1900m cpu"},
		{name: "half the node: a smaller replacement may pay", pods: []string{"500m"}, otherCPU: "3900m", want: maybeReplacement},
		{name: "only what fits nowhere counts toward the bound", pods: []string{"1500m", "400m"}, otherCPU: "3500m", want: maybeReplacement},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := m5()
			nodes := []*state.Node{testNode(p, "c", "m5.large", zoneA, od), testNode(p, "other", "m5.xlarge", zoneA, od)}
			pods := []*state.Pod{testPod("big-1", tc.otherCPU, "1Gi", "other")}
			for i, cpu := range tc.pods {
				pods = append(pods, testPod("web-"+string(rune('a'+i)), cpu, "512Mi", "c"))
			}
			pl := newPlanner(t.Context(), snapshot([]*state.Pool{p}, nodes, pods), t0, DefaultOptions())
			got, why := pl.triage(pl.info["c"])
			if got != tc.want {
				t.Fatalf("triage %d (%q), want %d", got, why, tc.want)
			}
			if !strings.HasPrefix(why, tc.reason) {
				t.Errorf("reason %q, want %q…", why, tc.reason)
			}
		})
	}
}

// TestLocalSearchReachesEveryCandidate gives the search far fewer
// simulations than candidates: the windows must still reach every one,
// so no node is kept because the search stopped, and what is committed
// passes Validate.
func TestLocalSearchReachesEveryCandidate(t *testing.T) {
	_, snap := daemonCluster(t, 300, 7)
	opts := DefaultOptions()
	opts.MaxEvaluations = 8
	res, err := Plan(t.Context(), snap, t0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Nodes) < 40 {
		t.Fatalf("%d nodes, want a cluster larger than the budget", len(snap.Nodes))
	}
	for _, k := range res.Kept {
		if strings.Contains(k.Reason, "the search stopped") {
			t.Errorf("%s kept untried: %s", k.Node, k.Reason)
		}
	}
	if res.Evaluations > opts.MaxEvaluations {
		t.Errorf("%d simulations, cap %d", res.Evaluations, opts.MaxEvaluations)
	}
	for _, v := range Validate(snap, res) {
		t.Errorf("violation: %s", v)
	}
}
