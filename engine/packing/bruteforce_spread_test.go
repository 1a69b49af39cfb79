package packing_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// spreadRules are the topology rules bruteForceSpread checks: pods with
// label "zs" spread over zones, pods with label "hs" over nodes, each
// with its maxSkew (DoNotSchedule), pods with label "solo" repel each
// other per node.
type spreadRules struct {
	zones            []string
	zoneSkew, hsSkew int
}

// bruteForceSpread is the optimum for pods on a pool's types in zones:
// every partition of the pods into nodes, every zone for each node, each
// node the cheapest type offered in its zone that holds its group, kept
// only when the spreads' skews hold over all zones and over every node of
// the result (a node with no matching pod counts 0), as check.Result has
// them, and no two "solo" pods share a node.
func bruteForceSpread(types []*catalog.InstanceType, ps []*state.Pod, r spreadRules) float64 {
	mayHold := exoticRule(types, ps)
	nodeCost := func(group []*state.Pod, zone string) float64 {
		best := math.Inf(1)
		for _, it := range types {
			if !mayHold(it, group) {
				continue
			}
			for _, o := range it.Offerings {
				if o.Zone == zone && o.CapacityType == scheduling.CapacityTypeOnDemand {
					best = min(best, o.PricePerHour)
				}
			}
		}
		return best
	}
	count := func(group []*state.Pod, label string) int {
		n := 0
		for _, p := range group {
			if p.Labels[label] != "" {
				n++
			}
		}
		return n
	}
	skewOK := func(counts []int, skew int) bool {
		lo, hi := math.MaxInt, 0
		for _, c := range counts {
			lo, hi = min(lo, c), max(hi, c)
		}
		return hi-lo <= skew
	}
	valid := func(groups [][]*state.Pod, zoneOf []int) bool {
		perZone := make([]int, len(r.zones))
		perNode := make([]int, len(groups))
		for i, g := range groups {
			perZone[zoneOf[i]] += count(g, "zs")
			perNode[i] = count(g, "hs")
			if count(g, "solo") > 1 {
				return false
			}
		}
		return skewOK(perZone, r.zoneSkew) && skewOK(perNode, r.hsSkew)
	}
	best := math.Inf(1)
	var zoned func(groups [][]*state.Pod, zoneOf []int)
	zoned = func(groups [][]*state.Pod, zoneOf []int) {
		if len(zoneOf) == len(groups) {
			if !valid(groups, zoneOf) {
				return
			}
			var sum float64
			for i, g := range groups {
				sum += nodeCost(g, r.zones[zoneOf[i]])
			}
			best = min(best, sum)
			return
		}
		for z := range r.zones {
			zoned(groups, append(zoneOf, z))
		}
	}
	var rec func(i int, groups [][]*state.Pod)
	rec = func(i int, groups [][]*state.Pod) {
		if i == len(ps) {
			zoned(groups, nil)
			return
		}
		for k := range groups {
			groups[k] = append(groups[k], ps[i])
			rec(i+1, groups)
			groups[k] = groups[k][:len(groups[k])-1]
		}
		rec(i+1, append(groups, []*state.Pod{ps[i]}))
	}
	rec(0, nil)
	return best
}

