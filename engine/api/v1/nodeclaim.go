package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeClaim is the agent's durable record of one node it asked for. The agent writes it before
// calling the cloud, so a crash can never leak an instance: on restart every instance has a claim
// or is garbage. Users do not normally create NodeClaims.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=nodeclaims,scope=Cluster,categories=tenon,shortName=ncl
// +kubebuilder:printcolumn:name="Type",type="string",JSONPath=".status.instanceType",description="The instance type launched"
// +kubebuilder:printcolumn:name="Capacity",type="string",JSONPath=".status.capacityType",description="spot or on-demand"
// +kubebuilder:printcolumn:name="Zone",type="string",JSONPath=".status.zone",description="The zone of the instance"
// +kubebuilder:printcolumn:name="Price",type="string",JSONPath=".status.pricePerHour",description="The offering's price per hour, in USD"
// +kubebuilder:printcolumn:name="Node",type="string",JSONPath=".status.nodeName",description="The node the instance registered as"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description="Whether the node is ready"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="ID",type="string",JSONPath=".status.providerID",priority=1,description="The cloud provider ID"
// +kubebuilder:printcolumn:name="NodePool",type="string",JSONPath=".metadata.labels.tenon\\.dev/nodepool",priority=1,description="The pool the claim was made for"
// +kubebuilder:printcolumn:name="NodeClass",type="string",JSONPath=".spec.nodeClassRef.name",priority=1,description="The NodeClass used"
type NodeClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what the agent asked for. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable; delete the NodeClaim and let the agent make a new one"
	// +required
	Spec NodeClaimSpec `json:"spec"`
	// Status is what the cloud and the node reported.
	// +optional
	Status NodeClaimStatus `json:"status,omitempty,omitzero"`
}

// NodeClaimSpec is what the agent asked the cloud for: a node satisfying the requirements and
// resources, with the taints, NodeClass and lifetime of its pool.
//
// +kubebuilder:validation:XValidation:rule="!has(self.taints) || !has(self.startupTaints) || !self.startupTaints.exists(s, self.taints.exists(t, t.key == s.key && t.effect == s.effect))",message="a startup taint repeats a taint's key and effect; keep it in taints or startupTaints, not both",fieldPath=".startupTaints"
type NodeClaimSpec struct {
	// Taints are put on the node.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.key == y.key && x.effect == y.effect))",message="taints repeat a key and effect; remove the duplicate"
	// +optional
	Taints []Taint `json:"taints,omitempty"`
	// StartupTaints are put on the node at launch and removed by something on the node once it
	// is ready.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.key == y.key && x.effect == y.effect))",message="startupTaints repeat a key and effect; remove the duplicate"
	// +optional
	StartupTaints []Taint `json:"startupTaints,omitempty"`
	// Requirements are the labels the node must satisfy: the pool's requirements narrowed by the
	// pods, including the instance types the agent may launch (cheapest first) and
	// tenon.dev/nodepool.
	// +kubebuilder:validation:MaxItems=100
	// +optional
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements,omitempty"`
	// Resources are the resources the node must have room for.
	// +optional
	Resources ResourceRequirements `json:"resources,omitempty,omitzero"`
	// NodeClassRef names the NodeClass the node is launched with.
	// +required
	NodeClassRef *NodeClassReference `json:"nodeClassRef"`
	// ExpireAfter is how long the node may live, copied from its pool; Never for no limit.
	// +kubebuilder:default="720h"
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self == 'Never' || self.matches('^([0-9]+(s|m|h))+$')",message="expireAfter must be a duration such as 720h or 1h30m (units s, m, h), or Never"
	// +optional
	ExpireAfter NillableDuration `json:"expireAfter,omitempty"`
	// TerminationGracePeriod is the longest the agent waits for the node to drain, copied from
	// its pool.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+(s|m|h))+$')",message="terminationGracePeriod must be a duration such as 30m or 1h30m (units s, m, h)"
	// +optional
	TerminationGracePeriod *Duration `json:"terminationGracePeriod,omitempty"`
}

// ResourceRequirements are the resources a node must have room for.
type ResourceRequirements struct {
	// Requests are the resources the pods the node is launched for request, plus daemonset
	// overhead.
	// +optional
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

// NodeClaimStatus is what the cloud and the node reported about a claim.
type NodeClaimStatus struct {
	// NodeName is the name of the node the instance registered as.
	// +optional
	NodeName string `json:"nodeName,omitempty"`
	// ProviderID is the cloud provider's ID of the instance, such as aws:///eu-west-1a/i-0123 or
	// kwok://claim-name.
	// +optional
	ProviderID string `json:"providerID,omitempty"`
	// ImageID is the image (AMI) the instance runs.
	// +optional
	ImageID string `json:"imageID,omitempty"`
	// InstanceType is the instance type launched.
	// +optional
	InstanceType string `json:"instanceType,omitempty"`
	// Zone is the zone of the instance.
	// +optional
	Zone string `json:"zone,omitempty"`
	// CapacityType is spot or on-demand.
	// +optional
	CapacityType string `json:"capacityType,omitempty"`
	// PricePerHour is what the instance's offering (type, zone, capacity type) costs per hour, in
	// USD, as a decimal string ("0.0960"), from the cloud provider's price source: the AWS
	// pricing API and spot price history, or the embedded catalog offline. The agent keeps it
	// current.
	// +optional
	PricePerHour string `json:"pricePerHour,omitempty"`
	// Capacity is the node's total resources.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// Allocatable is the node's resources available to pods.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	// Conditions are the claim's conditions: Launched, Registered, Initialized, Ready, and
	// Drifted, Expired, Empty, Consolidatable, Disrupting.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// LastPodEventTime is when a pod was last scheduled to or removed from the node; consolidation
	// waits consolidateAfter from it.
	// +optional
	LastPodEventTime metav1.Time `json:"lastPodEventTime,omitempty,omitzero"`
}
