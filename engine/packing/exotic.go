package packing

import (
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// No exotic nodes for ordinary pods. GPU, accelerator and bare-metal types
// (catalog.Exotic) are often the cheapest per CPU on spot, yet an ordinary
// web pod placed there takes a device other workloads wait for, and a metal
// host is slow to start and large to drain. Karpenter's AWS provider drops
// such types from a launch after its scheduler chose them
// (filterExoticInstanceTypes), so its simulation and its launches can
// disagree; Tenon keeps them out of the packing itself, so `tenon simulate`,
// the tenon_simulation data source, consolidation and the agent decide
// alike. An exotic type stays allowed for a class when
//
//   - its pool's requirements name it (catalog.NamesExotic: its type,
//     family or category in an In list, a GPU or accelerator label required
//     to a value only such types carry; metal by type or size only);
//   - the class's node term names it the same way; or
//   - no ordinary type of the pool that the term allows holds one of the
//     class's pods: a pod requesting nvidia.com/gpu or
//     aws.amazon.com/neuron fits only types with the device, and a pod
//     larger than every virtualised size still gets a metal host.

// withoutExotic returns mask (the types term allows in p) less the exotic
// types c may not get, as the comment above says.
func withoutExotic(c *class, p *poolPlan, term scheduling.Requirements, mask bitset) bitset {
	if !p.exotic {
		return mask
	}
	var out bitset
	ordinaryFits := false
	for _, t := range p.types {
		if !mask.has(t.idx) {
			continue
		}
		if t.exotic == "" {
			ordinaryFits = ordinaryFits || c.req.Fits(t.alloc)
			continue
		}
		if t.instance.NamesExoticKind(t.exotic, term) {
			continue
		}
		if out == nil {
			out = slices.Clone(mask)
		}
		out[t.idx/64] &^= 1 << (t.idx % 64)
	}
	if out == nil || !ordinaryFits {
		return mask
	}
	return out
}
