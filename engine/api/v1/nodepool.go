package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePool is a capacity policy: which nodes the agent may launch for pending pods (template),
// when it may remove or replace them (disruption), how much it may launch in total (limits), and
// how it ranks against other pools (weight).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=nodepools,scope=Cluster,categories=tenon,shortName=np
// +kubebuilder:printcolumn:name="NodeClass",type="string",JSONPath=".spec.template.spec.nodeClassRef.name",description="The NodeClass nodes are launched with"
// +kubebuilder:printcolumn:name="Nodes",type="integer",JSONPath=".status.nodes",description="Nodes launched by this pool"
// +kubebuilder:printcolumn:name="Cost",type="string",JSONPath=".status.costPerHour",description="What the pool's nodes cost per hour, in USD"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description="Whether the pool can launch nodes"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="Weight",type="integer",JSONPath=".spec.weight",description="Higher weights are tried first"
// +kubebuilder:printcolumn:name="CPU",type="string",JSONPath=".status.resources.cpu",priority=1,description="CPU of the pool's nodes"
// +kubebuilder:printcolumn:name="Memory",type="string",JSONPath=".status.resources.memory",priority=1,description="Memory of the pool's nodes"
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the policy.
	// +required
	Spec NodePoolSpec `json:"spec"`
	// Status is what the agent observed about the pool.
	// +optional
	Status NodePoolStatus `json:"status,omitempty,omitzero"`
}

// NodePoolSpec is the capacity policy of a NodePool.
//
// +kubebuilder:validation:XValidation:rule="has(self.replicas) == has(oldSelf.replicas)",message="replicas cannot be added to or removed from an existing NodePool (a static pool and a dynamic one are different kinds of pool); create a new NodePool instead"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.limits) || self.limits.all(k, k == 'nodes')",message="a static NodePool (replicas set) takes only limits.nodes; remove the other limits",fieldPath=".limits"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.weight)",message="a static NodePool (replicas set) takes no weight: the agent never chooses it for pending pods; remove weight",fieldPath=".weight"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.buffer)",message="a static NodePool (replicas set) takes no buffer: it launches no node for pending pods, so it cannot keep room for them; raise replicas or put the buffer on a dynamic pool",fieldPath=".buffer"
type NodePoolSpec struct {
	// Template describes the nodes this pool may launch. Each node the agent launches is further
	// constrained by the pods it is launched for.
	// +required
	Template NodeClaimTemplate `json:"template"`
	// Disruption says when the agent may remove or replace this pool's nodes.
	// +kubebuilder:default={consolidateAfter: "0s"}
	// +optional
	Disruption *Disruption `json:"disruption,omitempty"`
	// Limits caps the total resources (such as cpu, memory, nvidia.com/gpu) of all nodes of this
	// pool, and with nodes their number; the agent launches nothing that would exceed them.
	// Absent means no limit.
	// +optional
	Limits corev1.ResourceList `json:"limits,omitempty"`
	// Weight ranks this pool against others: the agent tries pools with higher weights first.
	// Pools without a weight come last.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	Weight *int32 `json:"weight,omitempty"`
	// Replicas makes the pool static: the agent keeps exactly this many nodes, launching the
	// cheapest instance type its requirements allow and replacing lost ones, whatever the pending
	// pods. Pending pods may run on them, but the agent launches no other node in the pool for
	// them; consolidation leaves them alone (consolidationPolicy and consolidateAfter are
	// ignored), drift and expiry still replace them, and lowering replicas removes the emptiest
	// nodes first within the pool's budgets and PodDisruptionBudgets. Only limits.nodes applies,
	// and weight is not allowed. It cannot be added to or removed from an existing pool.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	Replicas *int64 `json:"replicas,omitempty"`
	// Buffer keeps spare room in the pool for pods that have not arrived yet (headroom), so a
	// burst schedules without waiting for a launch: room for a number of placeholder pods of a
	// given shape, or for a percentage of what the pool's pods request. Not allowed with
	// replicas.
	// +optional
	Buffer *CapacityBuffer `json:"buffer,omitempty"`
}

