package packing

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestRegroupJoinsSmallClaims puts six 512Mi pods on a t3a.micro each, the
// tail the fill leaves and that merge and evacuate cannot fix (any two on
// one node cost as much as two micros), and checks that regroup re-packs
// them onto fewer, cheaper nodes, every pod placed once and every node
// within its type's allocatable.
func TestRegroupJoinsSmallClaims(t *testing.T) {
	p := pool("default")
	snap := snapshot(poolsOf(p), nil, nil)
	var ps []*state.Pod
	want := map[string]bool{}
	for i, cpu := range []string{"100m", "250m", "100m", "250m", "100m", "250m"} {
		pd := pod("p"+itoa(i), cpu, "512Mi")
		ps = append(ps, pd)
		want[pd.Key()] = true
	}
	s := newSolver(t.Context(), snap, newOptions(nil))
	if err := s.internDims(ps); err != nil {
		t.Fatal(err)
	}
	s.compileShared()
	if err := s.classify(ps); err != nil {
		t.Fatal(err)
	}
	s.internExistingTerms(want)
	s.matchClasses()
	s.compileNodes(want)
	pl := s.pools[0]
	var micro *ptype
	for _, ty := range pl.types {
		if ty.it.Name == "t3a.micro" {
			micro = ty
		}
	}
	if micro == nil {
		t.Fatal("t3a.micro is not in the pool")
	}
	var before float64
	for _, c := range s.classes {
		b := &bucket{c: c, zones: s.allZones(), cts: pl.ctMask, pods: c.pods}
		for range c.pods {
			n := s.newClaim(pl, micro, 0, ctOnDemand)
			s.place(b, n, 1)
			before += price(n)
		}
	}
	im := &improver{s: s, budget: improveBudget, movable: map[*class]bool{}, masks: map[*node]bitset{}, maxAlloc: map[*poolPlan]vec{}}
	if !im.regroup() {
		t.Fatal("regroup changed nothing")
	}
	var after float64
	var nodes int
	got := map[string]int{}
	for _, n := range s.claims {
		if len(n.pods) == 0 {
			continue
		}
		nodes++
		after += price(n)
		if !n.used.fits(n.typ.alloc) {
			t.Errorf("%s (%s) holds %v, more than its allocatable %v", n.name, n.typ.it.Name, n.used, n.typ.alloc)
		}
		for _, pd := range n.pods {
			got[pd.Key()]++
			if s.placed[pd.Key()] != n.name {
				t.Errorf("%s is on %s but placed says %s", pd.Key(), n.name, s.placed[pd.Key()])
			}
		}
	}
	for k := range want {
		if got[k] != 1 {
			t.Errorf("%s is on %d nodes, want 1", k, got[k])
		}
	}
	if nodes >= 6 || after >= before-1e-9 {
		t.Errorf("regroup left %d nodes costing %.4f/h, want fewer than 6 costing less than %.4f/h", nodes, after, before)
	}
	t.Logf("6 micros ($%.4f/h) -> %d nodes ($%.4f/h)", before, nodes, after)
}
