package static

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// WithClaims returns a copy of snap with claims (from Plan) as in-flight
// nodes, so that packing places pending pods on them before it opens
// nodes elsewhere, as it does once the agent has launched them. snap is
// not changed; without claims it is returned as is.
func WithClaims(snap *state.Snapshot, claims []*packing.Claim) *state.Snapshot {
	if len(claims) == 0 {
		return snap
	}
	pools := map[string]*state.Pool{}
	for _, p := range snap.Pools {
		pools[p.Name] = p
	}
	out := *snap
	out.Nodes = slices.Clone(snap.Nodes)
	for _, cl := range claims {
		pool := pools[cl.Pool]
		o := cl.Chosen()
		it := pool.InstanceType(o.InstanceType)
		out.Nodes = append(out.Nodes, &state.Node{
			Name: cl.Name, Pool: pool.Name, InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType,
			Labels: maps.Clone(cl.Labels), Annotations: maps.Clone(pool.Annotations),
			Taints:      append(slices.Clone(pool.Taints), pool.StartupTaints...),
			Allocatable: it.Allocatable, PricePerHour: o.PricePerHour, Claim: cl.Name, InFlight: true, TemplateHash: pool.TemplateHash,
		})
	}
	slices.SortFunc(out.Nodes, func(a, b *state.Node) int { return strings.Compare(a.Name, b.Name) })
	return &out
}

// Merge adds claims (from Plan, solved against WithClaims) to r as the new
// nodes they are: each with the pods r placed on it and their requests,
// first in r.Claims, priced into r.CostPerHour and, as a cost every valid
// answer pays, into r.LowerBoundPerHour. pods are the Snapshot's.
func Merge(r *packing.Result, claims []*packing.Claim, pods []*state.Pod) {
	if len(claims) == 0 {
		return
	}
	byName := map[string]*packing.Claim{}
	for _, cl := range claims {
		byName[cl.Name] = cl
		r.CostPerHour += cl.Chosen().PricePerHour
		r.LowerBoundPerHour += cl.Chosen().PricePerHour
	}
	byKey := map[string]*state.Pod{}
	for _, p := range pods {
		byKey[p.Key()] = p
	}
	for _, pl := range r.Placements {
		cl := byName[pl.Node]
		if cl == nil {
			continue
		}
		cl.Pods = append(cl.Pods, pl.Pod)
		if p := byKey[pl.Pod]; p != nil {
			for name, q := range p.Requests {
				sum := cl.Requests[name]
				sum.Add(q)
				cl.Requests[name] = sum
			}
		}
	}
	for _, cl := range claims {
		slices.Sort(cl.Pods)
		if cl.Requests == nil {
			cl.Requests = corev1.ResourceList{}
		}
	}
	r.Claims = append(slices.Clone(claims), r.Claims...)
}