// NodeClaimTemplate describes the nodes a pool may launch.
type NodeClaimTemplate struct {
	// Metadata is the labels and annotations every node of the pool gets.
	// +optional
	TemplateObjectMeta `json:"metadata,omitempty,omitzero"`
	// Spec is the requirements, taints, lifetime and NodeClass of the nodes.
	// +required
	Spec NodeClaimTemplateSpec `json:"spec"`
}

// TemplateObjectMeta is the metadata every node of a pool gets.
type TemplateObjectMeta struct {
	// Labels are put on every node of the pool, and pods can select them. Keys in the
	// karpenter.sh and tenon.dev domains are restricted to the well-known labels (kubernetes.io
	// and k8s.io keys are open, as in Karpenter v1; the agent sets them on the Node after it
	// registers); kubernetes.io/hostname is set by the kubelet and tenon.dev/nodepool by the agent. Values are label values (up to 63
	// characters); engine/api/crds/internal/crdpatch adds that to the schema.
	// +kubebuilder:validation:MaxProperties=100
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 316 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="!('kubernetes.io/hostname' in self)",message="label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name; remove it"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.matches('^([^/]+[.])?karpenter[.]sh/'))",message="label domain karpenter.sh is restricted; use the tenon.dev equivalent, such as tenon.dev/capacity-type for karpenter.sh/capacity-type"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['karpenter.k8s.aws/instance-accelerator-count', 'karpenter.k8s.aws/instance-accelerator-manufacturer', 'karpenter.k8s.aws/instance-accelerator-name', 'karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-cpu-manufacturer', 'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-encryption-in-transit', 'karpenter.k8s.aws/instance-encryption-in-transit-supported', 'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-generation', 'karpenter.k8s.aws/instance-gpu-count', 'karpenter.k8s.aws/instance-gpu-manufacturer', 'karpenter.k8s.aws/instance-gpu-memory', 'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-hypervisor', 'karpenter.k8s.aws/instance-local-nvme', 'karpenter.k8s.aws/instance-memory', 'karpenter.k8s.aws/instance-network-bandwidth', 'karpenter.k8s.aws/instance-size']))",message="Karpenter's instance labels are restricted; use the tenon.dev equivalent, such as tenon.dev/instance-family for karpenter.k8s.aws/instance-family"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['tenon.dev/capacity-type', 'tenon.dev/instance-accelerator-count', 'tenon.dev/instance-accelerator-manufacturer', 'tenon.dev/instance-accelerator-name', 'tenon.dev/instance-category', 'tenon.dev/instance-cpu', 'tenon.dev/instance-cpu-manufacturer', 'tenon.dev/instance-ebs-bandwidth', 'tenon.dev/instance-encryption-in-transit', 'tenon.dev/instance-family', 'tenon.dev/instance-generation', 'tenon.dev/instance-gpu-count', 'tenon.dev/instance-gpu-manufacturer', 'tenon.dev/instance-gpu-memory', 'tenon.dev/instance-gpu-name', 'tenon.dev/instance-hypervisor', 'tenon.dev/instance-local-nvme', 'tenon.dev/instance-memory', 'tenon.dev/instance-network-bandwidth', 'tenon.dev/instance-size', 'tenon.dev/nodepool'] || !k.matches('^([^/]+[.])?tenon[.]dev/'))",message="label domain tenon.dev is restricted; use a well-known label such as tenon.dev/capacity-type or tenon.dev/instance-family, or a key in your own domain"
	// +kubebuilder:validation:XValidation:rule="!('tenon.dev/nodepool' in self)",message="label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove it"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are put on every node of the pool.
	// +kubebuilder:validation:MaxProperties=100
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 316 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$'))",message="key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is the part of a NodeClaim a pool decides: requirements, taints, lifetime
// and NodeClass. The agent adds the resources when it launches a node.
//
// +kubebuilder:validation:XValidation:rule="!has(self.requirements) || !self.requirements.exists(r, r.key == 'tenon.dev/nodepool')",message="label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove the requirement",fieldPath=".requirements"
// +kubebuilder:validation:XValidation:rule="!has(self.taints) || !has(self.startupTaints) || !self.startupTaints.exists(s, self.taints.exists(t, t.key == s.key && t.effect == s.effect))",message="a startup taint repeats a taint's key and effect; keep it in taints or startupTaints, not both",fieldPath=".startupTaints"
type NodeClaimTemplateSpec struct {
	// Requirements constrain the nodes the pool may launch by label: instance type, zone,
	// capacity type, architecture and so on. Pods narrow them further.
	// +kubebuilder:validation:MaxItems=100
	// +optional
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements,omitempty"`
	// Taints are put on every node of the pool; only pods that tolerate them run there.
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
	// NodeClassRef names the NodeClass the nodes are launched with.
	// +required
	NodeClassRef *NodeClassReference `json:"nodeClassRef"`
	// ExpireAfter is how long a node may live before the agent replaces it, measured from its
	// launch, such as 720h; Never keeps nodes until something else removes them.
	// +kubebuilder:default="720h"
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self == 'Never' || self.matches('^([0-9]+(s|m|h))+$')",message="expireAfter must be a duration such as 720h or 1h30m (units s, m, h), or Never"
	// +optional
	ExpireAfter NillableDuration `json:"expireAfter,omitempty"`
	// TerminationGracePeriod is the longest the agent waits for a node to drain once it starts
	// terminating it; after that it deletes the remaining pods, bypassing PodDisruptionBudgets and
	// tenon.dev/do-not-disrupt. Absent means wait as long as it takes.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+(s|m|h))+$')",message="terminationGracePeriod must be a duration such as 30m or 1h30m (units s, m, h)"
	// +optional
	TerminationGracePeriod *Duration `json:"terminationGracePeriod,omitempty"`
}

