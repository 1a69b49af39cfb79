package awsfake

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Capacity reservations: DescribeCapacityReservations serves
// Fake.CapacityReservations; CreateFleet launches into the one a launch
// template targets (CapacityReservationSpecification), counting the
// instance against it, and fails the override with
// ReservationCapacityExceeded when it has no room or the override's type or
// zone is not the reservation's. The knobs SetReservationAvailable (a
// reservation used up by others) and SetReservationEnd (a capacity block
// about to end) change a reservation in place.

// DescribeCapacityReservations returns the reservations matching the IDs
// and filters (state, owner-id, instance-match-criteria, instance-type,
// availability-zone, tags); an unknown ID fails as in EC2.
func (f *Fake) DescribeCapacityReservations(ctx context.Context, in *ec2.DescribeCapacityReservationsInput, _ ...func(*ec2.Options)) (*ec2.DescribeCapacityReservationsOutput, error) {
	list, err := describe(ctx, f, "DescribeCapacityReservations", in, listing[ec2types.CapacityReservation]{
		items: &f.CapacityReservations,
		keep: func(cr ec2types.CapacityReservation) bool {
			return named(in.CapacityReservationIds, aws.ToString(cr.CapacityReservationId)) && matches(in.Filters, reservationAttrs(cr))
		},
		ids: in.CapacityReservationIds,
		id:  func(cr ec2types.CapacityReservation) string { return aws.ToString(cr.CapacityReservationId) },
		notFound: func(id string) error {
			return apiError("InvalidCapacityReservationId.NotFound", "The capacity reservation ID '"+id+"' does not exist")
		},
	})
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeCapacityReservationsOutput{CapacityReservations: list}, nil
}

func reservationAttrs(cr ec2types.CapacityReservation) attrs {
	return fieldAttrs(cr.Tags, map[string]string{
		"capacity-reservation-id": aws.ToString(cr.CapacityReservationId),
		"state":                   string(cr.State),
		"owner-id":                aws.ToString(cr.OwnerId),
		"instance-match-criteria": string(cr.InstanceMatchCriteria),
		"instance-type":           aws.ToString(cr.InstanceType),
		"availability-zone":       aws.ToString(cr.AvailabilityZone),
	})
}

// Reservation returns a reservation of count instances of instanceType in
// zone, active, open, owned by 123456789012; typ is "default" or
// "capacity-block" (which ends at end).
func Reservation(id, instanceType, zone string, count int32, typ ec2types.CapacityReservationType, end time.Time, tags ...ec2types.Tag) ec2types.CapacityReservation {
	cr := ec2types.CapacityReservation{
		CapacityReservationId: aws.String(id), InstanceType: aws.String(instanceType), AvailabilityZone: aws.String(zone),
		AvailableInstanceCount: aws.Int32(count), TotalInstanceCount: aws.Int32(count), State: ec2types.CapacityReservationStateActive,
		InstanceMatchCriteria: ec2types.InstanceMatchCriteriaOpen, OwnerId: aws.String("123456789012"), ReservationType: typ, Tags: tags,
	}
	if !end.IsZero() {
		cr.EndDate = aws.Time(end)
	}
	return cr
}

// SetReservationAvailable sets how many more instances reservation id can
// take (0: used up by launches the provider does not know of).
func (f *Fake) SetReservationAvailable(id string, n int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cr := f.reservationLocked(id); cr != nil {
		cr.AvailableInstanceCount = aws.Int32(n)
	}
}

// SetReservationEnd sets when reservation id ends.
func (f *Fake) SetReservationEnd(id string, end time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cr := f.reservationLocked(id); cr != nil {
		cr.EndDate = aws.Time(end)
	}
}

func (f *Fake) reservationLocked(id string) *ec2types.CapacityReservation {
	for i := range f.CapacityReservations {
		if aws.ToString(f.CapacityReservations[i].CapacityReservationId) == id {
			return &f.CapacityReservations[i]
		}
	}
	return nil
}

// reservationTarget is the reservation a launch template targets, "" for
// none.
func (f *Fake) reservationTarget(cfg ec2types.FleetLaunchTemplateConfigRequest) string {
	data := f.templateData[aws.ToString(cfg.LaunchTemplateSpecification.LaunchTemplateName)]
	if s := data.CapacityReservationSpecification; s != nil && s.CapacityReservationTarget != nil {
		return aws.ToString(s.CapacityReservationTarget.CapacityReservationId)
	}
	return ""
}

// reserve takes one instance of reservation id for an override of
// instanceType in zone, or returns the error code and message of a
// refusal.
func (f *Fake) reserve(id, instanceType, zone string) (code, msg string) {
	cr := f.reservationLocked(id)
	switch {
	case cr == nil:
		return "InvalidCapacityReservationId.NotFound", "The capacity reservation ID '" + id + "' does not exist"
	case aws.ToString(cr.InstanceType) != instanceType || aws.ToString(cr.AvailabilityZone) != zone:
		return "ReservationCapacityExceeded", "The capacity reservation " + id + " holds no " + instanceType + " in " + zone + "."
	case aws.ToInt32(cr.AvailableInstanceCount) <= 0:
		return "ReservationCapacityExceeded", "The capacity reservation " + id + " has no available capacity."
	}
	cr.AvailableInstanceCount = aws.Int32(aws.ToInt32(cr.AvailableInstanceCount) - 1)
	return "", ""
}
