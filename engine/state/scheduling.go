package state

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// The scheduling rules that read state values, in one place for the
// packer, the result checker and consolidation (engine/scheduling holds
// those that need no state type).

// NodeLabels returns the labels a new node of the pool launched as
// instance type it in zone with capacityType and named name carries: the
// type's labels, the pool's requirement and template labels, zone,
// capacity type, pool and hostname, each as NodeLabel gives it.
func (p *Pool) NodeLabels(it *catalog.InstanceType, zone, capacityType, name string) map[string]string {
	labels := map[string]string{
		scheduling.LabelTopologyZone: "", scheduling.LabelCapacityType: "", scheduling.LabelNodePool: "", scheduling.LabelHostname: "",
	}
	for _, reqs := range []scheduling.Requirements{it.Requirements, p.Requirements} {
		for key := range reqs {
			if _, ok := reqs.Label(key); ok {
				labels[key] = ""
			}
		}
	}
	for key := range p.Labels {
		labels[key] = ""
	}
	for key := range labels {
		labels[key] = p.NodeLabel(it, zone, capacityType, name, key)
	}
	return labels
}

// ClaimLabels are the labels of a new node of the pool launched for a
// claim with requirements reqs: NodeLabels, plus the value reqs pins for
// each other key that is not a well-known label (a key the pool's
// requirements leave open, In [a, b], on which the claim commits to one
// value).
func (p *Pool) ClaimLabels(it *catalog.InstanceType, zone, capacityType, name string, reqs scheduling.Requirements) map[string]string {
	return PinLabels(p.NodeLabels(it, zone, capacityType, name), reqs)
}

// PinLabels adds to labels, a node's NodeLabels, the value reqs pin for
// each key labels lacks that is not a well-known label, and returns it:
// ClaimLabels for a caller that needed the NodeLabels first.
func PinLabels(labels map[string]string, reqs scheduling.Requirements) map[string]string {
	for key := range reqs {
		if _, set := labels[key]; set || scheduling.IsWellKnownLabel(key) {
			continue
		}
		if v, ok := reqs.Label(key); ok {
			labels[key] = v
		}
	}
	return labels
}

// NodeLabel is the value of key among NodeLabels(it, zone, capacityType,
// name), "" when the node would not carry it: zone, capacity type, pool
// and hostname first, then the pool's template labels, then the labels its
// requirements pin, then those the type's requirements pin. minValues
// counts the distinct values of its key over a claim's options by it.
func (p *Pool) NodeLabel(it *catalog.InstanceType, zone, capacityType, name, key string) string {
	switch key {
	case scheduling.LabelTopologyZone:
		return zone
	case scheduling.LabelCapacityType:
		return capacityType
	case scheduling.LabelNodePool:
		return p.Name
	case scheduling.LabelHostname:
		return name
	}
	if v, ok := p.Labels[key]; ok {
		return v
	}
	if v, ok := p.Requirements.Label(key); ok {
		return v
	}
	v, _ := it.Requirements.Label(key)
	return v
}

// NewNodeTaints are the taints pods must tolerate to be planned onto a
// new node of the pool: its taints less the startup taints, which lift
// once the node is initialised.
func (p *Pool) NewNodeTaints() scheduling.Taints {
	return scheduling.Taints(p.Taints).WithoutStartupTaints(p.StartupTaints)
}

// SchedulingTaints are the taints pods must tolerate to be planned onto
// the node: all of them once it is initialised and Ready; before it is
// initialised all but the ephemeral taints (scheduling.WithoutEphemeralTaints)
// and its pool's startup taints (pool may be nil for a node no pool
// manages); on an initialised node that is not Ready, all but the
// ephemeral taints, which lift when it is Ready again.
// The agent's awaiting-pods taint (v1.TaintKeyAwaitingPods) never counts:
// it only keeps the room it holds for the pods planned there.
func (n *Node) SchedulingTaints(pool *Pool) scheduling.Taints {
	taints := withoutAwaitingPods(n.Taints)
	if !n.Initialized || n.NotReady {
		taints = taints.WithoutEphemeralTaints()
	}
	if !n.Initialized && pool != nil {
		taints = taints.WithoutStartupTaints(pool.StartupTaints)
	}
	return taints
}