// ConsolidationPolicy says which nodes consolidation may remove or replace.
type ConsolidationPolicy string

// Consolidation policies.
const (
	// ConsolidationPolicyWhenEmpty removes only nodes without workload pods.
	ConsolidationPolicyWhenEmpty ConsolidationPolicy = "WhenEmpty"
	// ConsolidationPolicyWhenEmptyOrUnderutilized also removes or replaces underutilized nodes
	// when their pods fit elsewhere or on a cheaper node.
	ConsolidationPolicyWhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
	// ConsolidationPolicyBalanced is WhenEmptyOrUnderutilized with each move also weighed
	// as Karpenter v1.15's Balanced weighs it: the share of the pool's cost it saves against
	// the share of the pool's disruption it causes (see BalancedK).
	ConsolidationPolicyBalanced ConsolidationPolicy = "Balanced"
)

// DisruptionReason is a reason the agent disrupts a node, which a budget can be limited to.
type DisruptionReason string

// Disruption reasons.
const (
	// DisruptionReasonEmpty is the removal of a node without workload pods.
	DisruptionReasonEmpty DisruptionReason = "Empty"
	// DisruptionReasonUnderutilized is the removal or replacement of an underutilized node.
	DisruptionReasonUnderutilized DisruptionReason = "Underutilized"
	// DisruptionReasonDrifted is the replacement of a node that no longer matches its pool or class.
	DisruptionReasonDrifted DisruptionReason = "Drifted"
	// DisruptionReasonUnhealthy is the replacement of a node that has been unhealthy past its
	// toleration (node repair, disruption.repair).
	DisruptionReasonUnhealthy DisruptionReason = "Unhealthy"
)

