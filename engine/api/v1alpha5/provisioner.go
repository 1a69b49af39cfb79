package v1alpha5

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// Provisioner is Karpenter's v1alpha5 capacity policy in Tenon's group: the nodes the agent may
// launch for pending pods (labels, taints, requirements, provider), when it removes them
// (ttlSecondsAfterEmpty, ttlSecondsUntilExpired, consolidation), how much it may launch
// (limits) and how it ranks against other pools (weight). The agent runs it as the NodePool
// (and NodeClass) ToNodePool makes of it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=provisioners,scope=Cluster,categories=tenon
// +kubebuilder:printcolumn:name="Template",type="string",JSONPath=".spec.providerRef.name",description="The NodeClass nodes are launched with, when not inline"
// +kubebuilder:printcolumn:name="Cost",type="string",JSONPath=".status.costPerHour",description="What the provisioner's nodes cost per hour, in USD"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description="Whether the provisioner can launch nodes"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="Weight",type="integer",JSONPath=".spec.weight",priority=1,description="Higher weights are tried first"
// +kubebuilder:printcolumn:name="TTLAfterEmpty",type="integer",JSONPath=".spec.ttlSecondsAfterEmpty",priority=1,description="Seconds an empty node lives"
// +kubebuilder:printcolumn:name="TTLUntilExpired",type="integer",JSONPath=".spec.ttlSecondsUntilExpired",priority=1,description="Seconds a node lives"
// +kubebuilder:printcolumn:name="CPU",type="string",JSONPath=".status.resources.cpu",priority=1,description="CPU of the provisioner's nodes"
// +kubebuilder:printcolumn:name="Memory",type="string",JSONPath=".status.resources.memory",priority=1,description="Memory of the provisioner's nodes"
type Provisioner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the policy.
	// +required
	Spec ProvisionerSpec `json:"spec"`
	// Status is what the agent observed about the provisioner.
	// +optional
	Status ProvisionerStatus `json:"status,omitempty"`
}

// ProvisionerList is a list of Provisioners.
//
// +kubebuilder:object:root=true
type ProvisionerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the Provisioners.
	Items []Provisioner `json:"items"`
}

