package v1alpha5

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Messages of the CEL rules only this version has (the twin tests hold them equal). Each says
// what is wrong and how to fix it. The rest are apivalidation's.
const (
	msgNodePoolLabel = "label tenon.dev/nodepool is set by the agent to the provisioner's name; remove it"
	msgNodePoolReq   = "label tenon.dev/nodepool is set by the agent to the provisioner's name; remove the requirement"
	msgIntegerValues = "operators Gt and Lt take exactly one value, a non-negative integer such as '4'; set values to a single number"

	msgTTLAfterEmptyWithConsolidation = "ttlSecondsAfterEmpty and consolidation.enabled are exclusive, as consolidation removes empty nodes itself; remove ttlSecondsAfterEmpty or set consolidation.enabled to false"
	msgProviderRequired               = "set provider (inline AWS settings) or providerRef (the name of a NodeClass)"
	msgProviderExclusive              = "provider and providerRef are exclusive; keep provider for inline AWS settings or providerRef to use a NodeClass"

	msgAMIFamilyCustom      = "amiFamily Custom requires amiSelector; add tags selecting your AMIs, or use amiFamily AL2023 or Bottlerocket"
	msgAMISelectorByID      = "aws-ids and aws:: keys select AMIs by ID, name or owner, which an inline provider cannot express; use a NodeClass with amiSelectorTerms and providerRef"
	msgSubnetSelectorByID   = "aws-ids and aws:: keys select subnets by ID, which an inline provider cannot express; use a NodeClass with subnetSelectorTerms and providerRef"
	msgSecurityGroupSelByID = "aws-ids and aws:: keys select security groups by ID or name, which an inline provider cannot express; use a NodeClass with securityGroupSelectorTerms and providerRef"
)

var (
	// operators are Karpenter v1alpha5's: the core ones, without v1's Gte and Lte.
	operators = apivalidation.Operators{
		Supported: []corev1.NodeSelectorOperator{
			corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist,
			corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt,
		},
		MsgIntegerValues: msgIntegerValues,
	}
	supportedAMIFamilies = []string{AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyCustom}
)

// LabelNodePool is the node label the agent sets to the name of the pool (here, the
// provisioner) that launched the node. Provisioners cannot set or require it.
const LabelNodePool = v1.LabelNodePool

// Validate checks the Provisioner as the API server's schema and CEL rules do, returning
// errors with the paths of the offending fields. Where a CEL rule can only point at a whole
// map or list, Go points at the entry (spec.labels[karpenter.sh/foo] where the API server says
// spec.labels). Empty optional strings and maps count as absent, as they do once marshalled.
// Fields with defaults may be left empty, so it can run before or after SetDefaults.
func (in *Provisioner) Validate() field.ErrorList {
	errs := apivalidation.ObjectName(in.Name, in.GenerateName)
	return append(errs, in.Spec.validate(field.NewPath("spec"))...)
}

func (in *ProvisionerSpec) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, apivalidation.Annotations(path.Child("annotations"), in.Annotations)...)
	errs = append(errs, apivalidation.Labels(path.Child("labels"), in.Labels, msgNodePoolLabel)...)
	errs = append(errs, apivalidation.NodeTaints(path, in.Taints, in.StartupTaints)...)
	errs = append(errs, apivalidation.Requirements(path.Child("requirements"), in.Requirements, operators)...)
	errs = append(errs, apivalidation.ForbidRequirementKey(path.Child("requirements"), in.Requirements, LabelNodePool, msgNodePoolReq)...)
	if in.KubeletConfiguration != nil {
		errs = append(errs, in.KubeletConfiguration.Validate(path.Child("kubeletConfiguration"))...)
	}
	errs = append(errs, in.validateProvider(path)...)
	if in.Limits != nil {
		errs = append(errs, scheduling.ValidateLimits(path.Child("limits", "resources"), in.Limits.Resources)...)
	}
	errs = append(errs, minimum(path.Child("ttlSecondsAfterEmpty"), in.TTLSecondsAfterEmpty, 0,
		"ttlSecondsAfterEmpty must not be negative; set the seconds an empty node may live, such as 30")...)
	errs = append(errs, minimum(path.Child("ttlSecondsUntilExpired"), in.TTLSecondsUntilExpired, 0,
		"ttlSecondsUntilExpired must not be negative; set the seconds a node may live, such as 2592000 for 30 days")...)
	if in.TTLSecondsAfterEmpty != nil && in.Consolidation != nil && in.Consolidation.Enabled != nil && *in.Consolidation.Enabled {
		errs = append(errs, field.Invalid(path.Child("ttlSecondsAfterEmpty"), *in.TTLSecondsAfterEmpty, msgTTLAfterEmptyWithConsolidation))
	}
	if c := in.Consolidation; c != nil {
		errs = append(errs, v1.ValidateMinSavings(path.Child("consolidation"), c.MinSavingsPerHour, c.MinSavingsPercent, c.MinSavingsPerPod)...)
	}
	errs = append(errs, between(path.Child("weight"), in.Weight, 1, 100,
		"weight must be between 1 and 100; provisioners with higher weights are tried first")...)
	return errs
}

