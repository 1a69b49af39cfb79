package consolidation

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestTriage classes a candidate without simulating: likely deletion when
// first fit places its pods on the other nodes, maybe replacement when
// the new nodes that must hold what does not fit may still cost less
// than the node by the saving a command must make, hopeless otherwise.
func TestTriage(t *testing.T) {
	cases := []struct {
		name string
		// pods are the candidate c's pods as cpu requests; other holds
		// one pod of otherCPU on an m5.xlarge.
		pods     []string
		otherCPU string
		// families the pool allows (m5 when empty); daemon, when set, is
		// the cpu of a daemonset every node runs, bound to none yet.
		families []string
		daemon   string
		want     triage
		reason   string
	}{
		{name: "its pod fits on the other node", pods: []string{"1"}, otherCPU: "2", want: likelyDeletion},
		{name: "a full node of the cheapest size per cpu: no replacement can pay", pods: []string{"1900m"}, otherCPU: "3900m", want: hopeless,
			reason: "no cheaper placement: its pods do not fit in the other nodes' free room (first fit), and new nodes for the 1900m cpu"},
		{name: "half the node, but no smaller type: no replacement can pay", pods: []string{"500m"}, otherCPU: "3900m", want: hopeless,
			reason: "no cheaper placement: its pods do not fit in the other nodes' free room (first fit), and new nodes for the 500m cpu"},
		{name: "half the node: a smaller replacement may pay", pods: []string{"500m"}, otherCPU: "3900m", families: []string{"m5", "c5"}, want: maybeReplacement},
		{name: "only what fits nowhere counts toward the bound", pods: []string{"1500m", "400m"}, otherCPU: "3500m", families: []string{"m5", "c5"}, want: maybeReplacement},
		{name: "the other node's room is its daemonset's", pods: []string{"400m"}, otherCPU: "2500m", daemon: "1100m", want: hopeless,
			reason: "no cheaper placement: its pods do not fit in the other nodes' free room (first fit), and new nodes for the 400m cpu"},
		{name: "a smaller type holds the pods but not beside the daemonsets", pods: []string{"1500m"}, otherCPU: "3500m", families: []string{"m5", "c5"}, daemon: "500m", want: hopeless,
			reason: "no cheaper placement: its pods do not fit in the other nodes' free room (first fit), and new nodes for the 1500m cpu and 512Mi of memory that room cannot hold, beside the daemonsets each runs, cost at least $0.17/h"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			families := tc.families
			if len(families) == 0 {
				families = []string{"m5"}
			}
			p := testPool("default", withReq(scheduling.In(scheduling.LabelInstanceFamily, families...)))
			nodes := []*state.Node{testNode(p, "c", "m5.large", zoneA, od), testNode(p, "other", "m5.xlarge", zoneA, od)}
			pods := []*state.Pod{testPod("big-1", tc.otherCPU, "1Gi", "other")}
			for i, cpu := range tc.pods {
				pods = append(pods, testPod("web-"+string(rune('a'+i)), cpu, "512Mi", "c"))
			}
			snap := snapshot([]*state.Pool{p}, nodes, pods)
			if tc.daemon != "" {
				snap.DaemonSets = []*state.DaemonSet{{Namespace: "kube-system", Name: "agent", Pod: testPod("agent", tc.daemon, "64Mi", "")}}
			}
			pl := newPlanner(t.Context(), snap, t0, DefaultOptions())
			got, why, _ := pl.triage(pl.info["c"])
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

// TestTriageHopelessIsProven simulates removing alone every node the
// triage calls hopeless, on random clusters with and without daemonsets
// (some selecting only some nodes, their pods bound on some nodes only)
// and on DaemonSet-heavy packed clusters consolidated to stable (where most
// hopeless nodes are): the bound claims no deletion and no replacement can
// pass, so each simulation must leave a pod unplaced or make a command the
// rules reject.
func TestTriageHopelessIsProven(t *testing.T) {
	n, packed := 150, 2
	if testing.Short() || raceEnabled {
		n, packed = 40, 1
	}
	var snaps []*state.Snapshot
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 5))
		snap := randomSnapshot(r)
		if i%3 != 0 {
			withRandomDaemonSets(r, snap)
		}
		if i%2 == 0 {
			// Only the drawn nodes' types: the cheapest of them can
			// often not be replaced by anything cheaper.
			for _, pool := range snap.Pools {
				withReq(scheduling.In(scheduling.LabelInstanceType, randomTypes...))(pool)
			}
		}
		snaps = append(snaps, snap)
	}
	for i := range packed {
		_, scaled := daemonCluster(t, 300+100*i, uint64(i+1))
		snaps = append(snaps, untilStable(t, scaled, DefaultOptions(), 10).final)
	}
	tried := 0
	for i, snap := range snaps {
		tried += checkHopeless(t, i, snap)
	}
	t.Logf("%d hopeless nodes simulated", tried)
	if tried < 20 {
		t.Fatalf("only %d hopeless nodes: the property was hardly exercised", tried)
	}
}

