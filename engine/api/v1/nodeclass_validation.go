package v1

import (
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
)

var (
	subnetIDRE        = regexp.MustCompile(`^subnet-[0-9a-z]+$`)
	securityGroupIDRE = regexp.MustCompile(`^sg-[0-9a-z]+$`)
	amiIDRE           = regexp.MustCompile(`^ami-[0-9a-z]+$`)
	reservationIDRE   = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	accountIDRE       = regexp.MustCompile(`^[0-9]{12}$`)
)

const (
	msgCloudRequired        = "set one cloud block: aws for EC2 or kwok for simulated nodes"
	msgCloudExclusive       = "aws and kwok are exclusive; keep one cloud block"
	msgCloudImmutable       = "the cloud block cannot change between aws and kwok; create a new NodeClass instead"
	msgIdentityRequired     = "set role (the agent manages an instance profile for it) or instanceProfile (an existing profile)"
	msgIdentityExclusive    = "role and instanceProfile are exclusive; keep one"
	msgCustomNeedsSelectors = "amiFamily Custom requires amiSelectorTerms; add terms selecting your AMIs, or use amiFamily AL2023 or Bottlerocket"
	msgRootVolumes          = "only one block device mapping can be the root volume; set rootVolume on one of them"
	msgEBSSize              = "ebs needs volumeSize (such as 100Gi) or snapshotID; add one"
	msgVolumeSize           = "volumeSize must be between 0 and 64Ti, the largest EBS volume"
	msgSubnetTerm           = "a subnet selector term needs tags or id; add one"
	msgSubnetTermID         = "id selects one subnet on its own; use tags or id in a term, not both (terms are ORed)"
	msgSubnetID             = "id must be a subnet ID such as subnet-0123456789abcdef0"
	msgSecurityGroupTerm    = "a security group selector term needs exactly one of tags, id or name; put each in its own term (terms are ORed)"
	msgSecurityGroupID      = "id must be a security group ID such as sg-0123456789abcdef0"
	msgAMITerm              = "an AMI selector term needs tags, id, name or ssmParameter; add one"
	msgAMITermID            = "id selects one AMI on its own; remove tags, name, owner and ssmParameter from this term"
	msgAMITermSSM           = "ssmParameter selects one AMI on its own; remove tags, name and owner from this term"
	msgAMIID                = "id must be an AMI ID such as ami-0123456789abcdef0"
	msgReservationTerm      = "a capacity reservation selector term needs id, tags or instanceMatchCriteria; add one"
	msgReservationTermID    = "id selects one capacity reservation on its own; remove tags, ownerID and instanceMatchCriteria from this term"
	msgReservationID        = "id must be a capacity reservation ID such as cr-0123456789abcdef0"
	msgOwnerID              = "ownerID must be a 12-digit AWS account ID such as 123456789012"
)

var (
	amiFamilies     = []string{AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyCustom}
	volumeTypes     = []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}
	enabledDisabled = []string{"enabled", "disabled"}
	httpTokens      = []string{"required", "optional"}
	matchCriteria   = []string{InstanceMatchCriteriaOpen, InstanceMatchCriteriaTargeted}
)

// Validate checks the NodeClass as the API server's schema and CEL rules do, returning errors
// with the paths of the offending fields. Fields left empty that have defaults are accepted.
func (in *NodeClass) Validate() field.ErrorList {
	errs := apivalidation.ObjectName(in.Name, in.GenerateName)
	spec := field.NewPath("spec")
	switch {
	case in.Spec.AWS == nil && in.Spec.KWOK == nil:
		errs = append(errs, field.Required(spec, msgCloudRequired))
	case in.Spec.AWS != nil && in.Spec.KWOK != nil:
		errs = append(errs, field.Invalid(spec.Child("kwok"), field.OmitValueType{}, msgCloudExclusive))
	}
	if in.Spec.AWS != nil {
		errs = append(errs, in.Spec.AWS.validate(spec.Child("aws"))...)
	}
	return errs
}

// ValidateUpdate checks an update from old: everything Validate checks, plus that the cloud
// block does not switch between aws and kwok.
func (in *NodeClass) ValidateUpdate(old *NodeClass) field.ErrorList {
	errs := in.Validate()
	if (in.Spec.AWS != nil) != (old.Spec.AWS != nil) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), field.OmitValueType{}, msgCloudImmutable))
	}
	return errs
}

