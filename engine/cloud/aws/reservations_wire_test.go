package aws

import (
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// newReservedEnv is newWireEnv with two reservations in the account
// (cr-odcr: two m5.large in us-east-1a, tagged team=ml; cr-block: a
// capacity block of one m5.xlarge in us-east-1b ending in six hours) and
// the default NodeClass selecting reservations by terms.
func newReservedEnv(t *testing.T, terms ...v1.CapacityReservationSelectorTerm) *wireEnv {
	t.Helper()
	e := newWireEnv(t)
	ml := ec2types.Tag{Key: awsString("team"), Value: awsString("ml")}
	e.fake.CapacityReservations = []ec2types.CapacityReservation{
		awsfake.Reservation("cr-odcr", "m5.large", "us-east-1a", 2, ec2types.CapacityReservationTypeDefault, time.Time{}, ml),
		awsfake.Reservation("cr-block", "m5.xlarge", "us-east-1b", 1, ec2types.CapacityReservationTypeCapacityBlock, e.clock.Now().Add(6*time.Hour)),
	}
	e.cs.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.CapacityReservationSelectorTerms = terms }))
	return e
}

func awsString(s string) *string { return &s }

func reservedOrOnDemand() v1.NodeSelectorRequirementWithMinValues {
	return req(scheduling.LabelCapacityType, "In", scheduling.CapacityTypeReserved, scheduling.CapacityTypeOnDemand)
}

func reservedOfferings(types []*catalog.InstanceType) map[string]catalog.Offering {
	out := map[string]catalog.Offering{}
	for _, it := range types {
		for _, o := range it.Offerings {
			if o.Reservation != nil {
				out[o.Reservation.ID] = o
			}
		}
	}
	return out
}

func TestWireReservedOfferings(t *testing.T) {
	e := newReservedEnv(t, v1.CapacityReservationSelectorTerm{Tags: v1.SelectorTags{"team": "ml"}}, v1.CapacityReservationSelectorTerm{ID: "cr-block"})
	types, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	got := reservedOfferings(types)
	odcr, block := got["cr-odcr"], got["cr-block"]
	if odcr.Zone != "us-east-1a" || !odcr.Available || odcr.Reservation.Available != 2 || odcr.PricePerHour <= 0 || odcr.PricePerHour > 1e-6 {
		t.Errorf("cr-odcr offering = %+v, want us-east-1a, 2 available, near-zero price", odcr)
	}
	if block.Reservation == nil || block.Reservation.Type != v1.CapacityReservationTypeCapacityBlock || !block.Available {
		t.Errorf("cr-block offering = %+v, want an available capacity block", block)
	}
	// The request asked for active reservations, by tag and by ID.
	reqs := e.w.Requests("DescribeCapacityReservations")
	if len(reqs) != 2 {
		t.Fatalf("DescribeCapacityReservations requests = %d, want one per term", len(reqs))
	}
	wantForm(t, reqs[0], map[string]string{"Filter.1.Name": "state", "Filter.1.Value.1": "active", "Filter.2.Name": "tag:team", "Filter.2.Value.1": "ml"})
	wantForm(t, reqs[1], map[string]string{"CapacityReservationId.1": "cr-block"})
	status, err := e.p.NodeClassStatus(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if len(status.CapacityReservations) != 2 || status.CapacityReservations[0].ID != "cr-block" || status.CapacityReservations[0].EndTime == nil {
		t.Errorf("status reservations = %+v", status.CapacityReservations)
	}
}

func TestWireLaunchIntoReservation(t *testing.T) {
	e := newReservedEnv(t, v1.CapacityReservationSelectorTerm{ID: "cr-odcr"})
	c := claim("general-r1", reservedOrOnDemand(), req(scheduling.LabelInstanceType, "In", "m5.large"), req(scheduling.LabelTopologyZone, "In", "us-east-1a"))
	got, err := e.p.Create(t.Context(), c)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got.Status.CapacityType != scheduling.CapacityTypeReserved || got.Labels[scheduling.LabelCapacityReservationID] != "cr-odcr" ||
		got.Labels["karpenter.k8s.aws/capacity-reservation-id"] != "cr-odcr" || got.Labels[scheduling.LabelCapacityReservationType] != "default" {
		t.Errorf("launched claim: capacity type %q, labels %v", got.Status.CapacityType, got.Labels)
	}
	lts := e.w.Requests("CreateLaunchTemplate")
	if len(lts) != 1 {
		t.Fatalf("CreateLaunchTemplate requests = %d", len(lts))
	}
	wantForm(t, lts[0], map[string]string{"LaunchTemplateData.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId": "cr-odcr"})
	wantForm(t, e.w.Requests("CreateFleet")[0], map[string]string{"TargetCapacitySpecification.DefaultTargetCapacityType": "on-demand"})
	// The instance is in the reservation as EC2 reports it back.
	back, err := e.p.Get(t.Context(), got.Status.ProviderID)
	if err != nil {
		t.Fatal(err)
	}
	if back.Status.CapacityType != scheduling.CapacityTypeReserved || back.Labels[scheduling.LabelCapacityReservationID] != "cr-odcr" {
		t.Errorf("Get: capacity type %q, labels %v", back.Status.CapacityType, back.Labels)
	}
	// The launch counts against the reservation at once: one left.
	types, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if o := reservedOfferings(types)["cr-odcr"]; o.Reservation == nil || o.Reservation.Available != 1 {
		t.Errorf("after one launch cr-odcr = %+v, want 1 available", o)
	}
}

// A reservation used up by launches the provider did not make: the fleet
// is refused with ReservationCapacityExceeded, and the claim falls back to
// on-demand in the same request cycle; the reservation is offered as full
// from then on.
func TestWireReservationExhaustedFallsBack(t *testing.T) {
	e := newReservedEnv(t, v1.CapacityReservationSelectorTerm{ID: "cr-odcr"})
	if _, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"}); err != nil {
		t.Fatal(err)
	}
	e.fake.SetReservationAvailable("cr-odcr", 0)
	c := claim("general-r2", reservedOrOnDemand(), req(scheduling.LabelInstanceType, "In", "m5.large"), req(scheduling.LabelTopologyZone, "In", "us-east-1a"))
	got, err := e.p.Create(t.Context(), c)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got.Status.CapacityType != scheduling.CapacityTypeOnDemand || got.Labels[scheduling.LabelCapacityReservationID] != "" {
		t.Errorf("fell back to %q with labels %v, want on-demand without a reservation", got.Status.CapacityType, got.Labels)
	}
	fleets := e.w.Requests("CreateFleet")
	if len(fleets) != 2 || fleets[1].Form.Get("TargetCapacitySpecification.DefaultTargetCapacityType") != "on-demand" {
		t.Fatalf("CreateFleet requests = %d, want the reservation then on-demand", len(fleets))
	}
	types, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if o := reservedOfferings(types)["cr-odcr"]; o.Available {
		t.Errorf("cr-odcr still offered as available: %+v", o)
	}
	// A claim that allows only reserved capacity fails with insufficient
	// capacity naming the reservation.
	only := claim("general-r3", req(scheduling.LabelCapacityType, "In", scheduling.CapacityTypeReserved), req(scheduling.LabelInstanceType, "In", "m5.large"))
	_, err = e.p.Create(t.Context(), only)
	if !cloud.IsInsufficientCapacity(err) {
		t.Errorf("reserved-only claim: err = %v, want insufficient capacity", err)
	}
}

