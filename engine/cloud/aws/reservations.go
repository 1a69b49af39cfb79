package aws

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Capacity reservations: a NodeClass's capacityReservationSelectorTerms
// select active On-Demand Capacity Reservations and capacity blocks
// (DescribeCapacityReservations). Each becomes a reserved offering of its
// type in its zone (catalog.WithReservations), priced near zero and
// available while the reservation has instances left; packing fills those
// first (engine/packing, reserved.go), and Create launches a claim that
// allows reserved into a reservation with a launch template targeting it,
// falling back to spot and on-demand when it is used up. The available
// counts are described again after ReservationsTTL, and each launch into a
// reservation counts against it at once, so one batch does not overfill it.
// A capacity block is not launched into within CapacityBlockLead of its
// end, and its nodes drift then (IsDrifted), so they are replaced before
// EC2 reclaims them.

// reservationView is what a NodeClass's terms selected, and when.
type reservationView struct {
	at   time.Time
	list []v1.CapacityReservation
	// launched counts launches into each reservation since at.
	launched map[string]int
}

// capacityReservationErrorCodes mean the reservation has no room (or is
// gone): the offering is skipped and the claim falls back.
var capacityReservationErrorCodes = []string{
	"ReservationCapacityExceeded", "InsufficientCapacityReservation", "InvalidCapacityReservationId.NotFound",
	"InvalidCapacityReservationId.Malformed", "CapacityReservationNotFound",
}

