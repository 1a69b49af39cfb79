package packing

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestRefillPacksRidersAroundPodsThatCannotMove gives each of two members
// of a hostname anti-affinity group (which refill must not move) a claim
// of the largest size with room to spare, and puts two plain pods on claims
// of their own: refill must move the plain pods into the members' spare
// room, leave the members where they are, drop the emptied claims and shrink
// what is left, for less than before.
func TestRefillPacksRidersAroundPodsThatCannotMove(t *testing.T) {
	p := statetest.Pool("default")
	snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
	sel := map[string]string{"role": "nginx"}
	ps := []*state.Pod{
		statetest.Pod("nginx-0", "1", "1Gi", statetest.WithLabel("role", "nginx"), statetest.WithAntiAffinity(scheduling.LabelHostname, sel)),
		statetest.Pod("nginx-1", "1", "1Gi", statetest.WithLabel("role", "nginx"), statetest.WithAntiAffinity(scheduling.LabelHostname, sel)),
		statetest.Pod("plain-0", "1", "2Gi"),
		statetest.Pod("plain-1", "1", "2Gi"),
	}
	s := classifiedSolver(t, snap, ps)
	big := typeNamed(t, s.pools[0], "m6a.xlarge")
	claimOf, before := claimEach(s, big)
	pass := newImprover(s)
	if !pass.refill() {
		t.Fatal("refill changed nothing")
	}
	left, after := claimsLeft(t, s, ps)
	nodes := len(left)
	for _, n := range left {
		members := 0
		for _, pd := range n.pods {
			if pd.Labels["role"] == "nginx" {
				members++
			}
		}
		if members > 1 {
			t.Errorf("%s holds %d anti-affinity members", n.name, members)
		}
	}
	for _, name := range []string{"nginx-0", "nginx-1"} {
		if got := placedByKey(s, "default/"+name); got != claimOf[name].name {
			t.Errorf("%s moved from %s to %s", name, claimOf[name].name, got)
		}
	}
	if nodes != 2 || after >= before-1e-9 {
		t.Errorf("refill left %d nodes costing %.4f/h, want 2 costing less than %.4f/h", nodes, after, before)
	}
}
