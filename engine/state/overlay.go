package state

import (
	"slices"
	"strings"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/overlay"
)

// applyOverlays validates the NodeOverlays and applies them to the pools' instance types in place
// (each pool gets its own overlaid copies: an overlay may select one pool by tenon.dev/nodepool or
// its template labels). It returns what became of each overlay, sorted by name.
func applyOverlays(in []*v1.NodeOverlay, pools []*Pool) ([]overlay.Status, error) {
	if len(in) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(in)
	slices.SortFunc(sorted, func(a, b *v1.NodeOverlay) int { return strings.Compare(a.Name, b.Name) })
	var errs []*ObjectError
	overlays := make([]overlay.Overlay, 0, len(sorted))
	for i, o := range sorted {
		if i > 0 && sorted[i-1].Name == o.Name {
			errs = append(errs, objectErrorf(v1.NodeOverlayKind, "", o.Name, "metadata.name", "two NodeOverlays are called %q; rename one", o.Name))
			continue
		}
		if fe := o.Validate(); len(fe) > 0 {
			errs = append(errs, fieldErrors(v1.NodeOverlayKind, "", o.Name, fe)...)
			continue
		}
		ov, err := overlay.FromAPI(o)
		if err != nil {
			errs = append(errs, objectErrorf(v1.NodeOverlayKind, "", o.Name, "", "%v", err))
			continue
		}
		overlays = append(overlays, ov)
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	targets := make([]overlay.Pool, len(pools))
	for i, p := range pools {
		targets[i] = overlay.Pool{Name: p.Name, Labels: p.Labels, Types: p.InstanceTypes}
	}
	res := overlay.Apply(overlays, targets)
	for _, p := range pools {
		p.InstanceTypes = res.Types[p.Name]
	}
	return res.Statuses, nil
}

// overlayNodes prices each node of a pool at its pool's (overlaid) offering, and gives an
// in-flight claim that reports no allocatable its pool's type's, which carries the resources an
// overlay adds. Nodes report their own allocatable: an overlay changes the engine's arithmetic,
// not a node.
func overlayNodes(nodes []*Node, pools []*Pool, claims []*v1.NodeClaim) {
	byPool := map[string]map[string]*catalog.InstanceType{}
	for _, p := range pools {
		types := make(map[string]*catalog.InstanceType, len(p.InstanceTypes))
		for _, it := range p.InstanceTypes {
			types[it.Name] = it
		}
		byPool[p.Name] = types
	}
	reported := map[string]bool{}
	for _, c := range claims {
		reported[c.Name] = len(c.Status.Allocatable) > 0
	}
	for _, n := range nodes {
		it := byPool[n.Pool][n.InstanceType]
		if it == nil {
			continue
		}
		if price := offeringPrice(it, n.Zone, n.CapacityType); price > 0 {
			n.PricePerHour = price
		}
		if n.InFlight && !reported[n.Claim] {
			n.Allocatable = it.Allocatable.DeepCopy()
		}
	}
}
