package v1

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

const (
	msgClaimSpecImmutable = "spec is immutable; delete the NodeClaim and let the agent make a new one"
)

// Validate checks the NodeClaim as the API server's schema and CEL rules do, returning errors
// with the paths of the offending fields. Unlike a NodePool, a claim may require
// tenon.dev/nodepool.
func (in *NodeClaim) Validate() field.ErrorList {
	errs := apivalidation.ObjectName(in.Name, in.GenerateName)
	errs = append(errs, in.Spec.validate(field.NewPath("spec"))...)
	// Amounts the engine computes with (not in the CRD's schema; the agent
	// writes them itself).
	status := field.NewPath("status")
	errs = append(errs, scheduling.ValidateRequests(status.Child("capacity"), in.Status.Capacity)...)
	return append(errs, scheduling.ValidateRequests(status.Child("allocatable"), in.Status.Allocatable)...)
}

// ValidateUpdate checks an update from old: everything Validate checks, plus that the spec did
// not change (after defaulting), reporting nodeClassRef group and kind on their own as the
// CRD does.
func (in *NodeClaim) ValidateUpdate(old *NodeClaim) field.ErrorList {
	errs := in.Validate()
	errs = append(errs, validateNodeClassRefUpdate(field.NewPath("spec", "nodeClassRef"), in.Spec.NodeClassRef, old.Spec.NodeClassRef)...)
	claim, oldClaim := &NodeClaim{Spec: *in.Spec.DeepCopy()}, &NodeClaim{Spec: *old.Spec.DeepCopy()}
	claim.SetDefaults()
	oldClaim.SetDefaults()
	if !equality.Semantic.DeepEqual(claim.Spec, oldClaim.Spec) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), field.OmitValueType{}, msgClaimSpecImmutable))
	}
	return errs
}

func (in *NodeClaimSpec) validate(path *field.Path) field.ErrorList {
	errs := ValidateRequirements(path.Child("requirements"), in.Requirements)
	errs = append(errs, scheduling.ValidateRequests(path.Child("resources", "requests"), in.Resources.Requests)...)
	errs = append(errs, apivalidation.NodeTaints(path, in.Taints, in.StartupTaints)...)
	errs = append(errs, validateNodeClassRef(path.Child("nodeClassRef"), in.NodeClassRef)...)
	errs = append(errs, validateNillableDuration(path.Child("expireAfter"), in.ExpireAfter, msgExpireAfter)...)
	return append(errs, validateDuration(path.Child("terminationGracePeriod"), in.TerminationGracePeriod, apivalidation.DurationRE, msgTerminationGracePeriod)...)
}
