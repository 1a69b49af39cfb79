package catalog

import (
	"math"
	"strconv"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// requirements returns the well-known labels of rec as requirements: one
// value per key, DoesNotExist where the type has no value (no GPU name, no
// local NVMe, no hypervisor on bare metal, unknown bandwidth), so that a pool
// asking for such a value excludes the type. gpu-count and accelerator-count
// are always set ("0" when absent) so that `Lt 1` selects types without them.
// Zone and capacity type carry the values of the type's offerings.
func requirements(rec record, region string, offerings []Offering) scheduling.Requirements {
	var zones, capacityTypes []string
	for _, o := range offerings {
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	return scheduling.NewRequirements(
		scheduling.In(scheduling.LabelInstanceType, rec.Name),
		scheduling.In(scheduling.LabelArch, rec.Arch),
		scheduling.In(scheduling.LabelOS, scheduling.OSLinux),
		scheduling.In(scheduling.LabelTopologyRegion, region),
		scheduling.In(scheduling.LabelTopologyZone, zones...),
		scheduling.In(scheduling.LabelCapacityType, capacityTypes...),
		scheduling.In(scheduling.LabelInstanceCategory, rec.Category),
		scheduling.In(scheduling.LabelInstanceFamily, rec.Family),
		scheduling.In(scheduling.LabelInstanceGeneration, strconv.Itoa(rec.Generation)),
		scheduling.In(scheduling.LabelInstanceSize, rec.Size),
		scheduling.In(scheduling.LabelInstanceCPU, itoa(rec.VCPU)),
		optional(scheduling.LabelInstanceCPUManufacturer, rec.CPUManufacturer),
		scheduling.In(scheduling.LabelInstanceMemory, itoa(rec.MemoryMiB)),
		scheduling.In(scheduling.LabelInstanceGPUCount, itoa(rec.GPUCount)),
		optional(scheduling.LabelInstanceGPUName, rec.GPUName),
		optional(scheduling.LabelInstanceGPUManufacturer, rec.GPUManufacturer),
		optional(scheduling.LabelInstanceGPUMemory, positive(rec.GPUMemoryMiB)),
		scheduling.In(scheduling.LabelInstanceAcceleratorCount, itoa(rec.AcceleratorCount)),
		optional(scheduling.LabelInstanceAcceleratorName, rec.AcceleratorName),
		optional(scheduling.LabelInstanceAcceleratorManufacturer, rec.AcceleratorManufacturer),
		optional(scheduling.LabelInstanceHypervisor, rec.Hypervisor),
		optional(scheduling.LabelInstanceNetworkBandwidth, networkMbps(rec.NetworkGbps)),
		optional(scheduling.LabelInstanceEBSBandwidth, positivePtr(rec.EBSBandwidthMbps)),
		optional(scheduling.LabelInstanceLocalNVMe, positivePtr(rec.LocalNVMeGiB)),
		scheduling.In(scheduling.LabelInstanceEncryptionInTransit, strconv.FormatBool(rec.EncryptionInTransit)),
	)
}

// optional is In [value], or DoesNotExist when value is "".
func optional(key, value string) scheduling.Requirement {
	if value == "" {
		return scheduling.DoesNotExist(key)
	}
	return scheduling.In(key, value)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// positive formats n, or returns "" for zero or less.
func positive(n int64) string {
	if n <= 0 {
		return ""
	}
	return itoa(n)
}

func positivePtr(n *int64) string {
	if n == nil {
		return ""
	}
	return positive(*n)
}

// networkMbps is the baseline bandwidth in Mbit/s, as Karpenter's
// instance-network-bandwidth label gives it, or "" when unknown.
func networkMbps(gbps *float64) string {
	if gbps == nil {
		return ""
	}
	return positive(int64(math.Round(*gbps * 1000)))
}
