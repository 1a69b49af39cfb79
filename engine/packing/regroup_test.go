package packing

import (
	"strconv"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestRegroupJoinsSmallClaims puts six 512Mi pods on a t3a.micro each, the
// tail the fill leaves and that merge and evacuate cannot fix (any two on
// one node cost as much as two micros), and checks that regroup re-packs
// them onto fewer, cheaper nodes, every pod placed once and every node
// within its type's allocatable.
func TestRegroupJoinsSmallClaims(t *testing.T) {
	p := statetest.Pool("default")
	snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
	var ps []*state.Pod
	for i, cpu := range []string{"100m", "250m", "100m", "250m", "100m", "250m"} {
		ps = append(ps, statetest.Pod("p"+strconv.Itoa(i), cpu, "512Mi"))
	}
	s := classifiedSolver(t, snap, ps)
	micro := typeNamed(t, s.pools[0], "t3a.micro")
	_, before := claimEach(s, micro)
	pass := newImprover(s)
	if !pass.regroup() {
		t.Fatal("regroup changed nothing")
	}
	left, after := claimsLeft(t, s, ps)
	nodes := len(left)
	if nodes >= 6 || after >= before-1e-9 {
		t.Errorf("regroup left %d nodes costing %.4f/h, want fewer than 6 costing less than %.4f/h", nodes, after, before)
	}
	t.Logf("6 micros ($%.4f/h) -> %d nodes ($%.4f/h)", before, nodes, after)
}
