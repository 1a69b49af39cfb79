package packing

import (
	"maps"
	"math"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestImproveMergesHalfEmptyClaims builds two claims by hand on the
// largest type, one with a pod that needs a mid-sized node and one with a
// tiny pod that fits in the first's spare room, and checks the pass
// leaves one node, cheaper than the two shrunk apart, named without a gap.
func TestImproveMergesHalfEmptyClaims(t *testing.T) {
	p := statetest.Pool("default")
	snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
	ps := []*state.Pod{statetest.Pod("a", "3500m", "1Gi"), statetest.Pod("b", "100m", "32Mi")}
	s := classifiedSolver(t, snap, ps)
	pool := s.pools[0]
	// The largest type for both, so shrinking alone cannot merge them.
	var big *poolType
	for _, ty := range pool.types {
		if big == nil || ty.price[0] > big.price[0] {
			big = ty
		}
	}
	if len(s.classes) != 2 {
		t.Fatalf("want 2 classes, got %d", len(s.classes))
	}
	var claims [2]*node
	for i, c := range s.classes {
		b := &bucket{class: c, zones: s.allZones(), capacityTypes: pool.capacityTypeMask, pods: c.pods}
		claims[i] = s.newClaim(pool, big, 0, capacityOnDemand)
		s.place(b, claims[i], 1)
	}
	// What the two cost shrunk apart.
	pass := newImprover(s)
	var before float64
	for _, n := range claims {
		o, ok := pass.cheapest(n, pass.mask(n), pass.mask(n), n.capacityTypes, n.used, 0, math.Inf(1))
		if !ok {
			t.Fatal("no offering holds a claim's pod")
		}
		before += o.price
	}
	if !s.improve() {
		t.Fatal("improve emptied no claim")
	}
	s.renumber()
	var left []*node
	for _, n := range s.claims {
		if len(n.pods) > 0 {
			left = append(left, n)
		}
	}
	if len(left) != 1 || len(left[0].pods) != 2 {
		t.Fatalf("want one claim with both pods, got %d claims", len(left))
	}
	if got := price(left[0]); got >= before-1e-9 {
		t.Errorf("merged claim costs %.4f, want less than the %.4f of the two shrunk apart", got, before)
	}
	if a, b := placedByKey(s, "default/a"), placedByKey(s, "default/b"); left[0].name != "default-1" || a != "default-1" || b != "default-1" {
		t.Errorf("survivor is %s, pods on %s and %s; want default-1", left[0].name, a, b)
	}
}

// TestImproveEmptiesZoneFreeClaimAcrossZones checks that a claim whose
// pods no rule counts per zone empties into a claim of another zone: a pod
// spread over zones keeps its claim in zone a (a zonal rule counts it, so
// no re-pack across zones takes that claim), and a plain pod alone in zone
// b moves into its spare room. Each zone alone has one claim, so only the
// move across zones finds the saving (scenario 469 of TestMonotoneCost
// cost 52 % more on a pool than on a sub-pool for want of it).
func TestImproveEmptiesZoneFreeClaimAcrossZones(t *testing.T) {
	p := statetest.Pool("default")
	snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
	sel := map[string]string{"app": "spread"}
	ps := []*state.Pod{
		statetest.Pod("a", "3", "1Gi", statetest.WithLabel("app", "spread"), statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, sel)),
		statetest.Pod("b", "100m", "32Mi"),
	}
	s := classifiedSolver(t, snap, ps)
	pool := s.pools[0]
	big := typeNamed(t, pool, "m5.2xlarge")
	for i, c := range s.classes {
		b := &bucket{class: c, zones: s.allZones(), capacityTypes: pool.capacityTypeMask, pods: c.pods}
		s.place(b, s.newClaim(pool, big, i, capacityOnDemand), 1)
	}
	pass := newImprover(s)
	var before float64
	for _, n := range s.claims {
		o, ok := pass.cheapest(n, pass.mask(n), pass.mask(n), n.capacityTypes, n.used, 0, math.Inf(1))
		if !ok {
			t.Fatal("no offering holds a claim's pod")
		}
		before += o.price
	}
	if !s.improve() {
		t.Fatal("improve emptied no claim")
	}
	left, cost := claimsLeft(t, s, ps)
	if len(left) != 1 || left[0].zone != 0 {
		t.Fatalf("want one claim left, in zone %s; got %d", s.zones[0], len(left))
	}
	if cost >= before-1e-9 {
		t.Errorf("the claim left costs %.4f, want less than the %.4f of the two shrunk apart", cost, before)
	}
}

