package cloud

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Candidate is one offering a claim may launch on, with its instance type.
type Candidate struct {
	Offering
	Type         *catalog.InstanceType
	PricePerHour float64
}

// Candidates lists the offerings of types that claim allows, in the order a
// provider should try them: instance types in the order the claim's
// node.kubernetes.io/instance-type requirement lists them (the agent lists
// them cheapest first; without that requirement, cheapest first), and
// within a type its offerings cheapest first. Offerings outside the claim's
// zone and capacity-type requirements, marked unavailable in the catalog or
// reported by unavailable, and types whose allocatable cannot hold the
// claim's requests, are left out. Providers share it so that every cloud
// picks the same option the packer priced.
func Candidates(claim *v1.NodeClaim, types []*catalog.InstanceType, unavailable func(Offering) bool) ([]Candidate, error) {
	specs := make([]scheduling.RequirementSpec, 0, len(claim.Spec.Requirements))
	var order []string
	for _, r := range claim.Spec.Requirements {
		key := scheduling.NormalizeLabelKey(r.Key)
		specs = append(specs, scheduling.RequirementSpec{Key: key, Operator: string(r.Operator), Values: r.Values})
		if key == scheduling.LabelInstanceType && r.Operator == corev1.NodeSelectorOpIn && order == nil {
			order = r.Values
		}
	}
	reqs, err := scheduling.RequirementsFromSpecs(specs...)
	if err != nil {
		return nil, fmt.Errorf("nodeclaim %s: reading requirements: %w", claim.Name, err)
	}
	rank := map[string]int{}
	for i, name := range order {
		if _, ok := rank[name]; !ok {
			rank[name] = i
		}
	}
	allowed := func(key, value string) bool { return !reqs.Has(key) || reqs.Get(key).Has(value) }
	var out []Candidate
	for _, it := range types {
		_, named := rank[it.Name]
		if !allowed(scheduling.LabelInstanceType, it.Name) || !fits(claim.Spec.Resources.Requests, it.Allocatable, named) {
			continue
		}
		for _, o := range it.Offerings {
			off := Offering{InstanceType: it.Name, Zone: o.Zone, CapacityType: o.CapacityType}
			if !o.Available || !allowed(scheduling.LabelTopologyZone, o.Zone) || !allowed(scheduling.LabelCapacityType, o.CapacityType) {
				continue
			}
			if unavailable != nil && unavailable(off) {
				continue
			}
			out = append(out, Candidate{Offering: off, Type: it, PricePerHour: o.PricePerHour})
		}
	}
	cheapest := map[string]float64{}
	for _, c := range out {
		if p, ok := cheapest[c.InstanceType]; !ok || c.PricePerHour < p {
			cheapest[c.InstanceType] = c.PricePerHour
		}
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		if a.InstanceType != b.InstanceType {
			ra, oka := rank[a.InstanceType]
			rb, okb := rank[b.InstanceType]
			switch {
			case oka && okb:
				return cmp.Compare(ra, rb)
			case oka != okb:
				if oka {
					return -1
				}
				return 1
			}
			if c := cmp.Compare(cheapest[a.InstanceType], cheapest[b.InstanceType]); c != 0 {
				return c
			}
			return cmp.Compare(a.InstanceType, b.InstanceType)
		}
		if c := cmp.Compare(a.PricePerHour, b.PricePerHour); c != 0 {
			return c
		}
		if a.Zone != b.Zone {
			return cmp.Compare(a.Zone, b.Zone)
		}
		return cmp.Compare(a.CapacityType, b.CapacityType)
	})
	return out, nil
}

// fits reports whether allocatable holds every request. When the claim names the type (the
// packer chose it), an extended resource the type does not report at all is the packer's to
// judge: a NodeOverlay gave the type that resource (hugepages, a device plugin's), which the
// cloud's catalog does not know.
func fits(requests, allocatable corev1.ResourceList, named bool) bool {
	for name, q := range requests {
		a, ok := allocatable[name]
		if !ok && (q.IsZero() || named && !nativeResource(name)) {
			continue
		}
		if !ok || a.Cmp(q) < 0 {
			return false
		}
	}
	return true
}

// Launched returns a copy of claim with the status a provider reports after
// launching candidate c as providerID.
func Launched(claim *v1.NodeClaim, c Candidate, providerID, imageID string) *v1.NodeClaim {
	out := claim.DeepCopy()
	out.Status.ProviderID = providerID
	out.Status.ImageID = imageID
	out.Status.InstanceType = c.InstanceType
	out.Status.Zone = c.Zone
	out.Status.CapacityType = c.CapacityType
	out.Status.Capacity = c.Type.Capacity.DeepCopy()
	out.Status.Allocatable = c.Type.Allocatable.DeepCopy()
	return out
}

// nativeResource reports whether every instance type has the resource: cpu, memory, pods,
// ephemeral-storage.
func nativeResource(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage:
		return true
	}
	return false
}
