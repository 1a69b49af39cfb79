package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Tenon's well-known label keys (DESIGN §4). The catalog gives every instance
// type a value for each instance-* key; pools and pods narrow them.
const (
	// LabelNodePool names the pool a node belongs to; Tenon sets it.
	LabelNodePool = "tenon.dev/nodepool"
	// LabelCapacityType is spot, on-demand or reserved.
	LabelCapacityType = "tenon.dev/capacity-type"
	// LabelCapacityReservationID is the EC2 capacity reservation a reserved
	// node runs in (cr-...); only reserved nodes carry it.
	LabelCapacityReservationID = "tenon.dev/capacity-reservation-id"
	// LabelCapacityReservationType is default (an On-Demand Capacity
	// Reservation) or capacity-block; only reserved nodes carry it.
	LabelCapacityReservationType = "tenon.dev/capacity-reservation-type"

	LabelInstanceCategory                = "tenon.dev/instance-category"          // e.g. "m"
	LabelInstanceFamily                  = "tenon.dev/instance-family"            // e.g. "m5a"
	LabelInstanceGeneration              = "tenon.dev/instance-generation"        // integer, e.g. "5"
	LabelInstanceSize                    = "tenon.dev/instance-size"              // e.g. "xlarge", "metal-24xl"
	LabelInstanceCPU                     = "tenon.dev/instance-cpu"               // vCPUs
	LabelInstanceCPUManufacturer         = "tenon.dev/instance-cpu-manufacturer"  // intel, amd, aws
	LabelInstanceMemory                  = "tenon.dev/instance-memory"            // MiB
	LabelInstanceGPUCount                = "tenon.dev/instance-gpu-count"         // "0" without GPUs
	LabelInstanceGPUName                 = "tenon.dev/instance-gpu-name"          // e.g. "a100"
	LabelInstanceGPUManufacturer         = "tenon.dev/instance-gpu-manufacturer"  // e.g. "nvidia"
	LabelInstanceGPUMemory               = "tenon.dev/instance-gpu-memory"        // MiB of one GPU
	LabelInstanceAcceleratorCount        = "tenon.dev/instance-accelerator-count" // "0" without accelerators
	LabelInstanceAcceleratorName         = "tenon.dev/instance-accelerator-name"  // e.g. "inferentia2"
	LabelInstanceAcceleratorManufacturer = "tenon.dev/instance-accelerator-manufacturer"
	LabelInstanceHypervisor              = "tenon.dev/instance-hypervisor"            // nitro, xen; absent on metal
	LabelInstanceNetworkBandwidth        = "tenon.dev/instance-network-bandwidth"     // baseline Mbit/s
	LabelInstanceEBSBandwidth            = "tenon.dev/instance-ebs-bandwidth"         // Mbit/s
	LabelInstanceLocalNVMe               = "tenon.dev/instance-local-nvme"            // GiB of local NVMe
	LabelInstanceEncryptionInTransit     = "tenon.dev/instance-encryption-in-transit" // "true" or "false"

	// Kubernetes' own well-known labels.
	LabelInstanceType   = corev1.LabelInstanceTypeStable // node.kubernetes.io/instance-type
	LabelTopologyZone   = corev1.LabelTopologyZone       // topology.kubernetes.io/zone
	LabelTopologyRegion = corev1.LabelTopologyRegion     // topology.kubernetes.io/region
	LabelArch           = corev1.LabelArchStable         // kubernetes.io/arch
	LabelOS             = corev1.LabelOSStable           // kubernetes.io/os
	LabelHostname       = corev1.LabelHostname           // kubernetes.io/hostname
)

// Values of the well-known labels.
const (
	CapacityTypeSpot     = "spot"
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeReserved = "reserved"
	ArchAMD64            = "amd64"
	ArchARM64            = "arm64"
	OSLinux              = "linux"
)

// wellKnownLabels lists the well-known keys; a function returning an array,
// not a variable, so no caller can change the package's idea of them and a
// lookup does not allocate.
func wellKnownLabels() [27]string {
	return [...]string{
		LabelNodePool, LabelCapacityType,
		LabelInstanceCategory, LabelInstanceFamily, LabelInstanceGeneration, LabelInstanceSize,
		LabelInstanceCPU, LabelInstanceCPUManufacturer, LabelInstanceMemory,
		LabelInstanceGPUCount, LabelInstanceGPUName, LabelInstanceGPUManufacturer, LabelInstanceGPUMemory,
		LabelInstanceAcceleratorCount, LabelInstanceAcceleratorName, LabelInstanceAcceleratorManufacturer,
		LabelInstanceHypervisor, LabelInstanceNetworkBandwidth, LabelInstanceEBSBandwidth,
		LabelInstanceLocalNVMe, LabelInstanceEncryptionInTransit,
		LabelInstanceType, LabelTopologyZone, LabelTopologyRegion, LabelArch, LabelOS, LabelHostname,
	}
}

// WellKnownLabels returns the set of well-known label keys: labels under the
// restricted domains that pools and pods may still use, because Tenon knows
// their values (from the catalog, the offerings or the pool). The set is a new
// copy on every call.
func WellKnownLabels() sets.Set[string] {
	keys := wellKnownLabels()
	return sets.New(keys[:]...)
}

// IsWellKnownLabel reports whether key is one of WellKnownLabels.
func IsWellKnownLabel(key string) bool {
	for _, k := range wellKnownLabels() {
		if k == key {
			return true
		}
	}
	return false
}

// NormalizeLabelKey maps deprecated Kubernetes aliases to the key Tenon uses
// (failure-domain.beta.kubernetes.io/zone to topology.kubernetes.io/zone,
// beta.kubernetes.io/arch to kubernetes.io/arch, ...), so a pod written
// against the old labels still matches, and Karpenter's well-known labels
// to Tenon's (karpenter.sh/capacity-type to tenon.dev/capacity-type,
// karpenter.k8s.aws/instance-family to tenon.dev/instance-family, see
// KarpenterAlias), which Tenon's nodes carry as aliases, so a workload
// written for Karpenter schedules unchanged. Other keys are returned
// unchanged.
func NormalizeLabelKey(key string) string {
	if tenon, ok := karpenterAlias(key); ok {
		return tenon
	}
	switch key {
	case corev1.LabelFailureDomainBetaZone:
		return LabelTopologyZone
	case corev1.LabelFailureDomainBetaRegion:
		return LabelTopologyRegion
	case corev1.LabelInstanceType:
		return LabelInstanceType
	case "beta.kubernetes.io/arch":
		return LabelArch
	case "beta.kubernetes.io/os":
		return LabelOS
	}
	return key
}
