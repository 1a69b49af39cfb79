package v1

// KubeletConfiguration overrides kubelet settings of the nodes. Names and meanings are the
// kubelet's own (KubeletConfiguration v1beta1). A NodeClass's aws.kubelet and a v1alpha5
// Provisioner's kubeletConfiguration are this type, so their schemas and checks are the same
// and conversion copies it. engine/api/crds/internal/crdpatch bounds the length of the maps'
// values in both CRDs, which keeps the CEL rules on them within the API server's cost budget.
//
// +kubebuilder:validation:XValidation:rule="!has(self.evictionSoft) || self.evictionSoft.all(k, has(self.evictionSoftGracePeriod) && k in self.evictionSoftGracePeriod)",message="every evictionSoft signal needs an evictionSoftGracePeriod entry; add one for each signal",fieldPath=".evictionSoftGracePeriod"
// +kubebuilder:validation:XValidation:rule="!has(self.evictionSoftGracePeriod) || self.evictionSoftGracePeriod.all(k, has(self.evictionSoft) && k in self.evictionSoft)",message="every evictionSoftGracePeriod signal needs an evictionSoft threshold; add the threshold or remove the grace period",fieldPath=".evictionSoft"
// +kubebuilder:validation:XValidation:rule="!has(self.imageGCHighThresholdPercent) || !has(self.imageGCLowThresholdPercent) || self.imageGCHighThresholdPercent > self.imageGCLowThresholdPercent",message="imageGCLowThresholdPercent must be lower than imageGCHighThresholdPercent",fieldPath=".imageGCLowThresholdPercent"
type KubeletConfiguration struct {
	// ClusterDNS are the IP addresses of the cluster DNS servers.
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="self.all(ip, isIP(ip))",message="clusterDNS entries must be IP addresses, such as 10.100.0.10"
	// +optional
	ClusterDNS []string `json:"clusterDNS,omitempty"`
	// MaxPods caps the pods per node; absent means the instance type's ENI-based limit.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	MaxPods *int32 `json:"maxPods,omitempty"`
	// PodsPerCore caps the pods per node at this many per vCPU (never above maxPods); 0 means no cap.
	// +kubebuilder:validation:Minimum=0
	// +optional
	PodsPerCore *int32 `json:"podsPerCore,omitempty"`
	// SystemReserved reserves resources (cpu, memory, ephemeral-storage, pid) for the operating
	// system, such as {cpu: 100m, memory: 100Mi}.
	// +kubebuilder:validation:MaxProperties=4
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['cpu', 'memory', 'ephemeral-storage', 'pid'])",message="systemReserved keys must be cpu, memory, ephemeral-storage or pid"
	// +kubebuilder:validation:XValidation:rule="self.all(k, isQuantity(self[k]) && !quantity(self[k]).isLessThan(quantity('0')))",message="systemReserved values must be non-negative quantities such as 100m or 1Gi"
	// +optional
	SystemReserved map[string]string `json:"systemReserved,omitempty"`
	// KubeReserved reserves resources (cpu, memory, ephemeral-storage, pid) for Kubernetes
	// daemons; absent means the agent's per-instance-type defaults.
	// +kubebuilder:validation:MaxProperties=4
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['cpu', 'memory', 'ephemeral-storage', 'pid'])",message="kubeReserved keys must be cpu, memory, ephemeral-storage or pid"
	// +kubebuilder:validation:XValidation:rule="self.all(k, isQuantity(self[k]) && !quantity(self[k]).isLessThan(quantity('0')))",message="kubeReserved values must be non-negative quantities such as 100m or 1Gi"
	// +optional
	KubeReserved map[string]string `json:"kubeReserved,omitempty"`
	// EvictionHard are the hard eviction thresholds per signal (memory.available,
	// nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree,
	// pid.available), as a quantity such as 100Mi or a percentage such as 10%.
	// +kubebuilder:validation:MaxProperties=6
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="evictionHard keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	// +kubebuilder:validation:XValidation:rule="self.all(k, (self[k].matches('^(100([.]0+)?|[0-9]{1,2}([.][0-9]+)?)%$') || (isQuantity(self[k]) && !quantity(self[k]).isLessThan(quantity('0')))))",message="evictionHard values must be a percentage such as 10% or a quantity such as 100Mi"
	// +optional
	EvictionHard map[string]string `json:"evictionHard,omitempty"`
	// EvictionSoft are the soft eviction thresholds per signal, like evictionHard; each needs an
	// evictionSoftGracePeriod.
	// +kubebuilder:validation:MaxProperties=6
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="evictionSoft keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	// +kubebuilder:validation:XValidation:rule="self.all(k, (self[k].matches('^(100([.]0+)?|[0-9]{1,2}([.][0-9]+)?)%$') || (isQuantity(self[k]) && !quantity(self[k]).isLessThan(quantity('0')))))",message="evictionSoft values must be a percentage such as 10% or a quantity such as 100Mi"
	// +optional
	EvictionSoft map[string]string `json:"evictionSoft,omitempty"`
	// EvictionSoftGracePeriod is how long each soft threshold must be crossed before pods are
	// evicted, such as 1m30s.
	// +kubebuilder:validation:MaxProperties=6
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="evictionSoftGracePeriod keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	// +kubebuilder:validation:XValidation:rule="self.all(k, self[k].matches('^([0-9]+(s|m|h))+$'))",message="evictionSoftGracePeriod values must be durations such as 30s or 1m30s (units s, m, h)"
	// +optional
	EvictionSoftGracePeriod map[string]Duration `json:"evictionSoftGracePeriod,omitempty"`
	// EvictionMaxPodGracePeriod is the longest grace period, in seconds, given to pods evicted
	// for a soft threshold.
	// +kubebuilder:validation:Minimum=0
	// +optional
	EvictionMaxPodGracePeriod *int32 `json:"evictionMaxPodGracePeriod,omitempty"`
	// ImageGCHighThresholdPercent is the disk usage percentage above which image garbage
	// collection always runs; it must exceed imageGCLowThresholdPercent.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ImageGCHighThresholdPercent *int32 `json:"imageGCHighThresholdPercent,omitempty"`
	// ImageGCLowThresholdPercent is the disk usage percentage image garbage collection frees down to.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ImageGCLowThresholdPercent *int32 `json:"imageGCLowThresholdPercent,omitempty"`
	// CPUCFSQuota enforces CPU limits with CFS quota. Absent means the kubelet default, true.
	// +optional
	CPUCFSQuota *bool `json:"cpuCFSQuota,omitempty"`
}
