package consolidation

import (
	"fmt"
	"math/rand/v2"
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

// Random clusters of on-demand and reserved nodes with a reservation of
// random room: a plan never launches more replacements into the
// reservation than it has room for, never replaces a reserved node by a
// paid one, and never costs more than before.
func TestReservedCapacityProperties(t *testing.T) {
	types := []string{"m5.large", "m5.xlarge", "m5.2xlarge"}
	zones := []string{zoneA, "us-east-1b"}
	for seed := range 30 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		room := rng.IntN(3)
		res := catalog.Reservation{ID: "cr-1", InstanceType: types[rng.IntN(len(types))], Zone: zones[rng.IntN(len(zones))], Available: room}
		p := reservedPool(res)
		var nodes []*state.Node
		var pods []*state.Pod
		reservedNodes := map[string]bool{}
		for i := range 2 + rng.IntN(4) {
			name := fmt.Sprintf("n%d", i)
			if rng.IntN(3) == 0 {
				nodes = append(nodes, reservedNode(p, name, res.InstanceType, res.Zone, "cr-1"))
				reservedNodes[name] = true
			} else {
				nodes = append(nodes, testNode(p, name, types[rng.IntN(len(types))], zones[rng.IntN(len(zones))], od))
			}
			for j := range 1 + rng.IntN(2) {
				pods = append(pods, testPod(fmt.Sprintf("app%d-%d", i, j), fmt.Sprintf("%dm", 200+rng.IntN(1200)), "1Gi", name))
			}
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			snap := snapshot([]*state.Pool{p}, nodes, pods)
			res, err := Plan(t.Context(), snap, t0, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if v := Validate(snap, res); len(v) > 0 {
				t.Fatalf("plan breaks rules: %v", v)
			}
			into := 0
			for _, c := range res.Commands {
				paid := false
				for _, r := range c.Replacements {
					if r.CapacityType == scheduling.CapacityTypeReserved {
						into++
					} else {
						paid = true
					}
				}
				for _, n := range c.Nodes {
					if reservedNodes[n] && paid {
						t.Errorf("reserved node %s replaced by a paid node: %+v", n, c)
					}
				}
			}
			if into > room {
				t.Errorf("%d replacements into a reservation with room for %d", into, room)
			}
			if res.CostAfterPerHour > res.CostBeforePerHour+1e-9 {
				t.Errorf("plan costs $%.4f/h after, $%.4f/h before", res.CostAfterPerHour, res.CostBeforePerHour)
			}
		})
	}
}