// discoverReservations describes the active reservations the terms select,
// sorted by ID.
func (p *Provider) discoverReservations(ctx context.Context, terms []v1.CapacityReservationSelectorTerm) ([]v1.CapacityReservation, error) {
	seen := map[string]bool{}
	var out []v1.CapacityReservation
	for i, term := range terms {
		in := &ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{{Name: aws.String("state"), Values: []string{string(ec2types.CapacityReservationStateActive)}}}}
		if term.ID != "" {
			in.CapacityReservationIds = []string{term.ID}
		} else {
			in.Filters = append(in.Filters, tagFilters(term.Tags)...)
			if term.OwnerID != "" {
				in.Filters = append(in.Filters, ec2types.Filter{Name: aws.String("owner-id"), Values: []string{term.OwnerID}})
			}
			if term.InstanceMatchCriteria != "" {
				in.Filters = append(in.Filters, ec2types.Filter{Name: aws.String("instance-match-criteria"), Values: []string{term.InstanceMatchCriteria}})
			}
		}
		pages := ec2.NewDescribeCapacityReservationsPaginator(p.ec2, in)
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if isCode(err, "InvalidCapacityReservationId.NotFound") {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("describing capacity reservations of capacityReservationSelectorTerms[%d]: %w", i, err)
			}
			for _, cr := range page.CapacityReservations {
				id := aws.ToString(cr.CapacityReservationId)
				if seen[id] || cr.State != ec2types.CapacityReservationStateActive {
					continue
				}
				seen[id] = true
				out = append(out, reservationStatus(cr))
			}
		}
	}
	slices.SortFunc(out, func(a, b v1.CapacityReservation) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func reservationStatus(cr ec2types.CapacityReservation) v1.CapacityReservation {
	out := v1.CapacityReservation{
		ID: aws.ToString(cr.CapacityReservationId), InstanceType: aws.ToString(cr.InstanceType), Zone: aws.ToString(cr.AvailabilityZone),
		OwnerID: aws.ToString(cr.OwnerId), InstanceMatchCriteria: string(cr.InstanceMatchCriteria),
		ReservationType: string(cr.ReservationType), AvailableInstanceCount: aws.ToInt32(cr.AvailableInstanceCount),
	}
	if out.ReservationType == "" {
		out.ReservationType = v1.CapacityReservationTypeDefault
	}
	if cr.EndDate != nil {
		end := metav1.NewTime(*cr.EndDate)
		out.EndTime = &end
	}
	return out
}

// reservationsFor returns the class's reservations as the catalog sees
// them: described again once older than ReservationsTTL, each launch since
// counted against its reservation, and a capacity block within
// CapacityBlockLead of its end left with none available. A failed
// describe keeps the last answer (and logs), or offers no reservation.
func (p *Provider) reservationsFor(ctx context.Context, r *resolved) []catalog.Reservation {
	spec := r.class.Spec.AWS
	if spec == nil || len(spec.CapacityReservationSelectorTerms) == 0 {
		return nil
	}
	name := r.class.Name
	p.mu.Lock()
	view := p.reservations[name]
	fresh := view != nil && p.now().Sub(view.at) < p.opts.ReservationsTTL
	p.mu.Unlock()
	if !fresh {
		list, err := p.discoverReservations(ctx, spec.CapacityReservationSelectorTerms)
		if err != nil {
			p.log.Warn("capacity reservations not refreshed", "nodeclass", name, "error", err.Error())
		} else {
			view = &reservationView{at: p.now(), list: list, launched: map[string]int{}}
			p.mu.Lock()
			p.reservations[name] = view
			p.mu.Unlock()
		}
	}
	if view == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	out := make([]catalog.Reservation, 0, len(view.list))
	for _, cr := range view.list {
		if _, ok := r.subnetFor[cr.Zone]; !ok {
			continue
		}
		res := catalog.Reservation{ID: cr.ID, InstanceType: cr.InstanceType, Zone: cr.Zone, Type: cr.ReservationType,
			Available: max(0, int(cr.AvailableInstanceCount)-view.launched[cr.ID])}
		if cr.EndTime != nil {
			res.EndTime = cr.EndTime.Time
		}
		if expiring(res, now) {
			res.Available = 0
		}
		out = append(out, res)
	}
	return out
}

// reservationStatus is the class's reservations for its status, with the
// available counts reservationsFor gives.
func (p *Provider) reservationStatus(ctx context.Context, r *resolved) []v1.CapacityReservation {
	now := p.reservationsFor(ctx, r)
	avail := map[string]int32{}
	for _, res := range now {
		avail[res.ID] = int32(res.Available)
	}
	p.mu.Lock()
	view := p.reservations[r.class.Name]
	p.mu.Unlock()
	if view == nil {
		return r.status.CapacityReservations
	}
	out := make([]v1.CapacityReservation, 0, len(view.list))
	for _, cr := range view.list {
		cr := *cr.DeepCopy()
		if n, ok := avail[cr.ID]; ok {
			cr.AvailableInstanceCount = n
		}
		out = append(out, cr)
	}
	return out
}

// expiring reports whether a capacity block ends within CapacityBlockLead.
func expiring(r catalog.Reservation, now time.Time) bool {
	return r.Type == v1.CapacityReservationTypeCapacityBlock && !r.EndTime.IsZero() && r.EndTime.Sub(now) < CapacityBlockLead
}

// reservationLaunched counts a launch into reservation id against it in
// every class that selects it.
func (p *Provider) reservationLaunched(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, view := range p.reservations {
		if slices.ContainsFunc(view.list, func(cr v1.CapacityReservation) bool { return cr.ID == id }) {
			view.launched[id]++
		}
	}
}

// reservationFull records that reservation id had no room: every class's
// view of it drops to none available until it is described again.
func (p *Provider) reservationFull(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, view := range p.reservations {
		for i := range view.list {
			if view.list[i].ID == id {
				view.launched[id] = int(view.list[i].AvailableInstanceCount)
			}
		}
	}
}

// reservation returns what the provider last saw of reservation id.
func (p *Provider) reservation(id string) (v1.CapacityReservation, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, view := range p.reservations {
		for _, cr := range view.list {
			if cr.ID == id {
				return cr, true
			}
		}
	}
	return v1.CapacityReservation{}, false
}

// reservationType is default or capacity-block for a known reservation,
// "" for one the provider has not described.
func (p *Provider) reservationType(id string) string {
	cr, _ := p.reservation(id)
	return cr.ReservationType
}

// setReservationLabels puts the reservation's ID and type on a node's
// labels, with Karpenter's spellings, so workloads written for either
// select reserved nodes.
func setReservationLabels(labels map[string]string, id, typ string) {
	labels[scheduling.LabelCapacityReservationID] = id
	labels[karpenterReservationID] = id
	if typ != "" {
		labels[scheduling.LabelCapacityReservationType] = typ
		labels[karpenterReservationType] = typ
	}
}

// Karpenter's labels of a reserved node.
const (
	karpenterReservationID   = "karpenter.k8s.aws/capacity-reservation-id"
	karpenterReservationType = "karpenter.k8s.aws/capacity-reservation-type"
)

// capacityBlockDrift reports whether an instance in reservation id (""
// for none) runs in a capacity block that ends within CapacityBlockLead:
// it is replaced before EC2 reclaims it.
func (p *Provider) capacityBlockDrift(id string) cloud.DriftReason {
	if id == "" {
		return ""
	}
	cr, ok := p.reservation(id)
	if !ok || cr.EndTime == nil {
		return ""
	}
	if expiring(catalog.Reservation{Type: cr.ReservationType, EndTime: cr.EndTime.Time}, p.now()) {
		return cloud.DriftCapacityBlockExpiring
	}
	return ""
}
