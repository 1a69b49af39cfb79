package aws

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// typeView is what EC2 says about the region's instance types: which exist
// and in which zones.
type typeView struct {
	// names are the region's types that the embedded catalog has specs for,
	// sorted.
	names []string
	// zones are the zones each type is offered in.
	zones map[string][]string
	// unknown counts the region's types missing from the embedded catalog
	// (skipped: their allocatable resources are not known).
	unknown int
}

// typeView returns the cached view, loading it when missing.
func (p *Provider) typeView(ctx context.Context) (*typeView, error) {
	p.mu.Lock()
	tv := p.types
	p.mu.Unlock()
	if tv != nil {
		return tv, nil
	}
	p.loadMu.Lock()
	defer p.loadMu.Unlock()
	p.mu.Lock()
	tv = p.types
	p.mu.Unlock()
	if tv != nil {
		return tv, nil
	}
	return p.loadTypeView(ctx)
}

// loadTypeView asks EC2 for the region's types and offerings and caches
// them.
func (p *Provider) loadTypeView(ctx context.Context) (*typeView, error) {
	tv := &typeView{zones: map[string][]string{}}
	types := ec2.NewDescribeInstanceTypesPaginator(p.ec2, &ec2.DescribeInstanceTypesInput{})
	for types.HasMorePages() {
		page, err := types.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing instance types: %w", err)
		}
		for _, it := range page.InstanceTypes {
			if _, ok := p.specs.Get(string(it.InstanceType)); ok {
				tv.names = append(tv.names, string(it.InstanceType))
			} else {
				tv.unknown++
			}
		}
	}
	offerings := ec2.NewDescribeInstanceTypeOfferingsPaginator(p.ec2, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone})
	for offerings.HasMorePages() {
		page, err := offerings.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing instance type offerings: %w", err)
		}
		for _, o := range page.InstanceTypeOfferings {
			name := string(o.InstanceType)
			tv.zones[name] = append(tv.zones[name], aws.ToString(o.Location))
		}
	}
	slices.Sort(tv.names)
	p.log.Info("loaded instance types", "types", len(tv.names), "unknownTypesSkipped", tv.unknown)
	p.mu.Lock()
	p.types = tv
	p.mu.Unlock()
	return tv, nil
}

// InstanceTypes returns the instance types pool's NodeClass can launch: the
// region's types (DescribeInstanceTypes) with an AMI for their architecture,
// each with one offering per zone that has a resolved subnet and offers the
// type (DescribeInstanceTypeOfferings) and per capacity type with a price
// (Pricing API and spot price history, or the embedded catalog). Offerings
// that recently reported insufficient capacity are marked unavailable.
func (p *Provider) InstanceTypes(ctx context.Context, pool *state.Pool) ([]*catalog.InstanceType, error) {
	if pool == nil {
		return nil, fmt.Errorf("instance types: nil pool; this is always a bug in the caller")
	}
	var r *resolved
	var err error
	if pool.Class != nil {
		r, err = p.resolve(ctx, pool.Class)
		if err == nil && r.notReady != "" {
			err = &cloud.NodeClassNotReadyError{NodeClass: pool.Class.Name, Reason: r.notReady}
		}
	} else {
		_, r, err = p.resolveByName(ctx, pool.NodeClass)
	}
	if err != nil {
		return nil, fmt.Errorf("instance types of pool %s: %w", pool.Name, err)
	}
	return p.instanceTypesFor(ctx, r)
}