// classifiedSolver is a solver for ps on snap, made ready for claims to be
// built by hand (pools compiled, pods classified, nodes compiled), as
// Solve does before it packs.
func classifiedSolver(t *testing.T, snap *state.Snapshot, ps []*state.Pod) *solver {
	t.Helper()
	keys := map[string]bool{}
	for _, p := range ps {
		keys[p.Key()] = true
	}
	s := newSolver(t.Context(), snap, newOptions(nil))
	if err := s.internDims(ps); err != nil {
		t.Fatal(err)
	}
	s.compileShared()
	if err := s.classify(ps); err != nil {
		t.Fatal(err)
	}
	s.internExistingTerms(keys)
	s.matchClasses()
	s.compileNodes(keys)
	return s
}

// newImprover is an improve pass's state for s, as improve builds it.
func newImprover(s *solver) *improver {
	return &improver{s: s, budget: improveBudget, movable: map[*class]bool{}, masks: map[*node]bitset{}, maxAlloc: map[*poolPlan]resources.Vector{}}
}

// typeNamed is the pool's type called name, failing the test if it has none.
func typeNamed(t *testing.T, pool *poolPlan, name string) *poolType {
	t.Helper()
	for _, ty := range pool.types {
		if ty.instance.Name == name {
			return ty
		}
	}
	t.Fatalf("%s is not in the pool", name)
	return nil
}

// claimsLeft checks the claims s holds pods on after an improve move (each
// within its type's allocatable, each of ps on exactly one, where placed
// says) and returns them with their total price.
func claimsLeft(t *testing.T, s *solver, ps []*state.Pod) ([]*node, float64) {
	t.Helper()
	var left []*node
	var cost float64
	on := map[string]int{}
	for _, n := range s.claims {
		if len(n.pods) == 0 {
			continue
		}
		left = append(left, n)
		cost += price(n)
		if !n.used.Fits(n.typ.alloc) {
			t.Errorf("%s (%s) holds %v, more than its allocatable %v", n.name, n.typ.instance.Name, n.used, n.typ.alloc)
		}
		for _, pd := range n.pods {
			on[pd.Key()]++
			if s.placed[pd] != n.name {
				t.Errorf("%s is on %s but placed says %s", pd.Key(), n.name, s.placed[pd])
			}
		}
	}
	for _, pd := range ps {
		if on[pd.Key()] != 1 {
			t.Errorf("%s is on %d claims, want 1", pd.Key(), on[pd.Key()])
		}
	}
	return left, cost
}

// claimEach puts every pending pod of s on a claim of its own of type ty
// in the first zone, on demand, and returns the claims by pod name and
// what they cost together.
func claimEach(s *solver, ty *poolType) (map[string]*node, float64) {
	pool := s.pools[0]
	claimOf := map[string]*node{}
	var cost float64
	for _, c := range s.classes {
		b := &bucket{class: c, zones: s.allZones(), capacityTypes: pool.capacityTypeMask, pods: c.pods}
		for _, pd := range c.pods {
			n := s.newClaim(pool, ty, 0, capacityOnDemand)
			s.place(b, n, 1)
			claimOf[pd.Name] = n
			cost += price(n)
		}
	}
	return claimOf, cost
}

