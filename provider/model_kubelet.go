package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// kubeletModel is a NodeClass's aws.kubelet and a Provisioner's kubelet_configuration: one
// API type, one schema.
type kubeletModel struct {
	ClusterDNS                  []types.String          `tfsdk:"cluster_dns"`
	MaxPods                     types.Int64             `tfsdk:"max_pods"`
	PodsPerCore                 types.Int64             `tfsdk:"pods_per_core"`
	SystemReserved              map[string]types.String `tfsdk:"system_reserved"`
	KubeReserved                map[string]types.String `tfsdk:"kube_reserved"`
	EvictionHard                map[string]types.String `tfsdk:"eviction_hard"`
	EvictionSoft                map[string]types.String `tfsdk:"eviction_soft"`
	EvictionSoftGracePeriod     map[string]types.String `tfsdk:"eviction_soft_grace_period"`
	EvictionMaxPodGracePeriod   types.Int64             `tfsdk:"eviction_max_pod_grace_period"`
	ImageGCHighThresholdPercent types.Int64             `tfsdk:"image_gc_high_threshold_percent"`
	ImageGCLowThresholdPercent  types.Int64             `tfsdk:"image_gc_low_threshold_percent"`
	CPUCFSQuota                 types.Bool              `tfsdk:"cpu_cfs_quota"`
}

// kubeletMaps are the map attributes of kubeletModel, for path mapping.
var kubeletMaps = []string{"system_reserved", "kube_reserved", "eviction_hard", "eviction_soft", "eviction_soft_grace_period"}

func kubeletAttribute(desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"cluster_dns": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyList(),
				MarkdownDescription: "IP addresses of the cluster DNS servers (up to 3)."},
			"max_pods":      schema.Int64Attribute{Optional: true, MarkdownDescription: "Most pods per node, 1 to 1000; absent means the instance type's ENI-based limit."},
			"pods_per_core": schema.Int64Attribute{Optional: true, MarkdownDescription: "Most pods per vCPU (never above `max_pods`); 0 means no cap."},
			"system_reserved": optStringMap("Resources reserved for the operating system (`cpu`, `memory`, `ephemeral-storage`, `pid`), " +
				"such as `{ cpu = \"100m\", memory = \"100Mi\" }`."),
			"kube_reserved": optStringMap("Resources reserved for Kubernetes daemons (`cpu`, `memory`, `ephemeral-storage`, `pid`); " +
				"absent means the agent's per-instance-type defaults."),
			"eviction_hard": optStringMap("Hard eviction thresholds per signal (`memory.available`, `nodefs.available`, `nodefs.inodesFree`, " +
				"`imagefs.available`, `imagefs.inodesFree`, `pid.available`), as a quantity such as `100Mi` or a percentage such as `10%`."),
			"eviction_soft":              optStringMap("Soft eviction thresholds per signal, like `eviction_hard`; each needs an `eviction_soft_grace_period`."),
			"eviction_soft_grace_period": optStringMap("How long each soft threshold must be crossed before pods are evicted, such as `1m30s`."),
			"eviction_max_pod_grace_period": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Longest grace period, in seconds, given to pods evicted for a soft threshold."},
			"image_gc_high_threshold_percent": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Disk usage percentage above which image garbage collection always runs; must exceed `image_gc_low_threshold_percent`."},
			"image_gc_low_threshold_percent": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Disk usage percentage image garbage collection frees down to."},
			"cpu_cfs_quota": schema.BoolAttribute{Optional: true, MarkdownDescription: "Enforce CPU limits with CFS quota. Absent means the kubelet default, true."},
		},
	}
}

func (k *kubeletModel) toAPI() *v1.KubeletConfiguration {
	if k == nil {
		return nil
	}
	return &v1.KubeletConfiguration{
		ClusterDNS:                  strList(k.ClusterDNS),
		MaxPods:                     int32Ptr(k.MaxPods),
		PodsPerCore:                 int32Ptr(k.PodsPerCore),
		SystemReserved:              strMap[string](k.SystemReserved),
		KubeReserved:                strMap[string](k.KubeReserved),
		EvictionHard:                strMap[string](k.EvictionHard),
		EvictionSoft:                strMap[string](k.EvictionSoft),
		EvictionSoftGracePeriod:     strMap[v1.Duration](k.EvictionSoftGracePeriod),
		EvictionMaxPodGracePeriod:   int32Ptr(k.EvictionMaxPodGracePeriod),
		ImageGCHighThresholdPercent: int32Ptr(k.ImageGCHighThresholdPercent),
		ImageGCLowThresholdPercent:  int32Ptr(k.ImageGCLowThresholdPercent),
		CPUCFSQuota:                 boolPtr(k.CPUCFSQuota),
	}
}

func kubeletFromAPI(k *v1.KubeletConfiguration) *kubeletModel {
	if k == nil {
		return nil
	}
	return &kubeletModel{
		ClusterDNS:                  tfStrList(k.ClusterDNS),
		MaxPods:                     tfInt32Ptr(k.MaxPods),
		PodsPerCore:                 tfInt32Ptr(k.PodsPerCore),
		SystemReserved:              tfStrMap(k.SystemReserved),
		KubeReserved:                tfStrMap(k.KubeReserved),
		EvictionHard:                tfStrMap(k.EvictionHard),
		EvictionSoft:                tfStrMap(k.EvictionSoft),
		EvictionSoftGracePeriod:     tfStrMap(k.EvictionSoftGracePeriod),
		EvictionMaxPodGracePeriod:   tfInt32Ptr(k.EvictionMaxPodGracePeriod),
		ImageGCHighThresholdPercent: tfInt32Ptr(k.ImageGCHighThresholdPercent),
		ImageGCLowThresholdPercent:  tfInt32Ptr(k.ImageGCLowThresholdPercent),
		CPUCFSQuota:                 tfBoolPtr(k.CPUCFSQuota),
	}
}