// NodeFilter compiles what the pod asks of a node's labels and taints
// (see scheduling.NewNodeFilter).
func (p *Pod) NodeFilter() (scheduling.NodeFilter, error) {
	return scheduling.NewNodeFilter(p.NodeSelector, p.Affinity, p.Tolerations)
}

// RunsOn reports whether the daemonset's pod would schedule on a node with
// these labels and taints: its tolerations cover the taints and its node
// selector and required node affinity are satisfied by the labels. A
// daemonset whose node affinity cannot be parsed runs nowhere.
func (ds *DaemonSet) RunsOn(labels map[string]string, taints []corev1.Taint) bool {
	if ds == nil || ds.Pod == nil {
		return false
	}
	f, err := ds.Pod.NodeFilter()
	return err == nil && f.Admits(labels, withoutAwaitingPods(taints))
}

// withoutAwaitingPods drops the agent's awaiting-pods taint, which lifts
// once the pods planned onto the node are nominated there: planning and
// the daemonsets' room treat the node as the one it becomes.
func withoutAwaitingPods(taints []corev1.Taint) scheduling.Taints {
	if !slices.ContainsFunc(taints, isAwaitingPods) {
		return taints
	}
	return slices.DeleteFunc(slices.Clone(taints), isAwaitingPods)
}

func isAwaitingPods(t corev1.Taint) bool { return t.Key == v1.TaintKeyAwaitingPods }

// EffectiveProtocol is the port's protocol, TCP when unset.
func (hp HostPort) EffectiveProtocol() string {
	if hp.Protocol == "" {
		return string(corev1.ProtocolTCP)
	}
	return string(hp.Protocol)
}

// HostPortsClash reports whether two sets of host ports collide on one
// node: the same port and protocol on the same IP, or either bound on
// every IP (unset, 0.0.0.0 or ::).
func HostPortsClash(a, b []HostPort) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Port == y.Port && x.EffectiveProtocol() == y.EffectiveProtocol() && (wildcardIP(x.IP) || wildcardIP(y.IP) || x.IP == y.IP) {
				return true
			}
		}
	}
	return false
}

func wildcardIP(ip string) bool { return ip == "" || ip == "0.0.0.0" || ip == "::" }

// Launchable reports whether the pool may launch instance type it at all:
// it has offerings and requirements that overlap the pool's.
func (p *Pool) Launchable(it *catalog.InstanceType) bool {
	return len(it.Offerings) > 0 && it.Requirements.Overlaps(p.Requirements)
}

// OfferingFilter tells which offerings of its launchable types a pool may
// buy, with the pool's requirements on zone and capacity type read once.
type OfferingFilter struct {
	zones, capacityTypes scheduling.Requirement
}

// Offerings returns the pool's OfferingFilter.
func (p *Pool) Offerings() OfferingFilter {
	return OfferingFilter{zones: p.Requirements.Get(scheduling.LabelTopologyZone), capacityTypes: p.Requirements.Get(scheduling.LabelCapacityType)}
}

// Allows reports whether the pool may buy o: available, priced, and in a
// zone and capacity type its requirements allow.
func (f OfferingFilter) Allows(o catalog.Offering) bool {
	return o.Available && o.PricePerHour > 0 && f.zones.Has(o.Zone) && f.capacityTypes.Has(o.CapacityType)
}

// InstanceType returns the pool's instance type called name, or nil. Pools
// list the catalog's types sorted by name, so it searches by halves first;
// any order works.
func (p *Pool) InstanceType(name string) *catalog.InstanceType {
	types := p.InstanceTypes
	if i, ok := slices.BinarySearchFunc(types, name, func(it *catalog.InstanceType, n string) int {
		return strings.Compare(it.Name, n)
	}); ok {
		return types[i]
	}
	for _, it := range types {
		if it.Name == name {
			return it
		}
	}
	return nil
}

// NodeCapacity is what node n of the pool counts toward the pool's limits:
// its type's capacity when the pool offers the type, else its
// allocatable.
func (p *Pool) NodeCapacity(n *Node) corev1.ResourceList {
	if it := p.InstanceType(n.InstanceType); it != nil {
		return it.Capacity
	}
	return n.Allocatable
}