// placedByKey is the node or claim the solver placed the pod with key on,
// or "".
func placedByKey(s *solver, key string) string {
	for p, n := range s.placed {
		if p.Key() == key {
			return n
		}
	}
	return ""
}

// TestRelocateShrinksTheSource checks relocate: claim A holds a 3-cpu and
// a 1-cpu pod (an 8-cpu node), claim B a 5-cpu pod with room for 1 cpu
// more. Neither can empty into the other for less (both pods of A do not
// fit B's room; all of them need a node as dear as the two), but the
// 1-cpu pod riding on B lets A shrink to a 4-cpu node.
func TestRelocateShrinksTheSource(t *testing.T) {
	p := statetest.Pool("default")
	snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
	ps := []*state.Pod{statetest.Pod("a", "3", "1Gi"), statetest.Pod("b", "1", "1Gi"), statetest.Pod("c", "5", "1Gi")}
	s := classifiedSolver(t, snap, ps)
	pool := s.pools[0]
	big := typeNamed(t, pool, "m5.4xlarge")
	claimOf := map[string]*node{}
	for _, c := range s.classes {
		b := &bucket{class: c, zones: s.allZones(), capacityTypes: pool.capacityTypeMask, pods: c.pods}
		name := c.pods[0].Name
		if name == "b" {
			claimOf[name] = claimOf["a"]
		} else {
			claimOf[name] = s.newClaim(pool, big, 0, capacityOnDemand)
		}
		s.place(b, claimOf[name], 1)
	}
	pass := newImprover(s)
	var before float64
	for _, n := range s.claims {
		pass.shrink(n)
		before += price(n)
	}
	if pass.merge(claimOf["a"], s.claims) || pass.evacuate(claimOf["a"], s.claims) {
		t.Fatal("a merge or evacuation saves here; the case no longer tests relocate")
	}
	pass.relocate()
	left, cost := claimsLeft(t, s, ps)
	if len(left) != 2 {
		t.Fatalf("want both claims kept, got %d", len(left))
	}
	if cost >= before-1e-9 {
		t.Errorf("claims cost %.4f after relocate, want less than %.4f", cost, before)
	}
	if got := placedByKey(s, "default/b"); got != claimOf["c"].name {
		t.Errorf("b is on %s, want it beside c on %s", got, claimOf["c"].name)
	}
}

// TestRelocateKeepsHostnameRules checks that relocate moves a pod some
// hostname rule counts (a clique member, a pod spread over hostnames with
// maxSkew 1) off its claim so the claim shrinks, but never onto the claim
// that holds its peer, though that claim's room fits it best: claim A
// holds the pod and a 3-cpu pod, B its peer (5.5 cpu), C a plain 5-cpu
// pod; the pod must go to C.
func TestRelocateKeepsHostnameRules(t *testing.T) {
	forEachHostRule(t, func(t *testing.T, rule statetest.PodOption) {
		ps := hostRulePods(rule, "1", "5500m", "3", "5")
		s, claims := onM5Claims(t, ps, map[string]string{"m1": "A", "x": "A", "m2": "B", "y": "C"})
		pass := newImprover(s)
		var before float64
		for _, n := range s.claims {
			pass.shrink(n)
			before += price(n)
		}
		pass.relocate()
		_, cost := claimsLeft(t, s, ps)
		if cost >= before-1e-9 {
			t.Errorf("claims cost %.4f after relocate, want less than %.4f", cost, before)
		}
		if got := placedByKey(s, "default/m1"); got != claims["C"].name {
			t.Errorf("m1 is on %s, want %s (C); B (%s) holds its peer", got, claims["C"].name, claims["B"].name)
		}
	})
}