// TestLowerBoundBruteForceSpread checks the bound, which counts the nodes
// and the per-node caps a zonal spread forces (and nothing for a hostname
// spread, which all pods on one node keep), against the optimum on tiny
// batches with a zonal spread over one to three zones, a hostname spread
// and a small anti-affinity clique.
func TestLowerBoundBruteForceSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	cases, tight := 0, 0
	for i := range 150 {
		r := spreadRules{zones: statetest.Zones[:1+rng.IntN(3)], zoneSkew: 1 + rng.IntN(2), hsSkew: 1 + rng.IntN(2)}
		p := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, r.zones...)))
		p.InstanceTypes = randomTypes(rng, 8)
		var ps []*state.Pod
		size := func() (string, string) {
			return pick(rng, []string{"100m", "500m", "1", "2"}), pick(rng, []string{"128Mi", "1Gi", "4Gi"})
		}
		for j := range 1 + rng.IntN(4) {
			cpu, mem := size()
			ps = append(ps, statetest.Pod(fmt.Sprintf("z%d", j), cpu, mem, statetest.WithLabel("zs", "x"),
				statetest.WithSpread(scheduling.LabelTopologyZone, int32(r.zoneSkew), corev1.DoNotSchedule, map[string]string{"zs": "x"})))
		}
		for j := range rng.IntN(3) {
			cpu, mem := size()
			ps = append(ps, statetest.Pod(fmt.Sprintf("h%d", j), cpu, mem, statetest.WithLabel("hs", "x"),
				statetest.WithSpread(scheduling.LabelHostname, int32(r.hsSkew), corev1.DoNotSchedule, map[string]string{"hs": "x"})))
		}
		for j := range rng.IntN(2) {
			cpu, mem := size()
			ps = append(ps, statetest.Pod(fmt.Sprintf("s%d", j), cpu, mem, statetest.WithLabel("solo", "x"),
				statetest.WithAntiAffinity(scheduling.LabelHostname, map[string]string{"solo": "x"})))
		}
		snap := statetest.Snapshot(statetest.Pools(p), nil, nil)
		res := mustSolve(t, snap, ps)
		if len(res.Unschedulable) > 0 {
			continue
		}
		if v := check.Result(snap, ps, res); len(v) > 0 {
			t.Fatalf("case %d: %v", i, v)
		}
		opt := bruteForceSpread(p.InstanceTypes, ps, r)
		if res.LowerBoundPerHour > opt*(1+1e-9) {
			t.Errorf("case %d (%d zones, zone skew %d, host skew %d): lower bound %.5f above the optimum %.5f",
				i, len(r.zones), r.zoneSkew, r.hsSkew, res.LowerBoundPerHour, opt)
		}
		if res.CostPerHour < opt*(1-1e-9) {
			t.Errorf("case %d: cost %.5f below the optimum %.5f: the brute force is wrong", i, res.CostPerHour, opt)
		}
		cases++
		if res.LowerBoundPerHour > opt*0.99 {
			tight++
		}
	}
	if cases < 100 {
		t.Fatalf("only %d of 150 cases placed every pod; the test proves little", cases)
	}
	t.Logf("%d cases; bound within 1%% of the optimum in %d", cases, tight)
}

// TestLowerBoundZoneSpreadTight checks that the bound meets the optimum
// where a zonal spread alone decides the node count: identical small
// pods spread over the zones, as in the web-spread example (three pods,
// three zones, maxSkew 1: three nodes, one pod each).
func TestLowerBoundZoneSpreadTight(t *testing.T) {
	types := []*catalog.InstanceType{}
	for _, name := range []string{"t3a.small", "t3a.medium", "m5.large", "m5.xlarge"} {
		it, ok := statetest.Catalog().Get(name)
		if !ok {
			t.Fatalf("no %s in the test catalog", name)
		}
		types = append(types, it)
	}
	for _, tt := range []struct{ pods, zones, skew int }{
		{3, 3, 1}, {2, 3, 1}, {4, 3, 1}, {5, 3, 2}, {2, 2, 1}, {6, 3, 1},
	} {
		t.Run(fmt.Sprintf("%d pods over %d zones, maxSkew %d", tt.pods, tt.zones, tt.skew), func(t *testing.T) {
			r := spreadRules{zones: statetest.Zones[:tt.zones], zoneSkew: tt.skew, hsSkew: tt.pods}
			p := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, r.zones...)))
			p.InstanceTypes = types
			var ps []*state.Pod
			for j := range tt.pods {
				ps = append(ps, statetest.Pod(fmt.Sprintf("z%d", j), "500m", "1Gi", statetest.WithLabel("zs", "x"),
					statetest.WithSpread(scheduling.LabelTopologyZone, int32(tt.skew), corev1.DoNotSchedule, map[string]string{"zs": "x"})))
			}
			res := mustSolve(t, statetest.Snapshot(statetest.Pools(p), nil, nil), ps)
			opt := bruteForceSpread(types, ps, r)
			if math.Abs(res.LowerBoundPerHour-opt) > opt*1e-6 {
				t.Errorf("lower bound %.5f, optimum %.5f (cost %.5f)", res.LowerBoundPerHour, opt, res.CostPerHour)
			}
		})
	}
}
