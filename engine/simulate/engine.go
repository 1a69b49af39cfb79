package simulate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/static"
)

// packingSolver runs engine/packing.
type packingSolver struct{}

// Static pools (NodePool replicas) short of their replicas launch first,
// as the agent launches them whatever the pods: the pending pods land on
// them before packing opens other nodes, and the report prices them as new
// nodes.
//
// Capacity buffers (NodePool spec.buffer) are planned after the pending
// pods, as the agent plans them (engine/buffer): the report lists their
// placeholder pods on the nodes that hold them and prices the nodes they
// add.
func (packingSolver) Solve(ctx context.Context, snap *state.Snapshot, pending []*state.Pod) (solution, error) {
	claims, _ := static.Plan(snap)
	withStatic := static.WithClaims(snap, claims)
	r, err := buffer.Solve(ctx, withStatic, pending)
	if err != nil {
		return nil, fmt.Errorf("solving: %w", err)
	}
	// With buffers, r.Real (checked against withStatic, where the static
	// claims are nodes) stays apart from r.Result, which gets them.
	static.Merge(r.Result, claims, snap.Pods)
	return packingSolution{r: r.Result, buffers: r, withStatic: withStatic}, nil
}

type packingSolution struct {
	r *packing.Result
	// buffers is the plan with its capacity buffers; withStatic the
	// Snapshot it was solved on.
	buffers    *buffer.Result
	withStatic *state.Snapshot
}

func (p packingSolution) Violations(snap *state.Snapshot, pending []*state.Pod) []string {
	var out []string
	if p.buffers == nil || p.buffers.Buffer == nil {
		for _, v := range check.Result(snap, pending, p.r) {
			out = append(out, v.String())
		}
		return out
	}
	// Each solve is checked against its own input: the pending pods on
	// the scenario (static claims as nodes), the placeholders on what the
	// pending pods leave.
	for _, v := range check.Result(p.withStatic, pending, p.buffers.Real) {
		out = append(out, v.String())
	}
	for _, v := range check.Result(p.buffers.After, p.buffers.Placeholders, p.buffers.Buffer) {
		out = append(out, "capacity buffer: "+v.String())
	}
	return out
}

func (p packingSolution) Report(s *Scenario, snap *state.Snapshot, pending []*state.Pod) *Report {
	var holders []*state.Pod
	if p.buffers != nil {
		holders = p.buffers.Placeholders
	}
	rep := newReport(s, snap, pending, p.r, holders...)
	if p.buffers != nil {
		addBuffers(rep, p.buffers)
	}
	return rep
}

// newReport describes a result. It does not set the timings. placeholders
// are the capacity buffers' pods r places beside the pending ones.
func newReport(s *Scenario, snap *state.Snapshot, pending []*state.Pod, r *packing.Result, placeholders ...*state.Pod) *Report {
	rep := &Report{Scenario: s.Name, Nodes: []ReportNode{}, Unschedulable: []ReportUnschedulable{}, Overlays: reportOverlays(snap)}
	podByKey := make(map[string]*state.Pod, len(snap.Pods)+len(placeholders))
	for _, p := range snap.Pods {
		podByKey[p.Key()] = p
	}
	for _, p := range placeholders {
		podByKey[p.Key()] = p
	}
	for _, c := range r.Claims {
		o := c.Chosen()
		n := ReportNode{
			Name: c.Name, NodePool: c.Pool, InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType,
			PricePerHour: round(o.PricePerHour), Pods: sortedCopy(c.Pods), Options: len(c.Options), Labels: c.Labels,
		}
		if it := poolType(snap, c.Pool, o.InstanceType); it != nil {
			n.CPUUtilization = share(c.Requests, it.Allocatable, corev1.ResourceCPU)
			n.MemoryUtilization = share(c.Requests, it.Allocatable, corev1.ResourceMemory)
		}
		rep.Nodes = append(rep.Nodes, n)
	}
	rep.Nodes = append(rep.Nodes, existingNodes(snap, r, podByKey)...)
	for _, u := range r.Unschedulable {
		rep.Unschedulable = append(rep.Unschedulable, ReportUnschedulable{Pod: u.Pod, Reason: u.Reason})
	}
	rep.Summary = Summary{
		Pods:              len(pending),
		NewNodes:          len(r.Claims),
		CostPerHour:       round(r.CostPerHour),
		LowerBoundPerHour: round(r.LowerBoundPerHour),
		Placed:            len(r.Placements) - len(placeholders) + placeholdersUnplaced(r),
		Unschedulable:     len(r.Unschedulable),
		ExistingNodes:     len(rep.Nodes) - len(r.Claims),
		SolveRuns:         []float64{},
	}
	return rep
}

// poolType finds an instance type as a pool offers it (kubelet settings
// applied), or nil.
func poolType(snap *state.Snapshot, pool, name string) *catalog.InstanceType {
	for _, p := range snap.Pools {
		if p.Name != pool {
			continue
		}
		i, ok := slices.BinarySearchFunc(p.InstanceTypes, name, func(it *catalog.InstanceType, name string) int {
			return strings.Compare(it.Name, name)
		})
		if ok {
			return p.InstanceTypes[i]
		}
	}
	return nil
}

// existingNodes lists the existing nodes that receive pending pods, by
// name, with their utilisation counting the pods already bound.
func existingNodes(snap *state.Snapshot, r *packing.Result, podByKey map[string]*state.Pod) []ReportNode {
	placed := map[string][]string{}
	for _, p := range r.Placements {
		placed[p.Node] = append(placed[p.Node], p.Pod)
	}
	// Requests already bound, per receiving node, in one pass over the pods.
	used := map[string]corev1.ResourceList{}
	for name := range placed {
		used[name] = corev1.ResourceList{}
	}
	for _, p := range snap.Pods {
		if u, ok := used[p.NodeName]; ok && p.NodeName != "" {
			addInto(u, p.Requests)
		}
	}
	var out []ReportNode
	for _, n := range snap.Nodes {
		pods, ok := placed[n.Name]
		if !ok {
			continue
		}
		used := used[n.Name]
		for _, key := range pods {
			if p := podByKey[key]; p != nil {
				addInto(used, p.Requests)
			}
		}
		out = append(out, ReportNode{
			Name: n.Name, NodePool: n.Pool, InstanceType: n.InstanceType, Zone: n.Zone, CapacityType: n.CapacityType,
			PricePerHour: round(n.PricePerHour), Existing: true, InFlight: n.InFlight, Pods: sortedCopy(pods), Labels: n.Labels,
			CPUUtilization:    share(used, n.Allocatable, corev1.ResourceCPU),
			MemoryUtilization: share(used, n.Allocatable, corev1.ResourceMemory),
		})
	}
	return out
}

// share returns used/allocatable for one resource, rounded to 4 places;
// 0 when the node has none.
func share(used, allocatable corev1.ResourceList, name corev1.ResourceName) float64 {
	a, ok := allocatable[name]
	if !ok || a.IsZero() {
		return 0
	}
	u := used[name]
	return math.Round(float64(u.MilliValue())/float64(a.MilliValue())*1e4) / 1e4
}

func sortedCopy(in []string) []string {
	out := slices.Clone(in)
	slices.SortFunc(out, strings.Compare)
	if out == nil {
		out = []string{}
	}
	return out
}
