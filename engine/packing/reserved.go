package packing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Capacity reservations (EC2 On-Demand Capacity Reservations and capacity
// blocks) are instances already paid for: launching into one costs nothing
// more, but each holds a fixed number of instances of one type in one
// zone. Solve offers every instance a reservation can still take as an
// in-flight node (a slot) of the highest-weight pool that may launch into
// it, priced at the reserved offering's near-zero price, so the fill puts
// pods there before it opens paid nodes, and no more nodes go into a
// reservation than it has room for: each slot names its reservation, type
// and zone, so the count is exact (Karpenter reserves capacity for every
// reserved offering a claim might launch on, and holds pods back when it
// runs short, kubernetes-sigs/karpenter#2056). The slots that receive pods
// become claims whose options fall back to the type's on-demand (or spot)
// offering in that zone, for when the reservation is used up by the time
// the claim launches.

// maxSlots caps the slots one solve adds for one pool and reservation: a
// slot is a node the fill considers for every pod.
const maxSlots = 256

// slot is one instance a reservation can still take, offered to one pool.
type slot struct {
	node     *state.Node
	pool     *state.Pool
	it       *catalog.InstanceType
	offering catalog.Offering
}

// reservedSlots lists the slots of snap's reservations for pods: each
// available reservation goes to the first pool (the highest weight) that
// follows its pods (not a static one) and may buy its offering, as many
// slots as it has instances left (at most one per pod and maxSlots). Nodes of the snapshot already in a
// reservation without carrying its ID (claims not launched yet, nodes a
// consolidation plan would launch) are counted against it; launched ones
// carry the ID, and the cloud counted them already.
func reservedSlots(snap *state.Snapshot, pods []*state.Pod) []*slot {
	if len(pods) == 0 || !anyReservation(snap.Pools) {
		return nil
	}
	taken := pendingReserved(snap)
	names := map[string]bool{}
	for _, n := range snap.Nodes {
		names[n.Name] = true
	}
	var out []*slot
	given := map[string]bool{}
	for _, pool := range snap.Pools {
		if pool.Static() {
			continue
		}
		filter := pool.Offerings()
		next := 0
		for _, it := range pool.InstanceTypes {
			if !hasReservation(it) || !pool.Launchable(it) || !exoticWanted(it, pool, pods) {
				continue
			}
			for _, o := range it.Offerings {
				if o.Reservation == nil || given[o.Reservation.ID] || !filter.Allows(o) {
					continue
				}
				given[o.Reservation.ID] = true
				left := o.Reservation.Available - taken[slotKey{it.Name, o.Zone}]
				for range min(left, len(pods), maxSlots) {
					name := slotName(pool.Name, &next, names)
					out = append(out, &slot{node: slotNode(pool, it, o, name), pool: pool, it: it, offering: o})
				}
			}
		}
	}
	return out
}

// exoticWanted reports whether slots of type it may be offered: an
// ordinary type always; a GPU, accelerator or metal type (a capacity block
// for ML, typically) only when the pool names it or some pod requests a
// device it has, so that ordinary pods do not take the reservation (as
// exotic.go keeps them off such types when it opens nodes).
func exoticWanted(it *catalog.InstanceType, pool *state.Pool, pods []*state.Pod) bool {
	if it.Exotic() == "" || it.NamesExotic(pool.Requirements) {
		return true
	}
	for _, p := range pods {
		for name, q := range p.Requests {
			if native(name) || q.IsZero() {
				continue
			}
			if a, ok := it.Allocatable[name]; ok && !a.IsZero() {
				return true
			}
		}
	}
	return false
}

// native reports whether every type has the resource.
func native(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage:
		return true
	}
	return false
}

type slotKey struct{ instanceType, zone string }

// pendingReserved counts the reserved nodes of snap without a reservation
// ID label, by type and zone.
func pendingReserved(snap *state.Snapshot) map[slotKey]int {
	out := map[slotKey]int{}
	for _, n := range snap.Nodes {
		if n.CapacityType == scheduling.CapacityTypeReserved && n.Labels[scheduling.LabelCapacityReservationID] == "" {
			out[slotKey{n.InstanceType, n.Zone}]++
		}
	}
	return out
}

// anyReservation reports whether a pool that may launch nodes offers a
// type with a reservation: only then can there be slots, and a cluster
// of thousands of nodes need not be walked to learn there are none.
func anyReservation(pools []*state.Pool) bool {
	for _, pool := range pools {
		if !pool.Static() && slices.ContainsFunc(pool.InstanceTypes, hasReservation) {
			return true
		}
	}
	return false
}

func hasReservation(it *catalog.InstanceType) bool {
	return slices.ContainsFunc(it.Offerings, func(o catalog.Offering) bool { return o.Reservation != nil })
}

