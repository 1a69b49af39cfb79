package consolidation

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// reservedPool allows reserved and on-demand capacity, offered the
// catalog with the reservations.
func reservedPool(rs ...catalog.Reservation) *state.Pool {
	return testPool("default", withReq(scheduling.In(scheduling.LabelCapacityType, "reserved", "on-demand")), func(p *state.Pool) {
		p.InstanceTypes, _ = catalog.WithReservations(statetest.Catalog().InstanceTypes(), rs)
	})
}

// reservedNode is a node of p running in reservation id.
func reservedNode(p *state.Pool, name, typ, zone, id string) *state.Node {
	n := testNode(p, name, typ, zone, od)
	n.CapacityType = scheduling.CapacityTypeReserved
	n.PricePerHour = catalog.ReservedPrice(n.PricePerHour)
	it, _ := statetest.Catalog().Get(typ)
	n.Labels = p.NodeLabels(it, zone, scheduling.CapacityTypeReserved, name)
	n.Labels[scheduling.LabelCapacityReservationID] = id
	return n
}

// Consolidation moves pods into a reservation with room (the node it
// launches there costs nearly nothing), and never replaces a node in a
// reservation by a paid one.
func TestReservedCapacityConsolidation(t *testing.T) {
	room := func(n int) catalog.Reservation {
		return catalog.Reservation{ID: "cr-1", InstanceType: "m5.xlarge", Zone: zoneA, Available: n}
	}
	intoReservation := func(want int) func(t *testing.T, res *Result) {
		return func(t *testing.T, res *Result) {
			got := 0
			for _, c := range res.Commands {
				for _, r := range c.Replacements {
					if r.CapacityType == scheduling.CapacityTypeReserved {
						got++
					}
				}
			}
			if got != want {
				t.Errorf("%d replacements into the reservation, want %d: %+v", got, want, res.Commands)
			}
		}
	}
	runRuleCases(t, []ruleCase{
		{
			name: "an on-demand node moves into a reservation with room",
			snap: func() *state.Snapshot {
				p := reservedPool(room(1))
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.2xlarge", zoneA, od)},
					[]*state.Pod{testPod("web-1", "2", "4Gi", "n1")})
			},
			removed: map[string]Reason{"n1": ReasonUnderutilized},
			check:   intoReservation(1),
		},
		{
			name: "two nodes, room for one: only one moves in",
			snap: func() *state.Snapshot {
				p := reservedPool(room(1))
				return snapshot([]*state.Pool{p},
					[]*state.Node{testNode(p, "n1", "m5.2xlarge", zoneA, od), testNode(p, "n2", "m5.2xlarge", "us-east-1b", od)},
					[]*state.Pod{testPod("web-1", "3", "12Gi", "n1"), testPod("api-1", "3", "12Gi", "n2")})
			},
			check: intoReservation(1),
		},
		{
			name: "a reserved node is not replaced by a cheaper paid one",
			snap: func() *state.Snapshot {
				p := reservedPool(room(0))
				return snapshot([]*state.Pool{p}, []*state.Node{reservedNode(p, "n1", "m5.xlarge", zoneA, "cr-1")},
					[]*state.Pod{testPod("web-1", "100m", "128Mi", "n1")})
			},
			removed: map[string]Reason{},
		},
		{
			name: "a full reservation takes no more",
			snap: func() *state.Snapshot {
				p := reservedPool(room(0))
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.2xlarge", zoneA, od)},
					[]*state.Pod{testPod("web-1", "2", "4Gi", "n1")})
			},
			check: intoReservation(0),
		},
	})
}
