package packing_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// withReservations offers the pool the catalog's types with the given
// reservations added.
func withReservations(rs ...catalog.Reservation) statetest.PoolOption {
	return func(p *state.Pool) {
		types, unknown := catalog.WithReservations(statetest.Catalog().InstanceTypes(), rs)
		if len(unknown) > 0 {
			panic(fmt.Sprint("unknown reservations ", unknown))
		}
		p.InstanceTypes = types
	}
}

func allowing(capacityTypes ...string) statetest.PoolOption {
	return statetest.WithRequirement(scheduling.In(scheduling.LabelCapacityType, capacityTypes...))
}

// reservedClaims counts the result's claims launched into each reservation.
func reservedClaims(r *packing.Result) map[string]int {
	out := map[string]int{}
	for _, cl := range r.Claims {
		if cl.Chosen().CapacityType == scheduling.CapacityTypeReserved {
			out[cl.Labels[scheduling.LabelCapacityReservationID]]++
		}
	}
	return out
}

func solveReserved(t *testing.T, pools []*state.Pool, nodes []*state.Node, pods []*state.Pod) *packing.Result {
	t.Helper()
	snap := statetest.Snapshot(pools, nodes, pods)
	r, err := packing.Solve(context.Background(), snap, pods)
	if err != nil {
		t.Fatal(err)
	}
	if v := check.Result(snap, pods, r); len(v) > 0 {
		t.Fatalf("invalid result: %v", v)
	}
	return r
}

func TestReservedCapacity(t *testing.T) {
	m5 := catalog.Reservation{ID: "cr-m5", InstanceType: "m5.xlarge", Zone: "us-east-1a", Type: "default", Available: 2}
	for _, tc := range []struct {
		name  string
		pools []*state.Pool
		nodes func(pools []*state.Pool) []*state.Node
		// reserved is how many claims go into cr-m5, paid how many others,
		// unschedulable how many pods stay pending.
		reserved, unschedulable int
		paid                    bool
		reason                  string
	}{
		{name: "reservation filled first, the rest on demand", reserved: 2, paid: true,
			pools: statetest.Pools(statetest.Pool("p", allowing("reserved", "on-demand"), withReservations(m5)))},
		{name: "pool not allowing reserved never uses it", reserved: 0, paid: true,
			pools: statetest.Pools(statetest.Pool("p", withReservations(m5)))},
		{name: "reserved only: pods past the reservation stay pending", reserved: 2, unschedulable: 8,
			reason: "no instance type with a price", pools: statetest.Pools(statetest.Pool("p", allowing("reserved"), withReservations(m5)))},
		{name: "two pools share the reservation and never exceed it", reserved: 2, paid: true, pools: statetest.Pools(
			statetest.Pool("a", allowing("reserved", "on-demand"), withReservations(m5), statetest.WithWeight(10)),
			statetest.Pool("b", allowing("reserved", "on-demand"), withReservations(m5)))},
		{name: "a claim already planned into the reservation counts", reserved: 1, paid: true,
			pools: statetest.Pools(statetest.Pool("p", allowing("reserved", "on-demand"), withReservations(m5))),
			nodes: func(pools []*state.Pool) []*state.Node {
				n := statetest.Node(pools[0], "planned", "m5.xlarge", "us-east-1a", statetest.WithCapacityType("reserved"))
				n.InFlight = true
				return []*state.Node{n}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// 12 pods of 1.5 CPU: two m5.xlarge hold four, the rest need more.
			pods := statetest.Pods(12, "web", "1500m", "1Gi")
			var nodes []*state.Node
			if tc.nodes != nil {
				nodes = tc.nodes(tc.pools)
				pods = append(pods, statetest.Pod("bound", "3500m", "1Gi", statetest.BoundTo("planned")))
			}

			r := solveReserved(t, tc.pools, nodes, pods)
			if got := reservedClaims(r)["cr-m5"]; got != tc.reserved {
				t.Errorf("claims in cr-m5 = %d, want %d (claims %s)", got, tc.reserved, describeClaims(r))
			}
			paid := 0
			for _, cl := range r.Claims {
				o := cl.Chosen()
				if o.CapacityType == scheduling.CapacityTypeReserved {
					if o.InstanceType != "m5.xlarge" || o.Zone != "us-east-1a" || o.PricePerHour > 1e-5 {
						t.Errorf("reserved claim %s is %+v, want m5.xlarge in us-east-1a at a near-zero price", cl.Name, o)
					}
					continue
				}
				paid++
			}
			if (paid > 0) != tc.paid {
				t.Errorf("paid claims = %d, want some: %v (claims %s)", paid, tc.paid, describeClaims(r))
			}
			if len(r.Unschedulable) != tc.unschedulable {
				t.Fatalf("unschedulable = %v, want %d", r.Unschedulable, tc.unschedulable)
			}
			for _, u := range r.Unschedulable {
				if !strings.Contains(u.Reason, tc.reason) {
					t.Errorf("reason %q should say %q", u.Reason, tc.reason)
				}
			}
		})
	}
}

func describeClaims(r *packing.Result) string {
	var parts []string
	for _, cl := range r.Claims {
		o := cl.Chosen()
		parts = append(parts, fmt.Sprintf("%s=%s/%s/%s(%d pods)", cl.Name, o.InstanceType, o.Zone, o.CapacityType, len(cl.Pods)))
	}
	return strings.Join(parts, " ")
}