// ProvisionerSpec is the policy of a Provisioner. Each node the agent launches for it is further
// constrained by the pods it is launched for.
//
// +kubebuilder:validation:XValidation:rule="!has(self.ttlSecondsAfterEmpty) || !has(self.consolidation) || !has(self.consolidation.enabled) || !self.consolidation.enabled",message="ttlSecondsAfterEmpty and consolidation.enabled are exclusive, as consolidation removes empty nodes itself; remove ttlSecondsAfterEmpty or set consolidation.enabled to false",fieldPath=".ttlSecondsAfterEmpty"
// +kubebuilder:validation:XValidation:rule="has(self.provider) || has(self.providerRef)",message="set provider (inline AWS settings) or providerRef (the name of a NodeClass)"
// +kubebuilder:validation:XValidation:rule="!has(self.provider) || !has(self.providerRef)",message="provider and providerRef are exclusive; keep provider for inline AWS settings or providerRef to use a NodeClass",fieldPath=".providerRef"
// +kubebuilder:validation:XValidation:rule="!has(self.taints) || !has(self.startupTaints) || !self.startupTaints.exists(s, self.taints.exists(t, t.key == s.key && t.effect == s.effect))",message="a startup taint repeats a taint's key and effect; keep it in taints or startupTaints, not both",fieldPath=".startupTaints"
type ProvisionerSpec struct {
	// Annotations are put on every node.
	// +kubebuilder:validation:MaxProperties=100
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 316 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// Labels are put on every node, and pods can select them. Keys in the karpenter.sh and
	// tenon.dev domains are restricted to the well-known labels (kubernetes.io and k8s.io keys
	// are open, as in Karpenter v1); kubernetes.io/hostname is set by the kubelet and
	// tenon.dev/nodepool by the agent.
	// +kubebuilder:validation:MaxProperties=100
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 316 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="!('kubernetes.io/hostname' in self)",message="label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name; remove it"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.matches('^([^/]+[.])?karpenter[.]sh/'))",message="label domain karpenter.sh is restricted; use the tenon.dev equivalent, such as tenon.dev/capacity-type for karpenter.sh/capacity-type"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['karpenter.k8s.aws/instance-accelerator-count', 'karpenter.k8s.aws/instance-accelerator-manufacturer', 'karpenter.k8s.aws/instance-accelerator-name', 'karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-cpu-manufacturer', 'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-encryption-in-transit', 'karpenter.k8s.aws/instance-encryption-in-transit-supported', 'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-generation', 'karpenter.k8s.aws/instance-gpu-count', 'karpenter.k8s.aws/instance-gpu-manufacturer', 'karpenter.k8s.aws/instance-gpu-memory', 'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-hypervisor', 'karpenter.k8s.aws/instance-local-nvme', 'karpenter.k8s.aws/instance-memory', 'karpenter.k8s.aws/instance-network-bandwidth', 'karpenter.k8s.aws/instance-size']))",message="Karpenter's instance labels are restricted; use the tenon.dev equivalent, such as tenon.dev/instance-family for karpenter.k8s.aws/instance-family"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['tenon.dev/capacity-type', 'tenon.dev/instance-accelerator-count', 'tenon.dev/instance-accelerator-manufacturer', 'tenon.dev/instance-accelerator-name', 'tenon.dev/instance-category', 'tenon.dev/instance-cpu', 'tenon.dev/instance-cpu-manufacturer', 'tenon.dev/instance-ebs-bandwidth', 'tenon.dev/instance-encryption-in-transit', 'tenon.dev/instance-family', 'tenon.dev/instance-generation', 'tenon.dev/instance-gpu-count', 'tenon.dev/instance-gpu-manufacturer', 'tenon.dev/instance-gpu-memory', 'tenon.dev/instance-gpu-name', 'tenon.dev/instance-hypervisor', 'tenon.dev/instance-local-nvme', 'tenon.dev/instance-memory', 'tenon.dev/instance-network-bandwidth', 'tenon.dev/instance-size', 'tenon.dev/nodepool'] || !k.matches('^([^/]+[.])?tenon[.]dev/'))",message="label domain tenon.dev is restricted; use a well-known label such as tenon.dev/capacity-type or tenon.dev/instance-family, or a key in your own domain"
	// +kubebuilder:validation:XValidation:rule="!('tenon.dev/nodepool' in self)",message="label tenon.dev/nodepool is set by the agent to the provisioner's name; remove it"
	// +optional
	Labels map[string]LabelValue `json:"labels,omitempty"`
	// Taints are put on every node; only pods that tolerate them run there.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.key == y.key && x.effect == y.effect))",message="taints repeat a key and effect; remove the duplicate"
	// +optional
	Taints []Taint `json:"taints,omitempty"`
	// StartupTaints are put on every node at launch and are expected to be removed by something
	// on the node (typically a DaemonSet) once it is ready. Pods need not tolerate them for the
	// agent to launch a node for them.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.key == y.key && x.effect == y.effect))",message="startupTaints repeat a key and effect; remove the duplicate"
	// +optional
	StartupTaints []Taint `json:"startupTaints,omitempty"`
	// Requirements constrain the nodes by label: instance type, zone, capacity type,
	// architecture and so on. Pods narrow them further.
	// +kubebuilder:validation:MaxItems=100
	// +optional
	Requirements []NodeSelectorRequirement `json:"requirements,omitempty"`
	// KubeletConfiguration overrides kubelet settings of the nodes. It is a NodeClass's
	// aws.kubelet, with the same checks, and converts to it.
	// +optional
	KubeletConfiguration *v1.KubeletConfiguration `json:"kubeletConfiguration,omitempty"`
	// Provider is the inline AWS configuration of the nodes. Exclusive with providerRef; one of
	// them is required.
	// +optional
	Provider *Provider `json:"provider,omitempty"`
	// ProviderRef names the NodeClass the nodes are launched with. Exclusive with provider; one
	// of them is required.
	// +optional
	ProviderRef *ProviderRef `json:"providerRef,omitempty"`
	// TTLSecondsAfterEmpty is how many seconds a node may stay empty (no pods but DaemonSet
	// pods) before the agent removes it. Absent means empty nodes are not removed for being
	// empty. Exclusive with consolidation.enabled, which removes empty nodes itself.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TTLSecondsAfterEmpty *int64 `json:"ttlSecondsAfterEmpty,omitempty"`
	// TTLSecondsUntilExpired is how many seconds a node may live, measured from its launch,
	// before the agent replaces it. Absent means nodes do not expire.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TTLSecondsUntilExpired *int64 `json:"ttlSecondsUntilExpired,omitempty"`
	// Limits caps the total resources of all nodes of this provisioner.
	// +optional
	Limits *Limits `json:"limits,omitempty"`
	// Weight ranks this provisioner against others, 1 to 100: the agent tries higher weights
	// first. Provisioners without a weight come last.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	Weight *int32 `json:"weight,omitempty"`
	// Consolidation lets the agent remove or replace nodes whose pods fit elsewhere or on a
	// cheaper node.
	// +optional
	Consolidation *Consolidation `json:"consolidation,omitempty"`
}

