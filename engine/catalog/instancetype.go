package catalog

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// InstanceType is one EC2 instance type as the engine sees it. Values handed
// out by a Catalog are shared: treat them as read-only.
type InstanceType struct {
	// Name is the EC2 name, e.g. "m5.large".
	Name string
	// Capacity is what the node reports: cpu, memory (after the VM
	// overhead), ephemeral-storage (the 20 GiB root volume), pods, and
	// nvidia.com/gpu, amd.com/gpu, aws.amazon.com/neuron or
	// vpc.amazonaws.com/efa where the type has them.
	Capacity corev1.ResourceList
	// Allocatable is what pods can request: Capacity less kube-reserved
	// resources and the kubelet's eviction thresholds.
	Allocatable corev1.ResourceList
	// Requirements hold a single value for every well-known instance label
	// (DoesNotExist where the type has no such value, e.g. no GPU name),
	// and for zone and capacity type the values its offerings have.
	Requirements scheduling.Requirements
	// Offerings are the zone × capacity type combinations the type can be
	// bought in, sorted by zone, then capacity type.
	Offerings []Offering
}

// Offering is one way to buy an instance type: a zone and a capacity type at
// a price.
type Offering struct {
	// Zone is the availability zone, e.g. "us-east-1a".
	Zone string
	// CapacityType is scheduling.CapacityTypeOnDemand, CapacityTypeSpot or
	// CapacityTypeReserved.
	CapacityType string
	// PricePerHour is in USD, always > 0. Spot prices are estimates; a
	// reserved offering's is ReservedPrice of the on-demand price.
	PricePerHour float64
	// Available is false when the offering is known to have no capacity;
	// the embedded data has no availability, so it starts true. A reserved
	// offering is available while its reservation has instances left.
	Available bool
	// Reservation is set on reserved offerings only: the capacity
	// reservation the offering launches into.
	Reservation *Reservation
}

// CheapestOffering returns the available offering with the lowest price,
// the first in Offerings order on a tie, and false when none is available.
func (it *InstanceType) CheapestOffering() (Offering, bool) {
	var best Offering
	found := false
	for _, o := range it.Offerings {
		if o.Available && (!found || o.PricePerHour < best.PricePerHour) {
			best, found = o, true
		}
	}
	return best, found
}