// slotName is "<pool>-reserved-<n>", the next n no node uses.
func slotName(pool string, next *int, names map[string]bool) string {
	for {
		*next++
		name := fmt.Sprintf("%s-reserved-%d", pool, *next)
		if !names[name] {
			names[name] = true
			return name
		}
	}
}

// slotNode is the in-flight node a slot offers: the pool's node of the
// type in the reservation's zone, labelled with the reservation.
func slotNode(pool *state.Pool, it *catalog.InstanceType, o catalog.Offering, name string) *state.Node {
	labels := pool.ClaimLabels(it, o.Zone, scheduling.CapacityTypeReserved, name, pool.Requirements)
	labels[scheduling.LabelCapacityReservationID] = o.Reservation.ID
	if o.Reservation.Type != "" {
		labels[scheduling.LabelCapacityReservationType] = o.Reservation.Type
	}
	return &state.Node{
		Name: name, Pool: pool.Name, InstanceType: it.Name, Zone: o.Zone, CapacityType: scheduling.CapacityTypeReserved,
		Labels: labels, Annotations: maps.Clone(pool.Annotations),
		Taints:      append(slices.Clone(pool.Taints), pool.StartupTaints...),
		Allocatable: it.Allocatable, PricePerHour: o.PricePerHour, InFlight: true, TemplateHash: pool.TemplateHash,
		ReservedSlot: true,
	}
}

// withSlots returns a copy of snap with the slots' nodes added.
func withSlots(snap *state.Snapshot, slots []*slot) *state.Snapshot {
	out := *snap
	out.Nodes = slices.Clone(snap.Nodes)
	for _, s := range slots {
		out.Nodes = append(out.Nodes, s.node)
	}
	slices.SortFunc(out.Nodes, func(a, b *state.Node) int { return strings.Compare(a.Name, b.Name) })
	return &out
}

// keepSlots turns the slots r put pods on into claims.
func keepSlots(r *Result, slots []*slot, pods []*state.Pod) {
	byName := make(map[string]*slot, len(slots))
	for _, s := range slots {
		byName[s.node.Name] = s
	}
	placed := map[string][]string{}
	for _, pl := range r.Placements {
		if byName[pl.Node] != nil {
			placed[pl.Node] = append(placed[pl.Node], pl.Pod)
		}
	}
	requests := map[string]corev1.ResourceList{}
	for _, p := range pods {
		requests[p.Key()] = p.Requests
	}
	for _, s := range slots {
		if keys := placed[s.node.Name]; len(keys) > 0 {
			cl := slotClaim(s, keys, requests)
			r.Claims = append(r.Claims, cl)
			r.CostPerHour += cl.Chosen().PricePerHour
		}
	}
}

// slotClaim is the claim of a slot holding the pods keys: the reserved
// offering first, then the type's other offerings in the zone that the
// pool allows, cheapest first.
func slotClaim(s *slot, keys []string, requests map[string]corev1.ResourceList) *Claim {
	options := []InstanceOption{{InstanceType: s.it.Name, Zone: s.offering.Zone, CapacityType: scheduling.CapacityTypeReserved, PricePerHour: s.offering.PricePerHour}}
	options = append(options, fallbackOptions(s)...)
	capacityTypes := make([]string, 0, len(options))
	for _, o := range options {
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	reqs := s.pool.Requirements.Clone()
	reqs[scheduling.LabelInstanceType] = scheduling.In(scheduling.LabelInstanceType, s.it.Name)
	reqs[scheduling.LabelTopologyZone] = scheduling.In(scheduling.LabelTopologyZone, s.offering.Zone)
	reqs[scheduling.LabelCapacityType] = scheduling.In(scheduling.LabelCapacityType, capacityTypes...)
	labels := maps.Clone(s.node.Labels)
	sum := corev1.ResourceList{}
	for _, k := range keys {
		for name, q := range requests[k] {
			total := sum[name]
			total.Add(q)
			sum[name] = total
		}
	}
	slices.Sort(keys)
	return &Claim{Name: s.node.Name, Pool: s.pool.Name, Requirements: reqs, Options: options, Pods: keys, Requests: sum, Labels: labels}
}

// fallbackOptions are the slot type's offerings in its zone that the pool
// may buy other than reserved ones, cheapest first.
func fallbackOptions(s *slot) []InstanceOption {
	filter := s.pool.Offerings()
	var out []InstanceOption
	for _, o := range s.it.Offerings {
		if o.Reservation != nil || o.Zone != s.offering.Zone || !filter.Allows(o) {
			continue
		}
		out = append(out, InstanceOption{InstanceType: s.it.Name, Zone: o.Zone, CapacityType: o.CapacityType, PricePerHour: o.PricePerHour})
	}
	slices.SortFunc(out, func(a, b InstanceOption) int {
		return cmp.Or(cmp.Compare(a.PricePerHour, b.PricePerHour), cmp.Compare(a.CapacityType, b.CapacityType))
	})
	return out
}