// LabelValue is the value of a node label: up to 63 letters, digits, '-', '_' or '.', starting
// and ending with a letter or digit, or empty. It is a type of its own so the CRD can bound
// and check label values in the schema rather than with a costly CEL rule over the map.
//
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// Consolidation turns consolidation on or off and sets its savings thresholds.
type Consolidation struct {
	// Enabled turns consolidation on. Exclusive with ttlSecondsAfterEmpty.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
	// MinSavingsPerHour is the least, in USD per hour, a consolidation command must save: a
	// decimal such as "0.01" (the default when absent). It is the NodePool's
	// disruption.minSavingsPerHour.
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{1,6}([.][0-9]{1,6})?$')",message="minSavingsPerHour must be a decimal amount in USD per hour, 0 or more, such as 0.01 or 0.5 (up to 6 decimals)"
	// +optional
	MinSavingsPerHour *string `json:"minSavingsPerHour,omitempty"`
	// MinSavingsPercent is the least a consolidation command must save as a percentage (0 to
	// 100) of the price of the nodes it removes; 10 when absent. It is the NodePool's
	// disruption.minSavingsPercent.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MinSavingsPercent *int32 `json:"minSavingsPercent,omitempty"`
	// MinSavingsPerPod is the least, in USD per hour, a consolidation command that launches
	// replacements must save per pod it evicts: a decimal such as "0.003" (the default when
	// absent). It is the NodePool's disruption.minSavingsPerPod.
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{1,6}([.][0-9]{1,6})?$')",message="minSavingsPerPod must be a decimal amount in USD per hour, 0 or more, such as 0.003 (up to 6 decimals)"
	// +optional
	MinSavingsPerPod *string `json:"minSavingsPerPod,omitempty"`
}

// Limits caps the resources of a provisioner's nodes.
type Limits struct {
	// Resources caps the total resources (such as cpu, memory, nvidia.com/gpu) of all nodes of
	// the provisioner; the agent launches nothing that would exceed them.
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`
}

// ProviderRef names the NodeClass a provisioner's nodes are launched with.
type ProviderRef struct {
	// APIVersion is the API version of the NodeClass: tenon.dev/v1, the default.
	// +kubebuilder:default="tenon.dev/v1"
	// +kubebuilder:validation:Enum="tenon.dev/v1"
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is the kind of the NodeClass: NodeClass, the default.
	// +kubebuilder:default=NodeClass
	// +kubebuilder:validation:Enum=NodeClass
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name is the name of the NodeClass.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="name must be a NodeClass name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +required
	Name string `json:"name,omitempty"`
}

// ProvisionerStatus is what the agent observed about a provisioner.
type ProvisionerStatus struct {
	// LastScaleTime is when the agent last launched or removed a node of the provisioner.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`
	// Conditions are the provisioner's conditions, as a NodePool's: Ready, NodeClassReady,
	// ValidationSucceeded.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Resources is the sum of the capacity of the provisioner's nodes.
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// CostPerHour is what the provisioner's nodes and in-flight claims cost per hour, in USD, as
	// a decimal string: the sum of their NodeClaims' pricePerHour.
	// +optional
	CostPerHour string `json:"costPerHour,omitempty"`
}