// checkHopeless simulates removing each node of snap triaged hopeless and
// counts them.
func checkHopeless(t *testing.T, i int, snap *state.Snapshot) int {
	t.Helper()
	tried := 0
	p := newPlanner(t.Context(), snap, t0, DefaultOptions())
	for _, name := range slices.Sorted(maps.Keys(p.info)) {
		node := p.info[name]
		if len(node.pods) == 0 || managed(node) != "" {
			continue
		}
		if tr, _, _ := p.triage(node); tr != hopeless {
			continue
		}
		tried++
		res, _, err := p.simulate([]*nodeInfo{node})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Unschedulable) > 0 {
			continue
		}
		if why := p.validate(p.split([]*nodeInfo{node}, res, ReasonUnderutilized)[0]); why == "" {
			t.Errorf("scenario %d: node %s triaged hopeless, but removing it alone passes the rules", i, name)
		}
	}
	return tried
}

// TestReplaceAloneFirst: where the simulations left cannot try every
// candidate alone, the local search tries alone first the candidates a
// replacement could pay for, most headroom first. Planned to stable
// without that (windows only), DaemonSet-heavy clusters keep nodes a
// replacement alone pays for: a window lumps them with nodes that save
// nothing, and the window's command misses minSavingsPercent. A plan
// with it must then replace some node alone, saving at least that share.
func TestReplaceAloneFirst(t *testing.T) {
	alone := 0
	for _, seed := range []uint64{300*1000 + 6, 300*1000 + 7} {
		_, snap := daemonCluster(t, 1500, seed)
		without := DefaultOptions()
		without.soloLast = true
		stable := untilStable(t, snap, without, 10).final
		if res, err := Plan(t.Context(), stable, t0.Add(time.Hour), without); err != nil || len(res.Commands) > 0 {
			t.Fatalf("seed %d: not stable without trying replacements alone first: %v, %d commands", seed, err, len(res.Commands))
		}
		res, err := Plan(t.Context(), stable, t0.Add(time.Hour), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Commands {
			t.Logf("seed %d: %s %v -> %d replacements, $%.4f/h -> $%.4f/h", seed, c.Reason, c.Nodes, len(c.Replacements), c.CostBeforePerHour, c.CostAfterPerHour)
			saving := c.CostBeforePerHour - c.CostAfterPerHour
			if saving < DefaultOptions().MinSavingsPercent/100*c.CostBeforePerHour-1e-9 {
				t.Errorf("seed %d: command on %v saves $%.4f/h of $%.4f/h, under minSavingsPercent", seed, c.Nodes, saving, c.CostBeforePerHour)
			}
			if len(c.Nodes) == 1 && len(c.Replacements) > 0 {
				alone++
			}
		}
	}
	if alone == 0 {
		t.Fatal("no node replaced alone: trying replacements alone first found nothing the windows missed")
	}
}
