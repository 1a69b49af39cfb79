package v1

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
)

// The values of the enumerated fields, the lists Validate checks against, in the order the
// CRDs list them. Docs and validators built elsewhere (the Terraform provider's schemas) read
// them here, so that they cannot drift from the API. Each call returns a fresh copy.

// RequirementOperators returns the operators of a requirement: those that compare label values
// (In, NotIn, Exists, DoesNotExist), then those that compare integer labels.
func RequirementOperators() (set, integer []corev1.NodeSelectorOperator) {
	return operators.Set(), operators.Integer()
}

// TaintEffects returns the effects of a taint.
func TaintEffects() []corev1.TaintEffect { return apivalidation.TaintEffects() }

// ConsolidationPolicies returns the consolidation policies of a disruption block.
func ConsolidationPolicies() []ConsolidationPolicy {
	return asValues[ConsolidationPolicy](consolidationPolicies)
}

// DisruptionReasons returns the reasons a disruption budget may be limited to.
func DisruptionReasons() []DisruptionReason { return asValues[DisruptionReason](disruptionReasons) }

// AMIFamilies returns the AMI families of an aws NodeClass.
func AMIFamilies() []string { return slices.Clone(amiFamilies) }

// VolumeTypes returns the EBS volume types of a block device.
func VolumeTypes() []string { return slices.Clone(volumeTypes) }

// InstanceMatchCriteria returns the values of a capacity reservation selector term's
// instanceMatchCriteria.
func InstanceMatchCriteria() []string { return slices.Clone(matchCriteria) }

// CapacityTypes returns the values of the tenon.dev/capacity-type label: on-demand, spot and
// reserved (EC2 capacity reservations, selected by the NodeClass).
func CapacityTypes() []string {
	return []string{CapacityTypeOnDemand, CapacityTypeSpot, CapacityTypeReserved}
}

// MetadataEndpointStates returns the values of metadataOptions.httpEndpoint and
// httpProtocolIPv6.
func MetadataEndpointStates() []string { return slices.Clone(enabledDisabled) }

// MetadataHTTPTokens returns the values of metadataOptions.httpTokens.
func MetadataHTTPTokens() []string { return slices.Clone(httpTokens) }

func asValues[T ~string](values []string) []T {
	out := make([]T, len(values))
	for i, v := range values {
		out[i] = T(v)
	}
	return out
}