// TestPairsExchangesPods checks pairs: claim A holds a 0.3-cpu clique
// member and a 0.3-cpu pod, B the other member and a plain pod, 1.5 cpu
// each. The members may not share a node, so no claim empties; relocate
// moves A's plain pod onto B's room (A shrinks, B stays 4-cpu). Splitting
// the four pods afresh, one member and 1.8 cpu on each claim, needs two
// 2-cpu nodes, for less. The members must stay apart.
func TestPairsExchangesPods(t *testing.T) {
	forEachHostRule(t, func(t *testing.T, rule statetest.PodOption) {
		ps := hostRulePods(rule, "300m", "1500m", "300m", "1500m")
		s, _ := onM5Claims(t, ps, map[string]string{"m1": "A", "x": "A", "m2": "B", "y": "B"})
		pass := newImprover(s)
		for _, n := range s.claims {
			pass.shrink(n)
		}
		pass.relocate()
		_, before := claimsLeft(t, s, ps)
		pass.pairs()
		left, cost := claimsLeft(t, s, ps)
		if cost >= before-1e-9 {
			t.Errorf("claims cost %.4f after pairs, want less than %.4f", cost, before)
		}
		if len(left) != 2 {
			t.Errorf("want two claims, got %d", len(left))
		}
		if placedByKey(s, "default/m1") == placedByKey(s, "default/m2") {
			t.Errorf("m1 and m2 share %s", placedByKey(s, "default/m1"))
		}
	})
}

// forEachHostRule runs a subtest for each hostname rule that keeps the
// pods labelled app=db apart: anti-affinity and a hostname spread of
// maxSkew 1.
func forEachHostRule(t *testing.T, run func(t *testing.T, rule statetest.PodOption)) {
	sel := map[string]string{"app": "db"}
	for name, rule := range map[string]statetest.PodOption{
		"anti-affinity":   statetest.WithAntiAffinity(scheduling.LabelHostname, sel),
		"hostname spread": statetest.WithSpread(scheduling.LabelHostname, 1, corev1.DoNotSchedule, sel),
	} {
		t.Run(name, func(t *testing.T) { run(t, rule) })
	}
}

// hostRulePods are the pods m1 and m2 (app=db, under rule) and x and y
// (plain), requesting the cpu given and 1Gi each.
func hostRulePods(rule statetest.PodOption, m1, m2, x, y string) []*state.Pod {
	return []*state.Pod{
		statetest.Pod("m1", m1, "1Gi", statetest.WithLabel("app", "db"), rule),
		statetest.Pod("m2", m2, "1Gi", statetest.WithLabel("app", "db"), rule),
		statetest.Pod("x", x, "1Gi"),
		statetest.Pod("y", y, "1Gi"),
	}
}

// onM5Claims classifies ps on a default pool with the hostname spreads
// in force (as a round sets them) and places each pod on the m5.4xlarge
// claim on names for it, one claim per distinct name, opened in name
// order. It returns the solver and the claims by name.
func onM5Claims(t *testing.T, ps []*state.Pod, on map[string]string) (*solver, map[string]*node) {
	t.Helper()
	s := classifiedSolver(t, statetest.Snapshot(statetest.Pools(statetest.Pool("default")), nil, nil), ps)
	s.hostSpread = map[int]int32{}
	for _, sp := range s.spreadsInForce(s.classes) {
		if isHostname(s.groups.list[sp.group].key) {
			s.hostSpread[sp.group] = sp.maxSkew
		}
	}
	pool := s.pools[0]
	big := typeNamed(t, pool, "m5.4xlarge")
	claims := map[string]*node{}
	for _, name := range slices.Sorted(maps.Values(on)) {
		if claims[name] == nil {
			claims[name] = s.newClaim(pool, big, 0, capacityOnDemand)
		}
	}
	for _, c := range s.classes {
		b := &bucket{class: c, zones: s.allZones(), capacityTypes: pool.capacityTypeMask, pods: c.pods}
		for _, pd := range c.pods {
			s.place(b, claims[on[pd.Name]], 1)
		}
	}
	return s, claims
}
