package statetest

import (
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// NodeOption changes a node Node builds.
type NodeOption func(*state.Node)

// Node builds a registered, initialised node of pool p launched as
// instance type typ (from the catalog; it panics on an unknown one) in
// zone, on-demand, labelled as the pool labels its nodes and priced at its
// offering (0 when the zone has none).
func Node(p *state.Pool, name, typ, zone string, opts ...NodeOption) *state.Node {
	it, ok := Catalog().Get(typ)
	if !ok {
		panic("statetest: no instance type " + typ)
	}
	n := &state.Node{
		Name: name, Pool: p.Name, InstanceType: typ, Zone: zone, CapacityType: scheduling.CapacityTypeOnDemand,
		Allocatable: it.Allocatable, Initialized: true, TemplateHash: p.TemplateHash,
	}
	for _, o := range opts {
		o(n)
	}
	n.Labels = p.NodeLabels(it, zone, n.CapacityType, name)
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == n.CapacityType {
			n.PricePerHour = o.PricePerHour
		}
	}
	return n
}

// WithCapacityType sets the node's capacity type (on-demand by default).
func WithCapacityType(capacityType string) NodeOption {
	return func(n *state.Node) { n.CapacityType = capacityType }
}

// CreatedAt sets when the node was created.
func CreatedAt(t time.Time) NodeOption { return func(n *state.Node) { n.CreatedAt = t } }

// DaemonSet builds a daemonset default/name whose pod requests cpu and
// memory.
func DaemonSet(name, cpu, memory string, opts ...PodOption) *state.DaemonSet {
	return &state.DaemonSet{Namespace: "default", Name: name, Pod: Pod(name, cpu, memory, opts...)}
}

// Snapshot builds a Snapshot of pools, nodes, pods (bound or pending) and
// daemonsets.
func Snapshot(pools []*state.Pool, nodes []*state.Node, pods []*state.Pod, daemons ...*state.DaemonSet) *state.Snapshot {
	return &state.Snapshot{Pools: pools, Nodes: nodes, Pods: pods, DaemonSets: daemons}
}

// Pools lists pools, for Snapshot's first argument.
func Pools(pools ...*state.Pool) []*state.Pool { return pools }
