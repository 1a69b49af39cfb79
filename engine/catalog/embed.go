package catalog

import (
	_ "embed" // for the catalog data
	"encoding/json"
	"fmt"
)

// ec2InstanceTypes is the embedded catalog; a string, so it cannot be changed.
//
//go:embed data/ec2-instance-types.json
var ec2InstanceTypes string

// record is one instance type as data/ec2-instance-types.json stores it. Only
// the fields the catalog uses are decoded; see data/README.md for the rest.
type record struct {
	Name            string `json:"name"`
	Family          string `json:"family"`
	Category        string `json:"category"`
	Generation      int    `json:"generation"`
	Size            string `json:"size"`
	VCPU            int64  `json:"vcpu"`
	MemoryMiB       int64  `json:"memory_mib"` // as EC2 reports it
	Arch            string `json:"arch"`
	CPUManufacturer string `json:"cpu_manufacturer"`

	GPUCount        int64  `json:"gpu_count"`
	GPUName         string `json:"gpu_name"`
	GPUManufacturer string `json:"gpu_manufacturer"`
	GPUMemoryMiB    int64  `json:"gpu_memory_mib"` // of one GPU

	AcceleratorCount        int64  `json:"accelerator_count"`
	AcceleratorName         string `json:"accelerator_name"`
	AcceleratorManufacturer string `json:"accelerator_manufacturer"`

	MaxPods             int64    `json:"max_pods"`
	NetworkGbps         *float64 `json:"network_gbps"` // baseline
	EBSBandwidthMbps    *int64   `json:"ebs_bandwidth_mbps"`
	LocalNVMeGiB        *int64   `json:"local_nvme_gib"`
	Hypervisor          string   `json:"hypervisor"` // "" on bare metal
	EncryptionInTransit bool     `json:"encryption_in_transit"`
	EFACount            int64    `json:"efa_count"`

	KarpenterAllocatable *allocatableRecord `json:"karpenter_allocatable"`

	PriceOnDemand map[string]float64 `json:"price_on_demand_usd_hour"`
	PriceSpot     map[string]float64 `json:"price_spot_estimate_usd_hour"`
}

// allocatableRecord is what Karpenter computes as allocatable for the type.
type allocatableRecord struct {
	CPUMillicores       int64 `json:"cpu_millicores"`
	MemoryMiB           int64 `json:"memory_mib"`
	EphemeralStorageGiB int64 `json:"ephemeral_storage_gib"`
	Pods                int64 `json:"pods"`
}

// decodeRecords parses the embedded catalog.
func decodeRecords() ([]record, error) {
	var records []record
	if err := json.Unmarshal([]byte(ec2InstanceTypes), &records); err != nil {
		return nil, fmt.Errorf("decoding embedded data/ec2-instance-types.json: %w", err)
	}
	return records, nil
}
