package consolidation

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// valuer estimates what a pod costs at least anywhere: the larger of its
// cpu and its memory at the cheapest price per unit among its pool's
// allowed offerings (the per-resource fractional bound, per pod). The
// search ranks nodes by their pods' value per dollar of node.
type valuer struct {
	perPool map[string]unitPrices
	global  unitPrices
}

// unitPrices are $/h per millicore and per byte.
type unitPrices struct{ cpu, mem float64 }

func newValuer(snap *state.Snapshot) *valuer {
	v := &valuer{perPool: map[string]unitPrices{}, global: unitPrices{math.Inf(1), math.Inf(1)}}
	for _, pool := range snap.Pools {
		u := unitPrices{math.Inf(1), math.Inf(1)}
		zones := pool.Requirements.Get(scheduling.LabelTopologyZone)
		cts := pool.Requirements.Get(scheduling.LabelCapacityType)
		for _, it := range pool.InstanceTypes {
			if pool.Requirements.Intersects(it.Requirements) != nil {
				continue
			}
			price := math.Inf(1)
			for _, o := range it.Offerings {
				if o.Reservation != nil {
					// A reservation's near-zero price is no measure of
					// what the pod's resources are worth.
					continue
				}
				if pool.Requirements.Has(scheduling.LabelTopologyZone) && !zones.Has(o.Zone) {
					continue
				}
				if pool.Requirements.Has(scheduling.LabelCapacityType) && !cts.Has(o.CapacityType) {
					continue
				}
				price = min(price, o.PricePerHour)
			}
			if math.IsInf(price, 1) {
				continue
			}
			if c := it.Allocatable.Cpu().MilliValue(); c > 0 {
				u.cpu = min(u.cpu, price/float64(c))
			}
			if m := it.Allocatable.Memory().Value(); m > 0 {
				u.mem = min(u.mem, price/float64(m))
			}
		}
		v.perPool[pool.Name] = u
		v.global.cpu = min(v.global.cpu, u.cpu)
		v.global.mem = min(v.global.mem, u.mem)
	}
	return v
}

// pod returns the pod's value on a node of pool (nil: any pool).
func (v *valuer) pod(p *state.Pod, pool *state.Pool) float64 {
	u := v.global
	if pool != nil {
		if pu, ok := v.perPool[pool.Name]; ok {
			u = pu
		}
	}
	var out float64
	if q, ok := p.Requests[corev1.ResourceCPU]; ok && !math.IsInf(u.cpu, 1) {
		out = max(out, float64(q.MilliValue())*u.cpu)
	}
	if q, ok := p.Requests[corev1.ResourceMemory]; ok && !math.IsInf(u.mem, 1) {
		out = max(out, float64(q.Value())*u.mem)
	}
	return out
}
