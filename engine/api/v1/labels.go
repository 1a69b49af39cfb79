package v1

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Labels, annotations, taints, tags and finalizers that the API and the agent agree on. The
// well-known node labels (tenon.dev/instance-family and the others) belong to the scheduling
// package; the two the API itself names are repeated here for convenience.
const (
	// LabelNodePool is set on every node and NodeClaim to the name of the NodePool that launched it.
	// Users cannot set or require it on a NodePool.
	LabelNodePool = scheduling.LabelNodePool
	// LabelCapacityType is the purchase option of a node: CapacityTypeSpot, CapacityTypeOnDemand
	// or CapacityTypeReserved.
	LabelCapacityType = scheduling.LabelCapacityType
	// LabelNodeRegistered is set on a node once it has joined the cluster as a NodeClaim's node.
	LabelNodeRegistered = Group + "/registered"
	// LabelNodeInitialized is set on a node once it is Ready and its startup taints are gone.
	LabelNodeInitialized = Group + "/initialized"

	// CapacityTypeSpot is the LabelCapacityType value of spot instances.
	CapacityTypeSpot = scheduling.CapacityTypeSpot
	// CapacityTypeOnDemand is the LabelCapacityType value of on-demand instances.
	CapacityTypeOnDemand = scheduling.CapacityTypeOnDemand
	// CapacityTypeReserved is the LabelCapacityType value of instances in an EC2 capacity
	// reservation (an On-Demand Capacity Reservation or a capacity block).
	CapacityTypeReserved = scheduling.CapacityTypeReserved
	// LabelCapacityReservationID names the capacity reservation a reserved node runs in.
	LabelCapacityReservationID = scheduling.LabelCapacityReservationID
	// LabelCapacityReservationType is default or capacity-block on a reserved node.
	LabelCapacityReservationType = scheduling.LabelCapacityReservationType

	// AnnotationDoNotDisrupt on a pod or node ("true") keeps the agent from disrupting that node
	// voluntarily (consolidation, drift, expiry). The termination grace period still applies.
	AnnotationDoNotDisrupt = Group + "/do-not-disrupt"
	// AnnotationNodePoolHash records on a NodeClaim the hash of the NodePool template it was
	// launched from, so the agent can tell when the pool drifted.
	AnnotationNodePoolHash = Group + "/nodepool-hash"

	// TaintKeyDisrupted is the taint the agent puts on a node it is about to terminate.
	TaintKeyDisrupted = Group + "/disrupted"
	// TaintKeyAwaitingPods (NoSchedule) is a startup taint on a node the agent launched with room
	// for pods controllers are still creating: kube-scheduler binds each pod where it fits best by
	// its own score, so a pod arriving after the node is Ready could take room the plan holds for
	// another. Its value is the node's claim's name (a hash of it when longer than 63 characters):
	// the agent gives each pod it plans there the toleration of that value alone, so the pod binds
	// as soon as the node registers and no other pod can take the room. The agent lifts it once
	// every such pod came, and at the latest a
	// nomination window after the node registered or the burst's last pod came, whichever is later,
	// and at most four windows after registration.
	TaintKeyAwaitingPods = Group + "/awaiting-pods"
	// TaintKeyPlannedRemoval (PreferNoSchedule) is on the nodes consolidation expects to remove
	// in the plans to come (the end of its walk): kube-scheduler places the pods a command evicts,
	// and any new pod, elsewhere when they fit elsewhere, so no pod lands on a node it would be
	// evicted from again. The agent refreshes it with every plan and takes it off a node the plan
	// no longer removes.
	TaintKeyPlannedRemoval = Group + "/planned-removal"

	// TerminationFinalizer holds a NodeClaim (and its node) until the agent has drained the node
	// and deleted the instance.
	TerminationFinalizer = Group + "/termination"

	// TagCluster is the tag naming the cluster of every instance the agent launches; NodeClass
	// tags cannot set it.
	TagCluster = Group + "/cluster"
	// TagNodePool is the tag naming the NodePool an instance was launched for.
	TagNodePool = Group + "/nodepool"
	// TagNodeClaim is the tag naming the NodeClaim an instance was launched for.
	TagNodeClaim = Group + "/nodeclaim"
)

// NodeLabels returns the labels the claim's node must carry: the value of each requirement that
// pins exactly one (operator In with one value, keys normalized as the scheduler reads them) and
// the claim's own labels, which win. The cloud provider or the kubelet sets what it can when the
// node starts; the agent adds the rest when the node registers, because a kubelet may not label
// itself in the kubernetes.io and k8s.io domains (NodeRestriction) nor with most of the
// well-known labels.
func (c *NodeClaim) NodeLabels() map[string]string {
	labels := map[string]string{}
	for _, r := range c.Spec.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			labels[scheduling.NormalizeLabelKey(r.Key)] = r.Values[0]
		}
	}
	for k, v := range c.Labels {
		labels[k] = v
	}
	return labels
}
