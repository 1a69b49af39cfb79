package v1alpha5

import (
	corev1 "k8s.io/api/core/v1"
)

// NodeSelectorRequirement is a label requirement on the nodes a provisioner may launch: a key
// and an operator relating it to values. It is a core NodeSelectorRequirement with the checks
// the API server can make on its own.
//
// +kubebuilder:validation:XValidation:rule="self.operator != 'In' || (has(self.values) && size(self.values) > 0)",message="operator In requires at least one value; add values or use Exists",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="self.operator != 'NotIn' || (has(self.values) && size(self.values) > 0)",message="operator NotIn requires at least one value; add values or use DoesNotExist",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",message="operators Exists and DoesNotExist take no values; remove values or use In or NotIn",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="!(self.operator in ['Gt', 'Lt']) || (has(self.values) && size(self.values) == 1 && self.values[0].matches('^[0-9]{1,18}$'))",message="operators Gt and Lt take exactly one value, a non-negative integer such as '4'; set values to a single number",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="!(self.key in ['tenon.dev/capacity-type', 'karpenter.sh/capacity-type']) || !(self.operator in ['In', 'NotIn']) || !has(self.values) || self.values.all(v, v in ['on-demand', 'spot', 'reserved'])",message="capacity types are on-demand, spot and reserved (EC2 capacity reservations the NodeClass selects); fix the value",fieldPath=".values"
type NodeSelectorRequirement struct {
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
	// +kubebuilder:validation:XValidation:rule="self != 'tenon.dev/nodepool'",message="label tenon.dev/nodepool is set by the agent to the provisioner's name; remove the requirement"
	// +required
	Key string `json:"key,omitempty"`
	// Operator relates the key to the values: In, NotIn, Exists, DoesNotExist, and for integer
	// labels Gt and Lt.
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist;Gt;Lt
	// +required
	Operator corev1.NodeSelectorOperator `json:"operator,omitempty"`
	// Values are the label values: at least one for In and NotIn, none for Exists and
	// DoesNotExist, exactly one non-negative integer for Gt and Lt.
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	// +optional
	Values []string `json:"values,omitempty"`
}

// ToCore returns the requirement as a core NodeSelectorRequirement.
func (in NodeSelectorRequirement) ToCore() corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: in.Key, Operator: in.Operator, Values: append([]string(nil), in.Values...)}
}

// Taint is a taint put on the nodes of a provisioner. Pods must tolerate it to be scheduled
// there.
type Taint struct {
	// Key is the taint key, a label key such as example.com/dedicated.
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$') && self.matches('^([^/]{1,253}/)?[^/]{1,63}$')",message="key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +required
	Key string `json:"key,omitempty"`
	// Value is the taint value, empty or a label value.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$')",message="value must be up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +optional
	Value string `json:"value,omitempty"`
	// Effect is what the taint does to pods that do not tolerate it: NoSchedule,
	// PreferNoSchedule or NoExecute.
	// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
	// +required
	Effect corev1.TaintEffect `json:"effect,omitempty"`
}

// ToCore returns the taint as a core Taint.
func (in Taint) ToCore() corev1.Taint {
	return corev1.Taint{Key: in.Key, Value: in.Value, Effect: in.Effect}
}
