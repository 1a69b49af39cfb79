package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// reservedPriceDivisor makes a reserved offering's price a ten-millionth of
// the type's on-demand price: the reservation is paid for whether it is used
// or not, so launching into it costs (almost) nothing more, while the order
// of the prices (a larger type costs more) still guides packing and
// consolidation.
const reservedPriceDivisor = 10_000_000

// ReservedPrice is the marginal price per hour of an instance launched into
// a capacity reservation, given its type's on-demand price.
func ReservedPrice(onDemand float64) float64 { return onDemand / reservedPriceDivisor }

// Reservation is an EC2 capacity reservation (an On-Demand Capacity
// Reservation or a capacity block): so many instances of one type in one
// zone, already paid for.
type Reservation struct {
	// ID is the reservation's ID, cr-...
	ID string
	// InstanceType and Zone are what the reservation holds.
	InstanceType string
	Zone         string
	// Type is "default" or "capacity-block".
	Type string
	// Available is how many more instances the reservation can take.
	Available int
	// EndTime is when the reservation ends (a capacity block always has
	// one); zero for none.
	EndTime time.Time
}

// WithReservations returns types with a reserved offering added for each
// reservation of a type in the list, priced at ReservedPrice of the type's
// on-demand price in that zone (its cheapest price when it has none there)
// and available while the reservation has instances left; the types'
// capacity-type requirement then allows reserved. Types without a
// reservation are shared; the others are copies. Reservations of types not
// in the list are returned as unknown, for the caller to report.
func WithReservations(types []*InstanceType, reservations []Reservation) (out []*InstanceType, unknown []Reservation) {
	byType := map[string][]Reservation{}
	for _, r := range reservations {
		byType[r.InstanceType] = append(byType[r.InstanceType], r)
	}
	out = make([]*InstanceType, len(types))
	for i, it := range types {
		rs := byType[it.Name]
		delete(byType, it.Name)
		if len(rs) == 0 {
			out[i] = it
			continue
		}
		out[i] = it.withReservations(rs)
	}
	for _, rs := range byType {
		unknown = append(unknown, rs...)
	}
	slices.SortFunc(unknown, func(a, b Reservation) int { return cmp.Compare(a.ID, b.ID) })
	return out, unknown
}

func (it *InstanceType) withReservations(rs []Reservation) *InstanceType {
	out := *it
	out.Offerings = slices.Clone(it.Offerings)
	for _, r := range rs {
		r := r
		out.Offerings = append(out.Offerings, Offering{
			Zone: r.Zone, CapacityType: scheduling.CapacityTypeReserved, PricePerHour: ReservedPrice(it.onDemandPrice(r.Zone)),
			Available: r.Available > 0, Reservation: &r,
		})
	}
	slices.SortStableFunc(out.Offerings, func(a, b Offering) int {
		return cmp.Or(cmp.Compare(a.Zone, b.Zone), cmp.Compare(a.CapacityType, b.CapacityType))
	})
	out.Requirements = it.Requirements.Clone()
	var zones, capacityTypes []string
	for _, o := range out.Offerings {
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	out.Requirements[scheduling.LabelTopologyZone] = scheduling.In(scheduling.LabelTopologyZone, zones...)
	out.Requirements[scheduling.LabelCapacityType] = scheduling.In(scheduling.LabelCapacityType, capacityTypes...)
	return &out
}

// onDemandPrice is the type's on-demand price in zone, else its cheapest
// on-demand price, else its cheapest price of any kind (a reservation's
// price must be positive and follow the type's size).
func (it *InstanceType) onDemandPrice(zone string) float64 {
	best := 0.0
	for _, o := range it.Offerings {
		if o.CapacityType != scheduling.CapacityTypeOnDemand {
			continue
		}
		if o.Zone == zone {
			return o.PricePerHour
		}
		if best == 0 || o.PricePerHour < best {
			best = o.PricePerHour
		}
	}
	if best > 0 {
		return best
	}
	for _, o := range it.Offerings {
		if o.PricePerHour > 0 && (best == 0 || o.PricePerHour < best) {
			best = o.PricePerHour
		}
	}
	if best == 0 {
		// A type with no price at all: a small positive price keeps the
		// offering launchable (prices must be > 0) and nearly free.
		return 1
	}
	return best
}

// String describes the reservation for messages.
func (r Reservation) String() string {
	return fmt.Sprintf("%s (%s in %s, %d available)", r.ID, r.InstanceType, r.Zone, r.Available)
}
