package v1

import (
	corev1 "k8s.io/api/core/v1"
)

// Operators a requirement may use beyond the core ones (In, NotIn, Exists, DoesNotExist, Gt, Lt).
const (
	// NodeSelectorOpGte matches label values that are integers greater than or equal to the value.
	NodeSelectorOpGte corev1.NodeSelectorOperator = "Gte"
	// NodeSelectorOpLte matches label values that are integers less than or equal to the value.
	NodeSelectorOpLte corev1.NodeSelectorOperator = "Lte"
)

// NodeSelectorRequirementWithMinValues is a label requirement on the nodes a pool may launch: a key,
// an operator relating the key to values, and optionally how many distinct values the launch
// decision must keep open (minValues), so that a pool asked for flexibility never narrows to one
// instance type.
//
// +kubebuilder:validation:XValidation:rule="self.operator != 'In' || (has(self.values) && size(self.values) > 0)",message="operator In requires at least one value; add values or use Exists",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="self.operator != 'NotIn' || (has(self.values) && size(self.values) > 0)",message="operator NotIn requires at least one value; add values or use DoesNotExist",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",message="operators Exists and DoesNotExist take no values; remove values or use In or NotIn",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="!(self.operator in ['Gt', 'Lt', 'Gte', 'Lte']) || (has(self.values) && size(self.values) == 1 && self.values[0].matches('^[0-9]{1,18}$'))",message="operators Gt, Lt, Gte and Lte take exactly one value, a non-negative integer such as '4'; set values to a single number",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="self.operator != 'In' || !has(self.minValues) || (has(self.values) && size(self.values) >= self.minValues)",message="minValues is more than the number of values; lower minValues or add values",fieldPath=".minValues"
// +kubebuilder:validation:XValidation:rule="!(self.key in ['tenon.dev/capacity-type', 'karpenter.sh/capacity-type']) || !(self.operator in ['In', 'NotIn']) || !has(self.values) || self.values.all(v, v in ['on-demand', 'spot', 'reserved'])",message="capacity types are on-demand, spot and reserved (EC2 capacity reservations the NodeClass selects); fix the value",fieldPath=".values"
type NodeSelectorRequirementWithMinValues struct {
	// Key is the node label the requirement applies to, such as node.kubernetes.io/instance-type
	// or tenon.dev/capacity-type. Keys in the tenon.dev domain are restricted to the well-known
	// labels, and kubernetes.io/hostname (the node's name) to pods; Karpenter's aliases of the
	// well-known labels (karpenter.sh/capacity-type, karpenter.k8s.aws/instance-family, ...)
	// are read as Tenon's, other karpenter.sh keys are restricted; kubernetes.io and k8s.io keys
	// are open, as in Karpenter v1.
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="self != 'kubernetes.io/hostname'",message="label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name; remove it"
	// +kubebuilder:validation:XValidation:rule="self == 'karpenter.sh/capacity-type' || !self.matches('^([^/]+[.])?karpenter[.]sh/')",message="label domain karpenter.sh is restricted in requirements but for karpenter.sh/capacity-type, an alias of tenon.dev/capacity-type; the pool's name needs no requirement, and other keys need a tenon.dev well-known label or your own domain"
	// +kubebuilder:validation:XValidation:rule="self in ['tenon.dev/capacity-type', 'tenon.dev/instance-accelerator-count', 'tenon.dev/instance-accelerator-manufacturer', 'tenon.dev/instance-accelerator-name', 'tenon.dev/instance-category', 'tenon.dev/instance-cpu', 'tenon.dev/instance-cpu-manufacturer', 'tenon.dev/instance-ebs-bandwidth', 'tenon.dev/instance-encryption-in-transit', 'tenon.dev/instance-family', 'tenon.dev/instance-generation', 'tenon.dev/instance-gpu-count', 'tenon.dev/instance-gpu-manufacturer', 'tenon.dev/instance-gpu-memory', 'tenon.dev/instance-gpu-name', 'tenon.dev/instance-hypervisor', 'tenon.dev/instance-local-nvme', 'tenon.dev/instance-memory', 'tenon.dev/instance-network-bandwidth', 'tenon.dev/instance-size', 'tenon.dev/nodepool'] || !self.matches('^([^/]+[.])?tenon[.]dev/')",message="label domain tenon.dev is restricted; use a well-known label such as tenon.dev/capacity-type or tenon.dev/instance-family, or a key in your own domain"
	// +required
	Key string `json:"key"`
	// Operator relates the key to the values: In, NotIn, Exists, DoesNotExist, and for integer
	// labels Gt, Lt, Gte, Lte.
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist;Gt;Lt;Gte;Lte
	// +required
	Operator corev1.NodeSelectorOperator `json:"operator"`
	// Values are the label values: at least one for In and NotIn, none for Exists and DoesNotExist,
	// exactly one non-negative integer for Gt, Lt, Gte and Lte.
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	// +optional
	Values []string `json:"values,omitempty"`
	// MinValues is the minimum number of distinct values of this key the launch decision must keep
	// available, for example at least 5 instance types so spot capacity has somewhere to go. With
	// operator In it cannot exceed the number of values.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	// +optional
	MinValues *int32 `json:"minValues,omitempty"`
}

// ToCore returns the requirement as a core NodeSelectorRequirement, dropping minValues.
func (in NodeSelectorRequirementWithMinValues) ToCore() corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{
		Key:      in.Key,
		Operator: in.Operator,
		Values:   append([]string(nil), in.Values...),
	}
}

// Taint is a taint put on the nodes of a pool. Pods must tolerate it to be scheduled there.
type Taint struct {
	// Key is the taint key, a label key such as example.com/dedicated.
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +required
	Key string `json:"key"`
	// Value is the taint value, empty or a label value.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$')",message="value must be up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +optional
	Value string `json:"value,omitempty"`
	// Effect is what the taint does to pods that do not tolerate it: NoSchedule,
	// PreferNoSchedule or NoExecute.
	// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
	// +required
	Effect corev1.TaintEffect `json:"effect"`
}

// ToCore returns the taint as a core Taint.
func (in Taint) ToCore() corev1.Taint {
	return corev1.Taint{Key: in.Key, Value: in.Value, Effect: in.Effect}
}

// NodeClassReference names the NodeClass a pool or claim launches nodes with.
type NodeClassReference struct {
	// Group is the API group of the NodeClass. It is tenon.dev, the default, and cannot change.
	// +kubebuilder:default=tenon.dev
	// +kubebuilder:validation:Enum=tenon.dev
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="nodeClassRef.group is immutable; create a new NodePool to use another group"
	// +optional
	Group string `json:"group,omitempty"`
	// Kind is the kind of the NodeClass. It is NodeClass, the default, and cannot change.
	// +kubebuilder:default=NodeClass
	// +kubebuilder:validation:Enum=NodeClass
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="nodeClassRef.kind is immutable; create a new NodePool to use another kind"
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name is the name of the NodeClass.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="name must be a NodeClass name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +required
	Name string `json:"name"`
}
