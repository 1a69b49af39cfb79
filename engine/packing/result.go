package packing

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Result is what Solve decided for a batch of pending pods.
type Result struct {
	// Claims are the new nodes to launch, named "<pool>-<n>" (n from 1 per
	// pool), in pool order then by number.
	Claims []*Claim
	// Placements are every placed pod, sorted by pod key.
	Placements []Placement
	// Unschedulable are the pods that could not be placed, with a reason a
	// person can act on, sorted by pod key.
	Unschedulable []Unschedulable
	// CostPerHour is the sum of the chosen option's price over Claims.
	CostPerHour float64
	// LowerBoundPerHour is a proven lower bound on the cost of any valid set
	// of new nodes for the pods Solve put on new nodes.
	LowerBoundPerHour float64
}

// Claim is one new node to launch.
type Claim struct {
	// Name is "<pool>-<n>".
	Name string
	// Pool names the pool the node is launched from.
	Pool string
	// Requirements are the pool's requirements intersected with the node
	// requirements of the claim's pods, narrowed to the chosen zone (and
	// capacity type when a constraint decided it).
	Requirements scheduling.Requirements
	// Options are the instance type × zone × capacity type offerings that fit
	// the claim's pods plus daemonset overhead, cheapest first; Options[0] is
	// the chosen one.
	Options []InstanceOption
	// Pods are the keys of the pods placed on the claim, sorted.
	Pods []string
	// Requests are the pods' requests plus the daemonset overhead of the
	// chosen option.
	Requests corev1.ResourceList
	// Labels are the labels the node carries when launched as the chosen
	// option (state.Pool.ClaimLabels): its instance type's, the pool's
	// template labels and the values its requirements pin (one value
	// for each key the pool leaves open, which Requirements pins too),
	// zone, capacity type, pool and hostname.
	Labels map[string]string
}

// Chosen returns the option the claim is priced at: Options[0].
func (c *Claim) Chosen() InstanceOption {
	if len(c.Options) == 0 {
		return InstanceOption{}
	}
	return c.Options[0]
}

// InstanceOption is one way to buy a claim's node.
type InstanceOption struct {
	InstanceType string
	Zone         string
	CapacityType string
	PricePerHour float64
}

// Placement puts a pod on a node.
type Placement struct {
	// Pod is the pod key, "namespace/name".
	Pod string
	// Node is an existing node's name or a claim's name.
	Node string
}

// Unschedulable is a pod Solve could not place and why.
type Unschedulable struct {
	// Pod is the pod key, "namespace/name".
	Pod string
	// Reason says what stops the pod and what to change.
	Reason string
}