// A capacity block about to end: no launch goes into it, and the node
// already in it drifts, so it is replaced before EC2 reclaims it.
func TestWireCapacityBlockExpiring(t *testing.T) {
	e := newReservedEnv(t, v1.CapacityReservationSelectorTerm{ID: "cr-block"})
	c := claim("general-b1", reservedOrOnDemand(), req(scheduling.LabelInstanceType, "In", "m5.xlarge"), req(scheduling.LabelTopologyZone, "In", "us-east-1b"))
	got, err := e.p.Create(t.Context(), c)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got.Labels[scheduling.LabelCapacityReservationType] != v1.CapacityReservationTypeCapacityBlock {
		t.Fatalf("launched with labels %v, want the capacity block", got.Labels)
	}
	lt := e.w.Requests("CreateLaunchTemplate")[0]
	wantForm(t, lt, map[string]string{"LaunchTemplateData.InstanceMarketOptions.MarketType": "capacity-block"})
	wantForm(t, e.w.Requests("CreateFleet")[0], map[string]string{"TargetCapacitySpecification.DefaultTargetCapacityType": "capacity-block"})
	if reason, err := e.p.IsDrifted(t.Context(), got); err != nil || reason != "" {
		t.Fatalf("drift six hours before the end = %q, %v", reason, err)
	}
	// The block now ends in 30 minutes (EC2 moved it, or time passed).
	e.fake.SetReservationEnd("cr-block", e.clock.Now().Add(30*time.Minute))
	e.clock.Step(2 * DefaultReservationsTTL)
	types, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if o := reservedOfferings(types)["cr-block"]; o.Available {
		t.Errorf("an ending capacity block is still offered: %+v", o)
	}
	if reason, err := e.p.IsDrifted(t.Context(), got); err != nil || reason != cloud.DriftCapacityBlockExpiring {
		t.Errorf("drift 30 minutes before the end = %q, %v; want %s", reason, err, cloud.DriftCapacityBlockExpiring)
	}
	next, err := e.p.Create(t.Context(), claim("general-b2", reservedOrOnDemand(), req(scheduling.LabelInstanceType, "In", "m5.xlarge"), req(scheduling.LabelTopologyZone, "In", "us-east-1b")))
	if err != nil {
		t.Fatal(err)
	}
	if next.Status.CapacityType != scheduling.CapacityTypeOnDemand {
		t.Errorf("replacement launched as %q, want on-demand outside the ending block", next.Status.CapacityType)
	}
}
