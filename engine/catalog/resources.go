package catalog

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Extended resources the catalog reports, named as their device plugins
// advertise them.
const (
	ResourceNVIDIAGPU corev1.ResourceName = "nvidia.com/gpu"
	ResourceAMDGPU    corev1.ResourceName = "amd.com/gpu"
	// ResourceNeuron counts AWS Inferentia and Trainium devices.
	ResourceNeuron corev1.ResourceName = "aws.amazon.com/neuron"
	// ResourceEFA counts Elastic Fabric Adapter interfaces.
	ResourceEFA corev1.ResourceName = "vpc.amazonaws.com/efa"
)

// Karpenter's defaults for AL2023 nodes, which the allocatable figures in the
// data assume.
const (
	// rootVolumeGiB is the default root volume, the node's ephemeral storage.
	rootVolumeGiB = 20
	// vmMemoryOverheadPermille is the memory EC2 lists but the kernel and
	// hypervisor keep: 7.5%, rounded up (Karpenter's vmMemoryOverheadPercent).
	vmMemoryOverheadPermille = 75
	// evictionMemoryMiB is the kubelet's default hard eviction threshold for
	// memory.available (100Mi).
	evictionMemoryMiB = 100
	// evictionEphemeralPercent is the kubelet's default threshold for
	// nodefs.available (10%).
	evictionEphemeralPercent = 10
	// kubeReservedEphemeralGiB is Karpenter's default kube-reserved storage.
	kubeReservedEphemeralGiB = 1
)

// capacity returns what the node reports as capacity: vCPUs, memory after the
// VM overhead, the root volume, max pods and any accelerators.
func capacity(rec record) corev1.ResourceList {
	list := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(rec.VCPU, resource.DecimalSI),
		corev1.ResourceMemory:           mebibytes(nodeMemoryMiB(rec.MemoryMiB)),
		corev1.ResourceEphemeralStorage: gibibytes(rootVolumeGiB),
		corev1.ResourcePods:             *resource.NewQuantity(rec.MaxPods, resource.DecimalSI),
	}
	addDevices(list, rec)
	return list
}

// allocatable returns what pods can request on the node: the data's
// karpenter_allocatable figures, or, for a type without them, the same
// overhead computed with Karpenter's formula (see overheadAllocatable).
func allocatable(rec record) corev1.ResourceList {
	a := rec.KarpenterAllocatable
	if a == nil {
		computed := overheadAllocatable(rec.VCPU, rec.MemoryMiB, rec.MaxPods)
		a = &computed
	}
	list := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(a.CPUMillicores, resource.DecimalSI),
		corev1.ResourceMemory:           mebibytes(a.MemoryMiB),
		corev1.ResourceEphemeralStorage: gibibytes(a.EphemeralStorageGiB),
		corev1.ResourcePods:             *resource.NewQuantity(a.Pods, resource.DecimalSI),
	}
	addDevices(list, rec)
	return list
}

// overheadAllocatable is Karpenter's allocatable for an AL2023 node with
// default kubelet settings (no system-reserved):
//
//	cpu     = vCPUs − kube-reserved CPU, where kube-reserved is 6% of the first
//	          core, 1% of the second, 0.5% of cores 3–4 and 0.25% of the rest
//	          (each band truncated to whole millicores)
//	memory  = (EC2 memory − 7.5% VM overhead, rounded up)
//	          − kube-reserved (11 MiB × maxPods + 255 MiB)
//	          − eviction threshold (100 MiB)
//	storage = 20 GiB root volume − 1 GiB kube-reserved − 10% eviction threshold
//	pods    = maxPods (ENI-based)
//
// For every amd64 type in the data this reproduces karpenter_allocatable
// exactly; for arm64 types the data's memory is 59 MiB lower (see the test).
func overheadAllocatable(vcpu, memoryMiB, maxPods int64) allocatableRecord {
	return allocatableRecord{
		CPUMillicores:       vcpu*1000 - kubeReservedMillicores(vcpu*1000),
		MemoryMiB:           nodeMemoryMiB(memoryMiB) - (11*maxPods + 255) - evictionMemoryMiB,
		EphemeralStorageGiB: rootVolumeGiB - kubeReservedEphemeralGiB - rootVolumeGiB*evictionEphemeralPercent/100,
		Pods:                maxPods,
	}
}

// kubeReservedMillicores is the CPU Karpenter reserves for the kubelet and
// container runtime, by bands of the node's millicores.
func kubeReservedMillicores(millicores int64) int64 {
	bands := []struct{ from, to, perTenThousand int64 }{
		{0, 1000, 600},      // 6% of the first core
		{1000, 2000, 100},   // 1% of the second
		{2000, 4000, 50},    // 0.5% of cores 3 and 4
		{4000, 1 << 62, 25}, // 0.25% of the rest
	}
	var reserved int64
	for _, b := range bands {
		if millicores <= b.from {
			break
		}
		reserved += (min(millicores, b.to) - b.from) * b.perTenThousand / 10000
	}
	return reserved
}

// nodeMemoryMiB is EC2's memory less the VM overhead, as the node reports it.
func nodeMemoryMiB(ec2MiB int64) int64 {
	return ec2MiB - (ec2MiB*vmMemoryOverheadPermille+999)/1000
}

// addDevices adds GPUs, Neuron devices and EFA interfaces to list.
func addDevices(list corev1.ResourceList, rec record) {
	if rec.GPUCount > 0 {
		name := ResourceNVIDIAGPU
		if rec.GPUManufacturer == "amd" {
			name = ResourceAMDGPU
		}
		list[name] = *resource.NewQuantity(rec.GPUCount, resource.DecimalSI)
	}
	if rec.AcceleratorCount > 0 && isNeuron(rec.AcceleratorName) {
		list[ResourceNeuron] = *resource.NewQuantity(rec.AcceleratorCount, resource.DecimalSI)
	}
	if rec.EFACount > 0 {
		list[ResourceEFA] = *resource.NewQuantity(rec.EFACount, resource.DecimalSI)
	}
}

// isNeuron reports whether an accelerator is driven by the AWS Neuron device
// plugin (Inferentia and Trainium, all generations).
func isNeuron(name string) bool {
	switch name {
	case "inferentia", "inferentia2", "trainium", "trainium2":
		return true
	}
	return false
}

func mebibytes(n int64) resource.Quantity {
	return *resource.NewQuantity(n*1024*1024, resource.BinarySI)
}

func gibibytes(n int64) resource.Quantity {
	return *resource.NewQuantity(n*1024*1024*1024, resource.BinarySI)
}