// Disruption says when the agent may remove or replace a pool's nodes.
type Disruption struct {
	// ConsolidationPolicy says which nodes consolidation may remove or replace: WhenEmpty,
	// WhenEmptyOrUnderutilized (the default), or Balanced: as WhenEmptyOrUnderutilized, but a
	// move of underutilized nodes must also save at least half as large a share of the pool's
	// cost as the share of the pool's disruption it causes (each node counts 1, each pod it
	// evicts 1, adjusted by the pod's tenon.dev/disruption-cost annotation), as Karpenter's
	// Balanced policy.
	// +kubebuilder:default=WhenEmptyOrUnderutilized
	// +kubebuilder:validation:Enum=WhenEmpty;WhenEmptyOrUnderutilized;Balanced
	// +optional
	ConsolidationPolicy ConsolidationPolicy `json:"consolidationPolicy,omitempty"`
	// ConsolidateAfter is how long a node must have had no pod scheduled or removed before
	// consolidation considers it, such as 30s; 0s considers nodes at once and Never turns
	// consolidation off. Required when disruption is set; 0s when disruption is absent.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self == 'Never' || self.matches('^([0-9]+(s|m|h))+$')",message="consolidateAfter must be a duration such as 30s or 5m (units s, m, h), or Never"
	// +required
	ConsolidateAfter NillableDuration `json:"consolidateAfter"`
	// Budgets cap how many of the pool's nodes may be disrupted at once. When several are active
	// the most restrictive wins. Absent means one budget of 10%.
	// +kubebuilder:default={{nodes: "10%"}}
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Budgets []Budget `json:"budgets,omitempty"`
	// MinSavingsPerHour is the least, in USD per hour, a command that removes or replaces
	// underutilized nodes must save, so tiny gains do not churn pods: a decimal such as "0.01"
	// (the default when absent). A command removing nodes of several pools must save the
	// largest amount among them.
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{1,6}([.][0-9]{1,6})?$')",message="minSavingsPerHour must be a decimal amount in USD per hour, 0 or more, such as 0.01 or 0.5 (up to 6 decimals)"
	// +optional
	MinSavingsPerHour *string `json:"minSavingsPerHour,omitempty"`
	// MinSavingsPercent is the least a command that removes or replaces underutilized nodes
	// must save, as a percentage (0 to 100) of the price of the nodes it removes; 10 when
	// absent. Each node removed asks its own pool's percentage of its own price.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MinSavingsPercent *int32 `json:"minSavingsPercent,omitempty"`
	// MinSavingsPerPod is the least, in USD per hour, a command that launches replacement
	// nodes must save per pod it evicts, so many pods are not moved for a small gain: a
	// decimal such as "0.003" (the default when absent). Each evicted pod asks its node's
	// pool's amount. Deleting a node without replacement is not held to it.
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{1,6}([.][0-9]{1,6})?$')",message="minSavingsPerPod must be a decimal amount in USD per hour, 0 or more, such as 0.003 (up to 6 decimals)"
	// +optional
	MinSavingsPerPod *string `json:"minSavingsPerPod,omitempty"`
	// KarpenterAnnotations says whether Karpenter's disruption annotations protect the pool's
	// nodes as Tenon's does, so workloads written for Karpenter keep their protection: Honor (the
	// default when absent) reads karpenter.sh/do-not-disrupt on pods and nodes and (v1alpha5)
	// karpenter.sh/do-not-evict on pods as tenon.dev/do-not-disrupt, and (v1alpha5)
	// karpenter.sh/do-not-consolidate on nodes as keeping them from consolidation (drift and
	// expiry still replace them); Ignore reads only tenon.dev/do-not-disrupt.
	// +kubebuilder:validation:Enum=Honor;Ignore
	// +optional
	KarpenterAnnotations KarpenterAnnotations `json:"karpenterAnnotations,omitempty"`
	// Repair replaces the pool's nodes that stay unhealthy (Ready False or Unknown, or a
	// cloud-specific condition) past a toleration, within the budgets for the reason Unhealthy.
	// Absent means off.
	// +optional
	Repair *Repair `json:"repair,omitempty"`
}

