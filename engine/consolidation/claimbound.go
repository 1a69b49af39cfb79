package consolidation

import (
	"math"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// claimBound is a proven lower bound on what new nodes cost for pods that
// no existing node can hold, used to screen candidates without simulating
// (see triage). Every new node runs the daemonsets its pool's nodes all
// run, so what it offers pods is its allocatable less their requests; the
// bound counts that, which matters most where the daemonsets take a large
// share of a small node.
type claimBound struct {
	// unit is the cheapest $/h per millicore and per byte of what any
	// allowed type offers pods once those daemonsets are placed.
	unit unitPrices
	// types are the allowed types' cheapest price and what they offer
	// pods, cheapest first.
	types []offerRoom
}

// offerRoom is an instance type's cheapest allowed price and the cpu
// (millicores) and memory (bytes) it offers pods.
type offerRoom struct {
	price    float64
	cpu, mem int64
}

// newClaimBound reads every pool's allowed types. Daemonsets that select
// nodes by label, or do not tolerate a pool's taints, are not counted: a
// bound may only leave out overhead, never add overhead a node escapes.
func newClaimBound(snap *state.Snapshot) *claimBound {
	b := &claimBound{unit: unitPrices{math.Inf(1), math.Inf(1)}}
	for _, pool := range snap.Pools {
		dsCPU, dsMem := everywhereDaemons(snap.DaemonSets, pool)
		zones := pool.Requirements.Get(scheduling.LabelTopologyZone)
		cts := pool.Requirements.Get(scheduling.LabelCapacityType)
		for _, it := range pool.InstanceTypes {
			if !pool.Requirements.Overlaps(it.Requirements) {
				continue
			}
			price := math.Inf(1)
			for _, o := range it.Offerings {
				if (pool.Requirements.Has(scheduling.LabelTopologyZone) && !zones.Has(o.Zone)) ||
					(pool.Requirements.Has(scheduling.LabelCapacityType) && !cts.Has(o.CapacityType)) {
					continue
				}
				price = min(price, o.PricePerHour)
			}
			cpu, mem := it.Allocatable.Cpu().MilliValue()-dsCPU, it.Allocatable.Memory().Value()-dsMem
			if math.IsInf(price, 1) || cpu <= 0 || mem <= 0 {
				continue
			}
			b.unit.cpu, b.unit.mem = min(b.unit.cpu, price/float64(cpu)), min(b.unit.mem, price/float64(mem))
			b.types = append(b.types, offerRoom{price: price, cpu: cpu, mem: mem})
		}
	}
	slices.SortFunc(b.types, func(x, y offerRoom) int { return cmpFloat(x.price, y.price) })
	return b
}

// everywhereDaemons sums the requests of the daemonsets that run on every
// node of pool: no node selection by label, and every pool taint
// tolerated.
func everywhereDaemons(daemons []*state.DaemonSet, pool *state.Pool) (cpu, mem int64) {
	for _, ds := range daemons {
		if ds.Pod == nil {
			continue
		}
		f, err := ds.Pod.NodeFilter()
		if err != nil || !slices.ContainsFunc(f.Terms, func(t scheduling.Requirements) bool { return len(t) == 0 }) {
			continue
		}
		if scheduling.Taints(pool.Taints).ToleratesPod(f.Tolerations) != nil {
			continue
		}
		c, m := podRequests(ds.Pod)
		cpu, mem = cpu+c, mem+m
	}
	return cpu, mem
}

// cost is the least new nodes cost for cpu and mem of pods: the
// per-resource bound, and at least one node: single is the least a new
// node costs that holds a pod that must go on one (see cheapestFor).
// 0 when nothing must go on new nodes.
func (b *claimBound) cost(cpu, mem int64, single float64) float64 {
	if cpu <= 0 && mem <= 0 {
		return 0
	}
	out := single
	if cpu > 0 {
		out = max(out, float64(cpu)*b.unit.cpu)
	}
	if mem > 0 {
		out = max(out, float64(mem)*b.unit.mem)
	}
	return out
}

// cheapestFor is the price of the cheapest allowed type that holds a pod
// of these requests beside its daemonsets, +Inf when none does.
func (b *claimBound) cheapestFor(cpu, mem int64) float64 {
	for _, t := range b.types {
		if t.cpu >= cpu && t.mem >= mem {
			return t.price
		}
	}
	return math.Inf(1)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
