package simulate

import (
	"fmt"
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
)

var scenarioReservationIDRE = regexp.MustCompile(`^cr-[0-9a-z]+$`)

// setReservations checks the header's capacity reservations against the
// catalog and keeps them.
func (s *Scenario) setReservations(rs []ScenarioReservation) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec", "capacityReservations")
	types := []string{v1.CapacityReservationTypeDefault, v1.CapacityReservationTypeCapacityBlock}
	for i, r := range rs {
		p := path.Index(i)
		switch {
		case !scenarioReservationIDRE.MatchString(r.ID):
			errs = append(errs, field.Invalid(p.Child("id"), r.ID, "id must be a capacity reservation ID such as cr-0123456789abcdef0"))
		case slices.ContainsFunc(rs[:i], func(o ScenarioReservation) bool { return o.ID == r.ID }):
			errs = append(errs, field.Duplicate(p.Child("id"), r.ID))
		}
		if it, ok := s.Catalog.Get(r.InstanceType); !ok || len(it.Offerings) == 0 {
			errs = append(errs, field.Invalid(p.Child("instanceType"), r.InstanceType, fmt.Sprintf("no such instance type with a price in %s; use one of the catalog's, such as m5.large", s.Region)))
		}
		if !slices.Contains(s.Zones, r.Zone) {
			errs = append(errs, field.NotSupported(p.Child("zone"), r.Zone, s.Zones))
		}
		if r.Available < 0 {
			errs = append(errs, field.Invalid(p.Child("available"), r.Available, "available must be 0 or more: how many more instances the reservation can take"))
		}
		if r.Type != "" && !slices.Contains(types, r.Type) {
			errs = append(errs, field.NotSupported(p.Child("type"), r.Type, types))
		}
		if c := r.InstanceMatchCriteria; c != "" && !slices.Contains(v1.InstanceMatchCriteria(), c) {
			errs = append(errs, field.NotSupported(p.Child("instanceMatchCriteria"), c, v1.InstanceMatchCriteria()))
		}
	}
	if len(errs) == 0 {
		s.reservations = slices.Clone(rs)
	}
	return errs
}

// reservationsFor are the scenario's reservations that class's
// capacityReservationSelectorTerms select, as the catalog takes them.
func (s *Scenario) reservationsFor(class *v1.NodeClass) []catalog.Reservation {
	if class == nil || class.Spec.AWS == nil {
		return nil
	}
	var out []catalog.Reservation
	for _, r := range s.reservations {
		if !slices.ContainsFunc(class.Spec.AWS.CapacityReservationSelectorTerms, func(t v1.CapacityReservationSelectorTerm) bool { return selects(t, r) }) {
			continue
		}
		typ := r.Type
		if typ == "" {
			typ = v1.CapacityReservationTypeDefault
		}
		out = append(out, catalog.Reservation{ID: r.ID, InstanceType: r.InstanceType, Zone: r.Zone, Type: typ, Available: r.Available})
	}
	return out
}

// selects reports whether a selector term matches a reservation, as
// DescribeCapacityReservations filters: by ID alone, or by every tag
// ("*" for any value), owner and instance match criteria the term sets.
func selects(t v1.CapacityReservationSelectorTerm, r ScenarioReservation) bool {
	if t.ID != "" {
		return t.ID == r.ID
	}
	for k, v := range t.Tags {
		have, ok := r.Tags[k]
		if !ok || (v != "*" && v != have) {
			return false
		}
	}
	criteria := r.InstanceMatchCriteria
	if criteria == "" {
		criteria = v1.InstanceMatchCriteriaOpen
	}
	return (t.OwnerID == "" || t.OwnerID == r.OwnerID) && (t.InstanceMatchCriteria == "" || t.InstanceMatchCriteria == criteria)
}