// Budget caps how many of a pool's nodes may be disrupted at once, optionally only during a
// recurring window (schedule and duration) and only for some reasons.
//
// +kubebuilder:validation:XValidation:rule="!has(self.schedule) || has(self.duration)",message="schedule needs a duration; add duration (how long each window lasts, such as 8h) or remove schedule",fieldPath=".duration"
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || has(self.schedule)",message="duration needs a schedule; add a cron schedule such as '0 9 * * mon-fri' or remove duration",fieldPath=".schedule"
type Budget struct {
	// Nodes is how many nodes may be disrupted at once: a count such as "5", or a percentage of
	// the pool's nodes such as "10%" (rounded up).
	// +kubebuilder:default="10%"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^((100|[0-9]{1,2})%|[0-9]+)$')",message="nodes must be a count such as 5 or a percentage from 0% to 100% such as 10%"
	// +required
	Nodes string `json:"nodes"`
	// Schedule is when the budget's window opens, in cron syntax (minute hour day-of-month month
	// day-of-week, UTC) or one of @hourly, @daily, @weekly, @monthly, @yearly, @annually,
	// @midnight. Absent means always active. Requires duration.
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^(@(annually|yearly|monthly|weekly|daily|midnight|hourly)|([*?]|([0-5]?[0-9])(-([0-5]?[0-9]))?)(/[1-9][0-9]*)?(,([*?]|([0-5]?[0-9])(-([0-5]?[0-9]))?)(/[1-9][0-9]*)?)* +([*?]|([01]?[0-9]|2[0-3])(-([01]?[0-9]|2[0-3]))?)(/[1-9][0-9]*)?(,([*?]|([01]?[0-9]|2[0-3])(-([01]?[0-9]|2[0-3]))?)(/[1-9][0-9]*)?)* +([*?]|(0?[1-9]|[12][0-9]|3[01])(-(0?[1-9]|[12][0-9]|3[01]))?)(/[1-9][0-9]*)?(,([*?]|(0?[1-9]|[12][0-9]|3[01])(-(0?[1-9]|[12][0-9]|3[01]))?)(/[1-9][0-9]*)?)* +([*?]|(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?(,([*?]|(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?)* +([*?]|(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?(,([*?]|(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?)*)$')",message="schedule must be cron syntax with 5 fields (minute hour day-of-month month day-of-week) such as '0 9 * * mon-fri', or @hourly, @daily, @weekly, @monthly, @yearly, @annually or @midnight"
	// +optional
	Schedule *string `json:"schedule,omitempty"`
	// Duration is how long the window stays open after each schedule hit, in hours and minutes
	// such as 8h or 1h30m. Requires schedule.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+h([0-9]+m)?|[0-9]+m)$')",message="duration must be hours and minutes such as 8h, 90m or 1h30m"
	// +optional
	Duration *Duration `json:"duration,omitempty"`
	// Reasons limits the budget to some disruption reasons: Empty, Underutilized, Drifted,
	// Unhealthy. Absent means all reasons.
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:Enum=Empty;Underutilized;Drifted;Unhealthy
	// +optional
	Reasons []DisruptionReason `json:"reasons,omitempty"`
}

// NodePoolStatus is what the agent observed about a pool.
type NodePoolStatus struct {
	// Resources is the sum of the capacity of the pool's nodes.
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// Nodes is the number of nodes the pool has.
	// +optional
	Nodes int64 `json:"nodes,omitempty"`
	// CostPerHour is what the pool's nodes and in-flight claims cost per hour, in USD, as a
	// decimal string: the sum of their NodeClaims' pricePerHour.
	// +optional
	CostPerHour string `json:"costPerHour,omitempty"`
	// Conditions are the pool's conditions: Ready, NodeClassReady, ValidationSucceeded.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
