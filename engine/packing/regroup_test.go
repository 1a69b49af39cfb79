package packing

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"

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

// TestRegroupFinishesOnOneNode re-packs two claims whose pods one node
// holds for less than both: the ratio greedy alone opens the node that
// packs the most value per dollar first and leaves a second for the
// rest, so each re-pack also prices finishing on the one cheapest node
// that holds every pod left. (A random pool/sub-pool pair of
// TestMonotoneCost: the wider pool kept the two claims, the sub-pool's
// fill found the one node.)
func TestRegroupFinishesOnOneNode(t *testing.T) {
	p := statetest.Pool("default")
	p.InstanceTypes = nil
	for _, name := range []string{"c3.xlarge", "c6a.xlarge", "c6id.4xlarge", "c7a.48xlarge", "c7i.4xlarge", "c8a.8xlarge",
		"d3.2xlarge", "d3en.2xlarge", "d3en.6xlarge", "g5.16xlarge", "inf1.24xlarge", "inf2.8xlarge", "m5.24xlarge", "m5.xlarge",
		"m6idn.2xlarge", "m6in.large", "m7i-flex.2xlarge", "m8azn.large", "m8azn.xlarge", "r5b.16xlarge", "r5b.2xlarge",
		"r6a.large", "r8i.large", "r8ib.48xlarge", "x1e.16xlarge"} {
		it, ok := statetest.Catalog().Get(name)
		if !ok {
			t.Fatalf("no %s in the test catalog", name)
		}
		p.InstanceTypes = append(p.InstanceTypes, it)
	}
	snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
	var ps []*state.Pod
	for i, req := range [][2]string{{"500m", "4Gi"}, {"100m", "128Mi"}, {"100m", "512Mi"}, {"1", "1Gi"}, {"2", "128Mi"}, {"100m", "1Gi"}} {
		ps = append(ps, statetest.Pod("p"+strconv.Itoa(i), req[0], req[1]))
	}
	s := classifiedSolver(t, snap, ps)
	pool := s.pools[0]
	big, small, one := typeNamed(t, pool, "c6a.xlarge"), typeNamed(t, pool, "r6a.large"), typeNamed(t, pool, "m5.xlarge")
	a, b := s.newClaim(pool, big, 0, capacityOnDemand), s.newClaim(pool, small, 1, capacityOnDemand)
	for _, c := range s.classes {
		n := a
		if c.pods[0].Name == "p5" {
			n = b
		}
		s.place(&bucket{class: c, zones: s.allZones(), capacityTypes: pool.capacityTypeMask, pods: c.pods}, n, int64(len(c.pods)))
	}
	before := price(a) + price(b)
	oneNode := one.price[0*numCapacityTypes+capacityOnDemand]
	if oneNode <= 0 || oneNode >= before {
		t.Fatalf("m5.xlarge costs %.4f/h, the two claims %.4f/h: the test needs one node to be cheaper", oneNode, before)
	}
	newImprover(s).regroup()
	left, after := claimsLeft(t, s, ps)
	if after > oneNode+1e-9 {
		t.Errorf("regroup left %d nodes costing %.4f/h, want one costing at most %.4f/h (from %.4f/h)", len(left), after, oneNode, before)
	}
}

// TestRepackOffersMatchesScan checks repackOffers' memo (offerFrontier)
// against the scan it replaces: for random claims' capacity types, type
// masks and limits, asked in random order in one pass, the offerings to
// compare, the finishers and the budget spent are the same as scanning the
// zone's offerings up to the limit and keeping each allowed one no kept
// one holds.
func TestRepackOffersMatchesScan(t *testing.T) {
	p := statetest.Pool("default")
	p.Requirements = scheduling.NewRequirements(
		scheduling.In(scheduling.LabelNodePool, "default"),
		scheduling.In(scheduling.LabelArch, scheduling.ArchAMD64),
		scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot),
		scheduling.In(scheduling.LabelTopologyZone, statetest.Zones...),
	)
	s := classifiedSolver(t, statetest.Snapshot(statetest.Pools(p), nil, nil), []*state.Pod{statetest.Pod("p", "1", "1Gi")})
	pool := s.pools[0]
	if pool.capacityTypeMask != 1<<capacityOnDemand|1<<capacitySpot {
		t.Fatalf("the pool offers capacity types %b, want on-demand and spot", pool.capacityTypeMask)
	}
	rng := rand.New(rand.NewPCG(22, 7))
	pass := newImprover(s)
	// A few masks, so the memo is asked for each many times.
	masks := make([]bitset, 4)
	for i := range masks {
		masks[i] = make(bitset, (len(pool.types)+63)/64)
		for _, ty := range pool.types {
			if i == 0 || rng.IntN(4) > 0 {
				masks[i].set(ty.idx)
			}
		}
	}
	scan := func(list []offer, ct uint8, mask bitset, limit float64) (offers, finishers []offer, spent int) {
		for _, o := range list {
			if o.price >= limit {
				break
			}
			spent++
			if ct&(1<<o.capacityType) == 0 || !mask.has(o.t.idx) {
				continue
			}
			if !slices.ContainsFunc(finishers, func(k offer) bool { return o.t.alloc.Fits(k.t.alloc) }) {
				finishers = append(finishers, o)
			}
		}
		return finishers[:min(len(finishers), regroupMaxOffers)], finishers, spent
	}
	kept := 0
	for i := range 400 {
		zone := rng.IntN(len(pool.offers))
		list := pool.offers[zone]
		if len(list) == 0 {
			continue
		}
		n := s.newClaim(pool, pool.types[0], zone, capacityOnDemand)
		n.capacityTypes = uint8(1 + rng.IntN(3))
		pass.masks[n] = masks[rng.IntN(len(masks))]
		limit := list[rng.IntN(len(list))].price * (0.5 + rng.Float64())
		wantOffers, wantFinishers, spent := scan(list, n.capacityTypes, pass.masks[n], limit)
		budget := 1000000
		offers, finishers := pass.repackOffers([]*node{n}, limit, &budget)
		if !slices.Equal(offers, wantOffers) || !slices.Equal(finishers, wantFinishers) || 1000000-budget != spent {
			t.Fatalf("ask %d (zone %d, capacity types %b, limit %.4f): %d offerings, %d finishers, budget %d spent; the scan gives %d, %d, %d",
				i, zone, n.capacityTypes, limit, len(offers), len(finishers), 1000000-budget, len(wantOffers), len(wantFinishers), spent)
		}
		kept = max(kept, len(finishers))
	}
	if kept < 2 {
		t.Fatalf("the asks kept at most %d offering: nothing was dominated", kept)
	}
}