func (in *AWSNodeClassSpec) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case in.Role == "" && in.InstanceProfile == "":
		errs = append(errs, field.Required(path, msgIdentityRequired))
	case in.Role != "" && in.InstanceProfile != "":
		errs = append(errs, field.Invalid(path.Child("instanceProfile"), in.InstanceProfile, msgIdentityExclusive))
	}
	errs = append(errs, maxLength(path.Child("role"), in.Role, 64)...)
	errs = append(errs, maxLength(path.Child("instanceProfile"), in.InstanceProfile, 128)...)
	if in.AMIFamily != "" && !slices.Contains(amiFamilies, in.AMIFamily) {
		errs = append(errs, field.NotSupported(path.Child("amiFamily"), in.AMIFamily, amiFamilies))
	}
	if in.AMIFamily == AMIFamilyCustom && len(in.AMISelectorTerms) == 0 {
		errs = append(errs, field.Required(path.Child("amiSelectorTerms"), msgCustomNeedsSelectors))
	}
	errs = append(errs, validateTerms(path.Child("amiSelectorTerms"), in.AMISelectorTerms, AMISelectorTerm.validate)...)
	errs = append(errs, validateTerms(path.Child("subnetSelectorTerms"), in.SubnetSelectorTerms, SubnetSelectorTerm.validate)...)
	errs = append(errs, validateTerms(path.Child("securityGroupSelectorTerms"), in.SecurityGroupSelectorTerms, SecurityGroupSelectorTerm.validate)...)
	errs = append(errs, validateTerms(path.Child("capacityReservationSelectorTerms"), in.CapacityReservationSelectorTerms, CapacityReservationSelectorTerm.validate)...)
	errs = append(errs, apivalidation.Tags(path.Child("tags"), in.Tags)...)
	errs = append(errs, validateBlockDeviceMappings(path.Child("blockDeviceMappings"), in.BlockDeviceMappings)...)
	if in.MetadataOptions != nil {
		errs = append(errs, in.MetadataOptions.validate(path.Child("metadataOptions"))...)
	}
	if in.UserData != nil {
		errs = append(errs, maxLength(path.Child("userData"), *in.UserData, 16384)...)
	}
	if in.Kubelet != nil {
		errs = append(errs, in.Kubelet.Validate(path.Child("kubelet"))...)
	}
	return errs
}

func maxLength(path *field.Path, v string, limit int) field.ErrorList {
	if len(v) > limit {
		return field.ErrorList{field.TooLong(path, v, limit)}
	}
	return nil
}

// validateTerms checks a present list of selector terms: 1 to 30 of them, each valid.
func validateTerms[T any](path *field.Path, terms []T, validate func(T, *field.Path) field.ErrorList) field.ErrorList {
	var errs field.ErrorList
	if terms != nil && len(terms) == 0 {
		errs = append(errs, field.Required(path, "add at least one term, or remove the field"))
	}
	if len(terms) > 30 {
		errs = append(errs, field.TooMany(path, len(terms), 30))
	}
	for i, t := range terms {
		errs = append(errs, validate(t, path.Index(i))...)
	}
	return errs
}

// validateSelectorTags checks the tags of a selector term: present means at least one, at most
// 20, none empty.
func validateSelectorTags(path *field.Path, tags map[string]string) field.ErrorList {
	var errs field.ErrorList
	if tags != nil && len(tags) == 0 {
		errs = append(errs, field.Required(path, "add at least one tag, or remove tags"))
	}
	return append(errs, apivalidation.SelectorTags(path, tags)...)
}

func (t SubnetSelectorTerm) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case t.Tags == nil && t.ID == "":
		errs = append(errs, field.Required(path, msgSubnetTerm))
	case t.Tags != nil && t.ID != "":
		errs = append(errs, field.Invalid(path.Child("id"), t.ID, msgSubnetTermID))
	}
	errs = append(errs, validateSelectorTags(path.Child("tags"), t.Tags)...)
	return append(errs, validateID(path.Child("id"), t.ID, subnetIDRE, msgSubnetID)...)
}

func (t SecurityGroupSelectorTerm) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	set := 0
	for _, ok := range []bool{t.Tags != nil, t.ID != "", t.Name != ""} {
		if ok {
			set++
		}
	}
	if set != 1 {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, msgSecurityGroupTerm))
	}
	errs = append(errs, validateSelectorTags(path.Child("tags"), t.Tags)...)
	errs = append(errs, maxLength(path.Child("name"), t.Name, 255)...)
	return append(errs, validateID(path.Child("id"), t.ID, securityGroupIDRE, msgSecurityGroupID)...)
}

func (t AMISelectorTerm) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	hasTags, hasID, hasName, hasOwner, hasSSM := t.Tags != nil, t.ID != "", t.Name != "", t.Owner != "", t.SSMParameter != ""
	switch {
	case !hasTags && !hasID && !hasName && !hasSSM:
		errs = append(errs, field.Required(path, msgAMITerm))
	case hasID && (hasTags || hasName || hasOwner || hasSSM):
		errs = append(errs, field.Invalid(path.Child("id"), t.ID, msgAMITermID))
	case hasSSM && (hasTags || hasName || hasOwner):
		errs = append(errs, field.Invalid(path.Child("ssmParameter"), t.SSMParameter, msgAMITermSSM))
	}
	errs = append(errs, validateSelectorTags(path.Child("tags"), t.Tags)...)
	errs = append(errs, maxLength(path.Child("name"), t.Name, 128)...)
	errs = append(errs, maxLength(path.Child("owner"), t.Owner, 64)...)
	errs = append(errs, maxLength(path.Child("ssmParameter"), t.SSMParameter, 2048)...)
	return append(errs, validateID(path.Child("id"), t.ID, amiIDRE, msgAMIID)...)
}