// instanceTypesFor builds the catalog view of a resolved class.
func (p *Provider) instanceTypesFor(ctx context.Context, r *resolved) ([]*catalog.InstanceType, error) {
	tv, err := p.typeView(ctx)
	if err != nil {
		return nil, err
	}
	prices := p.priceView(ctx)
	amis := amiRequirements(r.status.AMIs)
	var out []*catalog.InstanceType
	for _, name := range tv.names {
		base, _ := p.specs.Get(name)
		if amiFor(base.Requirements, amis) < 0 {
			continue
		}
		var offerings []catalog.Offering
		for _, zone := range slices.Sorted(slices.Values(tv.zones[name])) {
			if _, ok := r.subnetFor[zone]; !ok {
				continue
			}
			if price, ok := prices.onDemand[name]; ok {
				offerings = append(offerings, p.offering(name, zone, scheduling.CapacityTypeOnDemand, price))
			}
			if price, ok := prices.spotPrice(name, zone); ok {
				offerings = append(offerings, p.offering(name, zone, scheduling.CapacityTypeSpot, price))
			}
		}
		if len(offerings) == 0 {
			continue
		}
		out = append(out, p.withOfferings(base, offerings))
	}
	reserved, unknown := catalog.WithReservations(out, p.reservationsFor(ctx, r))
	for _, res := range unknown {
		p.log.Warn("capacity reservation of a type the nodeclass cannot launch (no AMI for its architecture, or not offered in its zone's subnets); it is not used",
			"nodeclass", r.class.Name, "reservation", res.String())
	}
	for _, it := range reserved {
		for i, o := range it.Offerings {
			if o.Reservation != nil && o.Available && p.isUnavailable(cloud.Offering{InstanceType: it.Name, Zone: o.Zone, CapacityType: o.CapacityType, ReservationID: o.Reservation.ID}) {
				it.Offerings[i].Available = false
			}
		}
	}
	return reserved, nil
}

func (p *Provider) offering(name, zone, capacityType string, price float64) catalog.Offering {
	return catalog.Offering{Zone: zone, CapacityType: capacityType, PricePerHour: price,
		Available: !p.isUnavailable(cloud.Offering{InstanceType: name, Zone: zone, CapacityType: capacityType})}
}

// withOfferings copies base with the live offerings and the region, zone and
// capacity-type requirements narrowed to them.
func (p *Provider) withOfferings(base *catalog.InstanceType, offerings []catalog.Offering) *catalog.InstanceType {
	it := *base
	it.Offerings = offerings
	it.Requirements = base.Requirements.Clone()
	var zones, capacityTypes []string
	for _, o := range offerings {
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	it.Requirements[scheduling.LabelTopologyRegion] = scheduling.In(scheduling.LabelTopologyRegion, p.region)
	it.Requirements[scheduling.LabelTopologyZone] = scheduling.In(scheduling.LabelTopologyZone, zones...)
	it.Requirements[scheduling.LabelCapacityType] = scheduling.In(scheduling.LabelCapacityType, capacityTypes...)
	return &it
}

// amiRequirements parses each AMI's requirements (an unparsable one gets a
// requirement nothing satisfies, so it is never chosen).
func amiRequirements(amis []v1.AMI) []scheduling.Requirements {
	out := make([]scheduling.Requirements, len(amis))
	for i, ami := range amis {
		reqs, err := scheduling.RequirementsFromNodeSelector(ami.Requirements...)
		if err != nil {
			reqs = scheduling.NewRequirements(scheduling.DoesNotExist(scheduling.LabelArch))
		}
		out[i] = reqs
	}
	return out
}

// amiFor returns the index of the first AMI whose requirements a type with
// reqs meets, or -1.
func amiFor(reqs scheduling.Requirements, amis []scheduling.Requirements) int {
	for i, a := range amis {
		if reqs.Overlaps(a) {
			return i
		}
	}
	return -1
}

// isUnavailable reports whether an offering reported insufficient capacity
// less than UnavailableFor ago.
func (p *Provider) isUnavailable(o cloud.Offering) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	until, ok := p.unavailable[o]
	if ok && !p.now().Before(until) {
		delete(p.unavailable, o)
		return false
	}
	return ok
}

// markUnavailable skips offerings for UnavailableFor.
func (p *Provider) markUnavailable(offerings ...cloud.Offering) {
	p.mu.Lock()
	defer p.mu.Unlock()
	until := p.now().Add(p.opts.UnavailableFor)
	for _, o := range offerings {
		p.unavailable[o] = until
	}
}
