package catalog

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Catalog holds the instance types of one region and its zones, with their
// offerings and prices. It is immutable after New and safe for concurrent use.
type Catalog struct {
	region string
	zones  []string
	types  []*InstanceType // sorted by name
	byName map[string]*InstanceType
}

// New parses the embedded EC2 data into a catalog for a region (default
// us-east-1) and its zones (default the region's a, b and c). It fails for a
// region without prices in the data, naming the regions that have them.
func New(opts ...Option) (*Catalog, error) {
	o := options{region: DefaultRegion}
	for _, opt := range opts {
		opt(&o)
	}
	zones, err := checkZones(o)
	if err != nil {
		return nil, err
	}
	records, err := decodeRecords()
	if err != nil {
		return nil, err
	}
	if err := checkRegion(o.region, records); err != nil {
		return nil, err
	}
	c := &Catalog{
		region: o.region,
		zones:  zones,
		types:  make([]*InstanceType, 0, len(records)),
		byName: make(map[string]*InstanceType, len(records)),
	}
	for _, rec := range records {
		it := newInstanceType(rec, o.region, zones)
		c.types = append(c.types, it)
		c.byName[it.Name] = it
	}
	slices.SortFunc(c.types, func(a, b *InstanceType) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

func newInstanceType(rec record, region string, zones []string) *InstanceType {
	offerings := offeringsOf(rec, region, zones)
	return &InstanceType{
		Name:         rec.Name,
		Capacity:     capacity(rec),
		Allocatable:  allocatable(rec),
		Requirements: requirements(rec, region, offerings),
		Offerings:    offerings,
	}
}

// offeringsOf returns one offering per zone for each capacity type priced in
// the region: on-demand from the list price, spot from the estimate. A
// missing or non-positive price means no offering, never a free one.
func offeringsOf(rec record, region string, zones []string) []Offering {
	var offerings []Offering
	onDemand, spot := rec.PriceOnDemand[region], rec.PriceSpot[region]
	for _, zone := range zones {
		if onDemand > 0 {
			offerings = append(offerings, Offering{Zone: zone, CapacityType: scheduling.CapacityTypeOnDemand, PricePerHour: onDemand, Available: true})
		}
		if spot > 0 {
			offerings = append(offerings, Offering{Zone: zone, CapacityType: scheduling.CapacityTypeSpot, PricePerHour: spot, Available: true})
		}
	}
	return offerings
}

func checkZones(o options) ([]string, error) {
	if o.region == "" {
		return nil, errors.New("empty region: pass WithRegion a region such as us-east-1, or leave it out for us-east-1")
	}
	if o.zones == nil {
		return []string{o.region + "a", o.region + "b", o.region + "c"}, nil
	}
	if len(o.zones) == 0 {
		return nil, fmt.Errorf("no zones: pass WithZones at least one zone, or leave it out for %[1]sa, %[1]sb and %[1]sc", o.region)
	}
	for _, zone := range o.zones {
		if !inRegion(zone, o.region) {
			return nil, fmt.Errorf("zone %q is not in region %s; use zones such as %sa, or choose the zone's region with WithRegion", zone, o.region, o.region)
		}
	}
	zones := slices.Clone(o.zones)
	slices.Sort(zones)
	return slices.Compact(zones), nil
}

// inRegion reports whether zone is a zone (us-east-1a) or local zone
// (us-east-1-bos-1a) of region.
func inRegion(zone, region string) bool {
	rest, ok := strings.CutPrefix(zone, region)
	if !ok || rest == "" {
		return false
	}
	return rest[0] == '-' || (rest[0] >= 'a' && rest[0] <= 'z')
}

// checkRegion fails unless some type has an on-demand price in region.
func checkRegion(region string, records []record) error {
	priced := map[string]bool{}
	for _, rec := range records {
		for r, price := range rec.PriceOnDemand {
			if price > 0 {
				priced[r] = true
			}
		}
	}
	if priced[region] {
		return nil
	}
	return fmt.Errorf("region %s has no prices in the embedded catalog; use one of %s",
		region, strings.Join(slices.Sorted(maps.Keys(priced)), ", "))
}

// Region returns the catalog's region.
func (c *Catalog) Region() string { return c.region }

// Zones returns the catalog's zones, sorted.
func (c *Catalog) Zones() []string { return slices.Clone(c.zones) }

// InstanceTypes returns every instance type, sorted by name, including types
// with no offering in the region (no price there). The slice is the caller's;
// the types are shared and read-only.
func (c *Catalog) InstanceTypes() []*InstanceType { return slices.Clone(c.types) }

// Get returns the instance type called name, or false.
func (c *Catalog) Get(name string) (*InstanceType, bool) {
	it, ok := c.byName[name]
	return it, ok
}

// Filter returns, sorted by name, the instance types whose requirements
// intersect reqs (keys the types do not define, such as a pool's custom
// labels, are ignored), each with only the offerings whose zone and capacity
// type reqs allow, and with its zone and capacity-type requirements narrowed
// to match. Types left without offerings are dropped. Unchanged types are
// shared with the catalog; narrowed ones are copies.
func (c *Catalog) Filter(reqs scheduling.Requirements) []*InstanceType {
	zone, capacityType := reqs.Get(scheduling.LabelTopologyZone), reqs.Get(scheduling.LabelCapacityType)
	var out []*InstanceType
	for _, it := range c.types {
		if len(it.Offerings) == 0 || !it.Requirements.Overlaps(reqs) {
			continue
		}
		allowed := func(o Offering) bool { return zone.Has(o.Zone) && capacityType.Has(o.CapacityType) }
		switch n := countFunc(it.Offerings, allowed); n {
		case 0:
			continue
		case len(it.Offerings):
			out = append(out, it)
		default:
			offerings := make([]Offering, 0, n)
			for _, o := range it.Offerings {
				if allowed(o) {
					offerings = append(offerings, o)
				}
			}
			out = append(out, it.withOfferings(offerings))
		}
	}
	return out
}

func countFunc[T any](items []T, f func(T) bool) int {
	n := 0
	for _, item := range items {
		if f(item) {
			n++
		}
	}
	return n
}

// withOfferings returns a copy of it with the given offerings and its zone and
// capacity-type requirements narrowed to them.
func (it *InstanceType) withOfferings(offerings []Offering) *InstanceType {
	narrowed := *it
	narrowed.Offerings = offerings
	narrowed.Requirements = it.Requirements.Clone()
	var zones, capacityTypes []string
	for _, o := range offerings {
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	narrowed.Requirements[scheduling.LabelTopologyZone] = scheduling.In(scheduling.LabelTopologyZone, zones...)
	narrowed.Requirements[scheduling.LabelCapacityType] = scheduling.In(scheduling.LabelCapacityType, capacityTypes...)
	return &narrowed
}
