package v1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
)

// AnnotationDoNotRepair on a node ("true") keeps node repair from replacing it however long it
// has been unhealthy, while other disruptions may still take it (Karpenter's
// karpenter.sh/do-not-repair, which Tenon also honours). tenon.dev/do-not-disrupt on a node
// blocks repair as well.
const AnnotationDoNotRepair = Group + "/do-not-repair"

// AnnotationKarpenterDoNotRepair is Karpenter's do-not-repair node annotation; a pool that
// honours Karpenter's annotations (disruption.karpenterAnnotations) reads it as
// tenon.dev/do-not-repair.
const AnnotationKarpenterDoNotRepair = "karpenter.sh/do-not-repair"

// DefaultRepairMaxUnhealthy is how many of a pool's nodes may be unhealthy before repair stops
// for the pool (a correlated failure, such as a zone outage or a bad image, is not fixed by
// replacing nodes): Karpenter's fixed threshold, here the default of repair.maxUnhealthy.
const DefaultRepairMaxUnhealthy = "20%"

const (
	msgRepairToleration   = "toleration must be a duration such as 10m or 1h30m (units s, m, h)"
	msgRepairMaxUnhealthy = "maxUnhealthy must be a count such as 3 or a percentage from 0% to 100% such as 20%"
)

// Repair says whether the agent replaces the pool's unhealthy nodes: nodes whose Ready
// condition is False or Unknown, or that report a condition the cloud provider knows as
// unhealthy (on AWS the EKS node monitoring agent's AcceleratedHardwareReady, StorageReady,
// NetworkingReady, KernelReady and ContainerRuntimeReady being False), for longer than a
// toleration. A replacement is launched first when the node's pods need one, then the node is
// drained (honouring PodDisruptionBudgets until terminationGracePeriod) and deleted, within the
// pool's budgets for the reason Unhealthy.
type Repair struct {
	// Enabled turns node repair on for the pool. Off when repair is absent, as Karpenter's
	// NodeRepair feature gate is by default.
	// +required
	Enabled bool `json:"enabled"`
	// Toleration is how long a node must have been unhealthy before it is repaired, for every
	// condition, such as 10m. Absent means the cloud provider's toleration for each condition:
	// 30m for Ready, 10m for AcceleratedHardwareReady, 30m for the others.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+(s|m|h))+$')",message="toleration must be a duration such as 10m or 1h30m (units s, m, h)"
	// +optional
	Toleration *Duration `json:"toleration,omitempty"`
	// MaxUnhealthy is how many of the pool's nodes may be unhealthy (within their toleration or
	// past it) before repair stops for the pool, a count such as "3" or a percentage such as
	// "20%" (rounded up, so one unhealthy node in a small pool is still repaired). Absent means
	// 20%, Karpenter's fixed threshold; "100%" never stops.
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^((100|[0-9]{1,2})%|[0-9]+)$')",message="maxUnhealthy must be a count such as 3 or a percentage from 0% to 100% such as 20%"
	// +optional
	MaxUnhealthy *string `json:"maxUnhealthy,omitempty"`
}

// RepairEnabled reports whether a pool with this disruption block (nil when absent) repairs
// its unhealthy nodes.
func (in *Disruption) RepairEnabled() bool {
	return in != nil && in.Repair != nil && in.Repair.Enabled
}

func (in *Repair) validate(path *field.Path) field.ErrorList {
	if in == nil {
		return nil
	}
	var errs field.ErrorList
	if in.Toleration != nil {
		errs = append(errs, validateDuration(path.Child("toleration"), in.Toleration, apivalidation.DurationRE, msgRepairToleration)...)
	}
	if m := in.MaxUnhealthy; m != nil {
		switch {
		case len(*m) > 16:
			errs = append(errs, field.TooLong(path.Child("maxUnhealthy"), *m, 16))
		case !budgetNodesRE.MatchString(*m):
			errs = append(errs, field.Invalid(path.Child("maxUnhealthy"), *m, msgRepairMaxUnhealthy))
		}
	}
	return errs
}