func (in *ProvisionerSpec) validateProvider(path *field.Path) field.ErrorList {
	switch {
	case in.Provider == nil && in.ProviderRef == nil:
		return field.ErrorList{field.Invalid(path, nil, msgProviderRequired)}
	case in.Provider != nil && in.ProviderRef != nil:
		return field.ErrorList{field.Invalid(path.Child("providerRef"), in.ProviderRef.Name, msgProviderExclusive)}
	case in.Provider != nil:
		return in.Provider.validate(path.Child("provider"))
	default:
		return in.ProviderRef.validate(path.Child("providerRef"))
	}
}

func (in *ProviderRef) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if in.APIVersion != "" && in.APIVersion != DefaultProviderRefAPIVersion {
		errs = append(errs, field.NotSupported(path.Child("apiVersion"), in.APIVersion, []string{DefaultProviderRefAPIVersion}))
	}
	if in.Kind != "" && in.Kind != DefaultProviderRefKind {
		errs = append(errs, field.NotSupported(path.Child("kind"), in.Kind, []string{DefaultProviderRefKind}))
	}
	return append(errs, apivalidation.NodeClassName(path.Child("name"), in.Name, "set name to the NodeClass the nodes are launched with")...)
}

func (in *Provider) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if in.AMIFamily != "" && !slices.Contains(supportedAMIFamilies, in.AMIFamily) {
		errs = append(errs, field.NotSupported(path.Child("amiFamily"), in.AMIFamily, supportedAMIFamilies))
	}
	if in.AMIFamily == AMIFamilyCustom && len(in.AMISelector) == 0 {
		errs = append(errs, field.Invalid(path.Child("amiSelector"), nil, msgAMIFamilyCustom))
	}
	errs = append(errs, validateSelector(path.Child("amiSelector"), in.AMISelector, msgAMISelectorByID)...)
	switch p := path.Child("instanceProfile"); {
	case in.InstanceProfile == "":
		errs = append(errs, field.Required(p, "set instanceProfile to the IAM instance profile of the nodes"))
	case len(in.InstanceProfile) > 128:
		errs = append(errs, field.TooLong(p, in.InstanceProfile, 128))
	}
	errs = append(errs, validateSelector(path.Child("subnetSelector"), in.SubnetSelector, msgSubnetSelectorByID)...)
	errs = append(errs, validateSelector(path.Child("securityGroupSelector"), in.SecurityGroupSelector, msgSecurityGroupSelByID)...)
	return append(errs, apivalidation.Tags(path.Child("tags"), in.Tags)...)
}

// validateSelector checks a tag selector; byID is the message for Karpenter's ID-selecting keys.
func validateSelector(path *field.Path, selector map[string]string, byID string) field.ErrorList {
	errs := apivalidation.SelectorTags(path, selector)
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		if strings.HasPrefix(k, "aws::") || k == "aws-ids" {
			errs = append(errs, field.Invalid(path.Key(k), selector[k], byID))
		}
	}
	return errs
}

type integer interface{ ~int32 | ~int64 }

// minimum reports a value below min, as the schema's minimum does.
func minimum[T integer](path *field.Path, v *T, lowest T, msg string) field.ErrorList {
	if v != nil && *v < lowest {
		return field.ErrorList{field.Invalid(path, *v, msg)}
	}
	return nil
}

// between reports a value outside [lowest, highest], as the schema's minimum and maximum do.
func between[T integer](path *field.Path, v *T, lowest, highest T, msg string) field.ErrorList {
	if v != nil && (*v < lowest || *v > highest) {
		return field.ErrorList{field.Invalid(path, *v, msg)}
	}
	return nil
}

// RequirementOperators returns the operators of a Provisioner's requirement, in the order the
// CRD lists them: those that compare label values, then those that compare integer labels.
func RequirementOperators() (set, integer []corev1.NodeSelectorOperator) {
	return operators.Set(), operators.Integer()
}

// AMIFamilies returns the AMI families of an inline provider, in the order the CRD lists them.
func AMIFamilies() []string { return slices.Clone(supportedAMIFamilies) }