func (t CapacityReservationSelectorTerm) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	hasID, hasTags, hasOwner, hasCriteria := t.ID != "", t.Tags != nil, t.OwnerID != "", t.InstanceMatchCriteria != ""
	switch {
	case !hasID && !hasTags && !hasCriteria:
		errs = append(errs, field.Required(path, msgReservationTerm))
	case hasID && (hasTags || hasOwner || hasCriteria):
		errs = append(errs, field.Invalid(path.Child("id"), t.ID, msgReservationTermID))
	}
	errs = append(errs, validateSelectorTags(path.Child("tags"), t.Tags)...)
	if hasOwner && !accountIDRE.MatchString(t.OwnerID) {
		errs = append(errs, field.Invalid(path.Child("ownerID"), t.OwnerID, msgOwnerID))
	}
	if hasCriteria && !slices.Contains(matchCriteria, t.InstanceMatchCriteria) {
		errs = append(errs, field.NotSupported(path.Child("instanceMatchCriteria"), t.InstanceMatchCriteria, matchCriteria))
	}
	return append(errs, validateID(path.Child("id"), t.ID, reservationIDRE, msgReservationID)...)
}

func validateID(path *field.Path, id string, re *regexp.Regexp, msg string) field.ErrorList {
	switch {
	case id == "":
		return nil
	case len(id) > 64:
		return field.ErrorList{field.TooLong(path, id, 64)}
	case !re.MatchString(id):
		return field.ErrorList{field.Invalid(path, id, msg)}
	}
	return nil
}

func validateBlockDeviceMappings(path *field.Path, mappings []BlockDeviceMapping) field.ErrorList {
	var errs field.ErrorList
	if len(mappings) > 50 {
		errs = append(errs, field.TooMany(path, len(mappings), 50))
	}
	roots := 0
	for i, m := range mappings {
		p := path.Index(i)
		if m.RootVolume {
			roots++
			if roots == 2 {
				errs = append(errs, field.Invalid(p.Child("rootVolume"), true, msgRootVolumes))
			}
		}
		if m.DeviceName == "" {
			errs = append(errs, field.Required(p.Child("deviceName"), "set deviceName, such as /dev/xvda"))
		}
		errs = append(errs, maxLength(p.Child("deviceName"), m.DeviceName, 64)...)
		if m.EBS != nil {
			errs = append(errs, m.EBS.validate(p.Child("ebs"))...)
		}
	}
	return errs
}

// maxVolumeSize is the largest EBS volume (io2 Block Express).
var maxVolumeSize = resource.MustParse("64Ti")

func (in *BlockDevice) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if in.SnapshotID == nil && in.VolumeSize == nil {
		errs = append(errs, field.Required(path, msgEBSSize))
	}
	// EBS volumes are at most 64 TiB; the launch template gives the size in
	// GiB as an int32, which a larger quantity would overflow. Not in the
	// CRD's schema: the agent refuses such a NodeClass when it reads it.
	if v := in.VolumeSize; v != nil && (v.Sign() < 0 || v.Cmp(maxVolumeSize) > 0) {
		errs = append(errs, field.Invalid(path.Child("volumeSize"), v.String(), msgVolumeSize))
	}
	if in.IOPS != nil && *in.IOPS < 0 {
		errs = append(errs, field.Invalid(path.Child("iops"), *in.IOPS, "iops must not be negative"))
	}
	if in.Throughput != nil && *in.Throughput < 0 {
		errs = append(errs, field.Invalid(path.Child("throughput"), *in.Throughput, "throughput must not be negative"))
	}
	if in.VolumeType != nil && !slices.Contains(volumeTypes, *in.VolumeType) {
		errs = append(errs, field.NotSupported(path.Child("volumeType"), *in.VolumeType, volumeTypes))
	}
	return errs
}

func (in *MetadataOptions) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, oneOf(path.Child("httpEndpoint"), in.HTTPEndpoint, enabledDisabled)...)
	errs = append(errs, oneOf(path.Child("httpProtocolIPv6"), in.HTTPProtocolIPv6, enabledDisabled)...)
	errs = append(errs, oneOf(path.Child("httpTokens"), in.HTTPTokens, httpTokens)...)
	if l := in.HTTPPutResponseHopLimit; l != nil && (*l < 1 || *l > 64) {
		errs = append(errs, field.Invalid(path.Child("httpPutResponseHopLimit"), *l, "httpPutResponseHopLimit must be between 1 and 64"))
	}
	return errs
}

func oneOf(path *field.Path, v *string, allowed []string) field.ErrorList {
	if v != nil && !slices.Contains(allowed, *v) {
		return field.ErrorList{field.NotSupported(path, *v, allowed)}
	}
	return nil
}
