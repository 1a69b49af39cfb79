package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeOverlayKind is the kind of a NodeOverlay.
const NodeOverlayKind = "NodeOverlay"

// NodeOverlay condition reasons (its one condition is ConditionReady).
const (
	// ReasonOverlayApplied: the overlay is applied to every instance type it selects.
	ReasonOverlayApplied = "Applied"
	// ReasonOverlayConflict: an overlay of the same weight already sets the same price or
	// resource of an instance type this one selects, so this one is applied nowhere.
	ReasonOverlayConflict = "Conflict"
	// ReasonOverlayNoMatch: the overlay selects no instance type of any NodePool.
	ReasonOverlayNoMatch = "NoMatch"
)

// NodeOverlay adjusts what the agent believes about the instance types a selector matches before
// it packs pods or consolidates nodes: their price (a negotiated discount, a licence fee) and
// extended resources their nodes have (hugepages, a device plugin's resource). It changes the
// agent's arithmetic only, not the instance: a node reports what it has.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=nodeoverlays,scope=Cluster,categories=tenon,shortName=overlays
// +kubebuilder:printcolumn:name="Weight",type="integer",JSONPath=".spec.weight",description="Higher weights win where overlays set the same value"
// +kubebuilder:printcolumn:name="Price",type="string",JSONPath=".spec.price",description="The price it sets, in USD per hour"
// +kubebuilder:printcolumn:name="Adjustment",type="string",JSONPath=".spec.priceAdjustment",description="The change of price it makes"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description="Whether the overlay is applied"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].reason",description="Applied, Conflict or NoMatch"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type NodeOverlay struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec selects instance types and says what to change about them.
	// +required
	Spec NodeOverlaySpec `json:"spec"`
	// Status says where the agent applied the overlay, or why it did not.
	// +optional
	Status NodeOverlayStatus `json:"status,omitempty,omitzero"`
}

// NodeOverlaySpec selects instance types and says what to change about them.
//
// +kubebuilder:validation:XValidation:rule="!has(self.price) || !has(self.priceAdjustment)",message="set price or priceAdjustment, not both: price replaces the price, priceAdjustment changes it"
// +kubebuilder:validation:XValidation:rule="has(self.price) || has(self.priceAdjustment) || (has(self.capacity) && size(self.capacity) > 0)",message="an overlay changes nothing without price, priceAdjustment or capacity; set one of them"
type NodeOverlaySpec struct {
	// Requirements select the instance types (and, through the zone and capacity-type labels,
	// the offerings) the overlay applies to, as labels the nodes would carry: well-known labels
	// such as node.kubernetes.io/instance-type, tenon.dev/instance-family or
	// tenon.dev/capacity-type, the pool's name tenon.dev/nodepool, and the labels of a NodePool's
	// template. All must hold. Empty selects every instance type of every pool. Karpenter's
	// label keys (karpenter.sh/capacity-type, karpenter.k8s.aws/instance-family, ...) are read
	// as Tenon's.
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.all(r, !has(r.minValues))",message="minValues has no meaning in an overlay's requirements; remove it"
	// +optional
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements,omitempty"`
	// Price replaces the price of the selected offerings, in USD per hour, such as "0.042": a
	// negotiated rate. It cannot be set with priceAdjustment.
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+([.][0-9]+)?$')",message="price must be a non-negative decimal number of USD per hour such as 0.042"
	// +optional
	Price *string `json:"price,omitempty"`
	// PriceAdjustment changes the price of the selected offerings: a signed amount of USD per
	// hour such as "-0.01" or "+0.005" (a licence fee), or a signed percentage such as "-15%"
	// (a discount, at most -100%) or "+10%". A price never goes below zero. It cannot be set with
	// price.
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^([+-]([0-9]+([.][0-9]+)?|[.][0-9]+)|[+]([0-9]+([.][0-9]+)?|[.][0-9]+)%|-(100([.]0+)?|[0-9]{1,2}([.][0-9]+)?|[.][0-9]+)%)$')",message="priceAdjustment must be a signed amount such as -0.01 or +0.005, or a signed percentage such as -15% or +10% (at most -100%)"
	// +optional
	PriceAdjustment *string `json:"priceAdjustment,omitempty"`
	// Capacity adds extended resources to the selected instance types' nodes, such as
	// hugepages-2Mi: 1Gi or example.com/fpga: "1", so pods requesting them can be packed there
	// (at most 32, each up to 64 characters: engine/api/crds/internal/crdpatch bounds the map). Hugepages are taken from the memory pods can request, as the kubelet does. cpu, memory,
	// ephemeral-storage and pods cannot be overlaid.
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['cpu', 'memory', 'ephemeral-storage', 'pods']))",message="capacity adds extended resources only; cpu, memory, ephemeral-storage and pods come from the instance type, remove them"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.startsWith('hugepages-') || (k.contains('/') && !k.matches('^([^/]+[.])?kubernetes[.]io/')))",message="capacity keys must be hugepages-<size> or an extended resource in your own domain such as example.com/fpga"
	// +kubebuilder:validation:XValidation:rule="self.all(k, quantity(string(self[k])).isGreaterThan(quantity('0')))",message="capacity must be a positive quantity such as 1Gi or 4; remove the resource to add none"
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// Weight decides between overlays that set the same price or resource of an instance type:
	// the highest weight wins. Two overlays of the same weight that set the same value are in
	// conflict: the one whose name sorts last is applied, the other nowhere, and its Ready
	// condition names the overlay, instance type and field. Unset is 0, below every weight.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	// +optional
	Weight *int32 `json:"weight,omitempty"`
}

// NodeOverlayStatus says where the agent applied the overlay, or why it did not.
type NodeOverlayStatus struct {
	// NodePools lists, per NodePool, how many of its instance types the overlay changes.
	// +listType=map
	// +listMapKey=name
	// +optional
	NodePools []NodeOverlayPoolStatus `json:"nodePools,omitempty"`
	// Conditions are the overlay's conditions: Ready (reason Applied, Conflict or NoMatch).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// NodeOverlayPoolStatus is how many of a NodePool's instance types an overlay changes.
type NodeOverlayPoolStatus struct {
	// Name is the NodePool's name.
	// +required
	Name string `json:"name"`
	// InstanceTypes is how many of its instance types the overlay changes.
	// +required
	InstanceTypes int32 `json:"instanceTypes"`
}

// NodeOverlayList is a list of NodeOverlays.
//
// +kubebuilder:object:root=true
type NodeOverlayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the NodeOverlays.
	Items []NodeOverlay `json:"items"`
}