// A slot's claim falls back to the type's on-demand offering in its zone,
// so the provider can launch it when the reservation is used up by then.
func TestReservedClaimFallsBackToOnDemand(t *testing.T) {
	m5 := catalog.Reservation{ID: "cr-m5", InstanceType: "m5.xlarge", Zone: "us-east-1b", Available: 1}
	pool := statetest.Pool("p", allowing("reserved", "on-demand"), withReservations(m5))
	pods := statetest.Pods(2, "web", "1", "1Gi")
	r := solveReserved(t, statetest.Pools(pool), nil, pods)
	if len(r.Claims) != 1 {
		t.Fatalf("claims: %s, want one in the reservation", describeClaims(r))
	}
	cl := r.Claims[0]
	if len(cl.Options) != 2 || cl.Options[0].CapacityType != "reserved" || cl.Options[1].CapacityType != "on-demand" || cl.Options[1].Zone != "us-east-1b" {
		t.Errorf("options = %+v, want reserved then on-demand m5.xlarge in us-east-1b", cl.Options)
	}
	if got := cl.Requirements.Get(scheduling.LabelCapacityType); !got.Has("reserved") || !got.Has("on-demand") {
		t.Errorf("capacity-type requirement %v should allow reserved and on-demand", got)
	}
	if cl.Labels[scheduling.LabelCapacityReservationID] != "cr-m5" {
		t.Errorf("labels %v lack the reservation id", cl.Labels)
	}
	if r.CostPerHour > 1e-5 {
		t.Errorf("cost = %g, want near zero", r.CostPerHour)
	}
}

// A capacity block of GPU instances is for pods that ask for GPUs: ordinary
// pods do not take it.
func TestGPUReservationOnlyForGPUPods(t *testing.T) {
	block := catalog.Reservation{ID: "cr-gpu", InstanceType: "g5.xlarge", Zone: "us-east-1a", Type: "capacity-block", Available: 2}
	pool := statetest.Pool("p", allowing("reserved", "on-demand"), withReservations(block))
	web := statetest.Pods(2, "web", "1", "1Gi")
	if r := solveReserved(t, statetest.Pools(pool), nil, web); reservedClaims(r)["cr-gpu"] != 0 {
		t.Errorf("ordinary pods went into the GPU capacity block: %s", describeClaims(r))
	}
	train := statetest.Pods(2, "train", "2", "8Gi", statetest.WithRequest("nvidia.com/gpu", "1"))
	r := solveReserved(t, statetest.Pools(pool), nil, train)
	if reservedClaims(r)["cr-gpu"] != 2 {
		t.Errorf("GPU pods should use the capacity block: %s", describeClaims(r))
	}
	for _, cl := range r.Claims {
		if cl.Labels[scheduling.LabelCapacityReservationType] != "capacity-block" {
			t.Errorf("claim %s labels %v lack the reservation type", cl.Name, cl.Labels)
		}
	}
}

// Random pools, pods and reservations: no reservation takes more claims
// than it has room for, every result is valid, and reservations never make
// the batch dearer.
func TestReservationProperties(t *testing.T) {
	types := []string{"m5.large", "m5.xlarge", "c5.2xlarge", "r5.large", "m6i.4xlarge"}
	zones := statetest.Zones
	for seed := range 40 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		var rs []catalog.Reservation
		for i := range 1 + rng.IntN(3) {
			rs = append(rs, catalog.Reservation{ID: fmt.Sprintf("cr-%d", i), InstanceType: types[rng.IntN(len(types))],
				Zone: zones[rng.IntN(len(zones))], Available: rng.IntN(4)})
		}
		cts := [][]string{{"reserved", "on-demand"}, {"reserved", "on-demand", "spot"}, {"reserved"}}[rng.IntN(3)]
		pools := statetest.Pools(statetest.Pool("a", allowing(cts...), withReservations(rs...), statetest.WithWeight(5)))
		if rng.IntN(2) == 0 {
			pools = append(pools, statetest.Pool("b", allowing("reserved", "on-demand"), withReservations(rs...)))
		}
		pods := statetest.Pods(1+rng.IntN(30), "p", fmt.Sprintf("%dm", 250+rng.IntN(3000)), fmt.Sprintf("%dMi", 256+rng.IntN(6000)))
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := solveReserved(t, pools, nil, pods)
			for _, res := range rs {
				if got := reservedClaims(r)[res.ID]; got > res.Available {
					t.Errorf("%s: %d claims, room for %d", res, got, res.Available)
				}
			}
			var plain []*state.Pool
			for _, p := range pools {
				q := *p
				q.InstanceTypes = statetest.Catalog().InstanceTypes()
				plain = append(plain, &q)
			}
			without := solveReserved(t, plain, nil, pods)
			if len(r.Unschedulable) == len(without.Unschedulable) && r.CostPerHour > without.CostPerHour*1.0001+1e-9 {
				t.Errorf("with reservations $%.4f/h > without $%.4f/h (%s)", r.CostPerHour, without.CostPerHour, describeClaims(r))
			}
		})
	}
}
