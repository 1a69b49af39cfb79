package catalog

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Kinds of exotic instance type: types that an ordinary pod should not get
// because they are cheap per CPU, yet hold devices (or a whole host) that
// other workloads need. Packing gives them only to pods that ask for their
// devices or to pools that name them (engine/packing/exotic.go).
const (
	// ExoticGPU holds GPUs (NVIDIA or AMD, whole or fractional).
	ExoticGPU = "gpu"
	// ExoticAccelerator holds another accelerator: Inferentia, Trainium,
	// Gaudi, Qualcomm AI 100, FPGAs (f2, vt1).
	ExoticAccelerator = "accelerator"
	// ExoticMetal is a bare-metal host.
	ExoticMetal = "metal"
)

// gpuCategories and acceleratorCategories are the EC2 instance categories
// built around a device, including the types whose device the data leaves
// uncounted (fractional GPUs such as g6f, the FPGAs of f2 and vt1).
func gpuCategories() []string { return []string{"g", "gr", "p"} }

func acceleratorCategories() []string { return []string{"dl", "f", "inf", "trn", "vt"} }

// Exotic returns the type's exotic kind (ExoticGPU, ExoticAccelerator or
// ExoticMetal), or "" for an ordinary type. A type that is both bare metal
// and accelerated (g4dn.metal) is its device's kind. The kind is read from
// the type's labels and capacity, so types written in scenario files are
// judged as the embedded ones are.
func (it *InstanceType) Exotic() string {
	category, _ := it.Requirements.Get(scheduling.LabelInstanceCategory).Any()
	switch {
	case hasDevice(it, scheduling.LabelInstanceGPUCount, ResourceNVIDIAGPU, ResourceAMDGPU) || slices.Contains(gpuCategories(), category):
		return ExoticGPU
	case hasDevice(it, scheduling.LabelInstanceAcceleratorCount, ResourceNeuron) || slices.Contains(acceleratorCategories(), category):
		return ExoticAccelerator
	}
	if size, ok := it.Requirements.Get(scheduling.LabelInstanceSize).Any(); ok && strings.Contains(size, "metal") {
		return ExoticMetal
	}
	return ""
}

// hasDevice reports whether the type's count label is above 0 or it has
// some of one of the resources.
func hasDevice(it *InstanceType, countLabel string, names ...corev1.ResourceName) bool {
	if v, ok := it.Requirements.Get(countLabel).Any(); ok && v != "0" && v != "" {
		return true
	}
	for _, name := range names {
		if q, ok := it.Capacity[name]; ok && !q.IsZero() {
			return true
		}
	}
	return false
}

// ExoticNamingLabels are the labels whose requirement can name a type of
// the kind: a pool or pod that requires one of these to a value the type has
// asks for such types on purpose (see NamesExotic). Metal is named only by
// type or size, as a family requirement (m5) still means the virtualised
// sizes, as in Karpenter.
func ExoticNamingLabels(kind string) []string {
	switch kind {
	case ExoticGPU:
		return []string{scheduling.LabelInstanceType, scheduling.LabelInstanceFamily, scheduling.LabelInstanceCategory,
			scheduling.LabelInstanceGPUCount, scheduling.LabelInstanceGPUName, scheduling.LabelInstanceGPUManufacturer, scheduling.LabelInstanceGPUMemory}
	case ExoticAccelerator:
		return []string{scheduling.LabelInstanceType, scheduling.LabelInstanceFamily, scheduling.LabelInstanceCategory,
			scheduling.LabelInstanceAcceleratorCount, scheduling.LabelInstanceAcceleratorName, scheduling.LabelInstanceAcceleratorManufacturer}
	case ExoticMetal:
		return []string{scheduling.LabelInstanceType, scheduling.LabelInstanceSize}
	}
	return nil
}

// NamesExotic reports whether reqs ask for the exotic type it on purpose: a
// requirement on one of ExoticNamingLabels(it.Exotic()) allows the type's
// value and is an In list (category In [g, m]), or is on a GPU or
// accelerator label and leaves out what ordinary types carry there (a count
// Gt 0, a name that Exists). False for an ordinary type.
func (it *InstanceType) NamesExotic(reqs scheduling.Requirements) bool {
	return it.NamesExoticKind(it.Exotic(), reqs)
}

// NamesExoticKind is NamesExotic for a type whose Exotic() the caller
// already knows to be kind: packing asks it of every exotic type for every
// class of pods, and working the kind out again each time cost more than
// the question.
func (it *InstanceType) NamesExoticKind(kind string, reqs scheduling.Requirements) bool {
	if len(reqs) == 0 {
		return false
	}
	for _, key := range ExoticNamingLabels(kind) {
		if !reqs.Has(key) {
			continue
		}
		r := reqs.Get(key)
		v, ok := it.Requirements.Get(key).Any()
		if !ok || !r.Has(v) {
			continue
		}
		device := strings.HasPrefix(key, "tenon.dev/instance-gpu-") || strings.HasPrefix(key, "tenon.dev/instance-accelerator-")
		switch {
		case r.Operator() == scheduling.OpIn:
			return true
		case device && r.Operator() == scheduling.OpExists && !r.Has("0"):
			return true
		}
	}
	return false
}
