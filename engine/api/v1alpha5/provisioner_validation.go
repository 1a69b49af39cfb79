package v1alpha5

import (
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The expressions below are the ones in the CEL rules and patterns of the markers, character
// for character, so Go and the API server accept the same strings.
var (
	qualifiedNameRE       = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	qualifiedNameLengthRE = regexp.MustCompile(`^([^/]{1,253}/)?[^/]{1,63}$`)
	labelValueRE          = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	dnsSubdomainRE        = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	integerValueRE        = regexp.MustCompile(`^[0-9]{1,18}$`)
	durationRE            = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	percentageRE          = regexp.MustCompile(`^(100([.]0+)?|[0-9]{1,2}([.][0-9]+)?)%$`)

	kubernetesDomainRE     = regexp.MustCompile(`^([^/]+[.])?kubernetes[.]io/`)
	openKubernetesDomainRE = regexp.MustCompile(`^([^/]+[.])?(node|node-restriction)[.]kubernetes[.]io/`)
	k8sDomainRE            = regexp.MustCompile(`^([^/]+[.])?k8s[.]io/`)
	karpenterDomainRE      = regexp.MustCompile(`^([^/]+[.])?karpenter[.]sh/`)
	tenonDomainRE          = regexp.MustCompile(`^([^/]+[.])?tenon[.]dev/`)
)

// Messages shared by Go and CEL (the twin tests hold them equal). Each says what is wrong and
// how to fix it.
const (
	msgKeySyntax        = "key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	msgValueSyntax      = "value must be up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	msgDomainKubernetes = "label domain kubernetes.io is restricted; use kubernetes.io/arch, kubernetes.io/os, topology.kubernetes.io/zone or region, a node.kubernetes.io label, or a key in your own domain"
	msgDomainK8s        = "label domain k8s.io is restricted; use a key in your own domain"
	msgDomainKarpenter  = "label domain karpenter.sh is restricted; use the tenon.dev equivalent, such as tenon.dev/capacity-type for karpenter.sh/capacity-type"
	msgDomainTenon      = "label domain tenon.dev is restricted; use a well-known label such as tenon.dev/capacity-type or tenon.dev/instance-family, or a key in your own domain"
	msgNodePoolLabel    = "label tenon.dev/nodepool is set by the agent to the provisioner's name; remove it"
	msgNodePoolReq      = "label tenon.dev/nodepool is set by the agent to the provisioner's name; remove the requirement"

	msgInValues      = "operator In requires at least one value; add values or use Exists"
	msgNotInValues   = "operator NotIn requires at least one value; add values or use DoesNotExist"
	msgExistsValues  = "operators Exists and DoesNotExist take no values; remove values or use In or NotIn"
	msgIntegerValues = "operators Gt and Lt take exactly one value, a non-negative integer such as '4'; set values to a single number"

	msgTaintsRepeat        = "taints repeat a key and effect; remove the duplicate"
	msgStartupTaintsRepeat = "startupTaints repeat a key and effect; remove the duplicate"
	msgStartupTaintRepeat  = "a startup taint repeats a taint's key and effect; keep it in taints or startupTaints, not both"

	msgTTLAfterEmptyWithConsolidation = "ttlSecondsAfterEmpty and consolidation.enabled are exclusive, as consolidation removes empty nodes itself; remove ttlSecondsAfterEmpty or set consolidation.enabled to false"
	msgProviderRequired               = "set provider (inline AWS settings) or providerRef (the name of a NodeClass)"
	msgProviderExclusive              = "provider and providerRef are exclusive; keep provider for inline AWS settings or providerRef to use a NodeClass"
	msgNodeClassName                  = "name must be a NodeClass name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"

	msgAMIFamilyCustom        = "amiFamily Custom requires amiSelector; add tags selecting your AMIs, or use amiFamily AL2023 or Bottlerocket"
	msgSelectorEmpty          = "tag keys and values must not be empty; use '*' to match any value"
	msgAMISelectorByID        = "aws-ids and aws:: keys select AMIs by ID, name or owner, which an inline provider cannot express; use a NodeClass with amiSelectorTerms and providerRef"
	msgSubnetSelectorByID     = "aws-ids and aws:: keys select subnets by ID, which an inline provider cannot express; use a NodeClass with subnetSelectorTerms and providerRef"
	msgSecurityGroupSelByID   = "aws-ids and aws:: keys select security groups by ID or name, which an inline provider cannot express; use a NodeClass with securityGroupSelectorTerms and providerRef"
	msgTagKeyLength           = "tag keys must be 1 to 128 characters"
	msgTagValueLength         = "tag values must be at most 256 characters"
	msgTagClusterPrefix       = "tag keys starting with kubernetes.io/cluster/ are set by the agent; remove the tag"
	msgTagReserved            = "tags tenon.dev/cluster, tenon.dev/nodepool and tenon.dev/nodeclaim are set by the agent; remove the tag"
	msgEvictionSoftNeedsGrace = "every evictionSoft signal needs an evictionSoftGracePeriod entry; add one for each signal"
	msgGraceNeedsEvictionSoft = "every evictionSoftGracePeriod signal needs an evictionSoft threshold; add the threshold or remove the grace period"
	msgImageGCThresholds      = "imageGCLowThresholdPercent must be lower than imageGCHighThresholdPercent"
)

var (
	supportedOperators = []string{
		string(corev1.NodeSelectorOpIn), string(corev1.NodeSelectorOpNotIn),
		string(corev1.NodeSelectorOpExists), string(corev1.NodeSelectorOpDoesNotExist),
		string(corev1.NodeSelectorOpGt), string(corev1.NodeSelectorOpLt),
	}
	supportedTaintEffects = []string{
		string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute),
	}
	supportedAMIFamilies    = []string{AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyCustom}
	reservedResources       = []string{"cpu", "memory", "ephemeral-storage", "pid"}
	evictionSignals         = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
	agentTags               = []string{"tenon.dev/cluster", "tenon.dev/nodepool", "tenon.dev/nodeclaim"}
	wellKnownKubernetesKeys = []string{"kubernetes.io/arch", "kubernetes.io/os", "topology.kubernetes.io/zone", "topology.kubernetes.io/region"}
	wellKnownTenonKeys      = []string{
		"tenon.dev/nodepool", "tenon.dev/capacity-type", "tenon.dev/instance-category", "tenon.dev/instance-family",
		"tenon.dev/instance-generation", "tenon.dev/instance-size", "tenon.dev/instance-cpu", "tenon.dev/instance-memory",
		"tenon.dev/instance-gpu-count", "tenon.dev/instance-gpu-name",
	}
)

// LabelNodePool is the node label the agent sets to the name of the pool (here, the
// provisioner) that launched the node. Provisioners cannot set or require it.
const LabelNodePool = Group + "/nodepool"

// Validate checks the Provisioner as the API server's schema and CEL rules do, returning
// errors with the paths of the offending fields. Where a CEL rule can only point at a whole
// map or list, Go points at the entry (spec.labels[karpenter.sh/foo] where the API server says
// spec.labels). Empty optional strings and maps count as absent, as they do once marshalled.
// Fields with defaults may be left empty, so it can run before or after SetDefaults.
func (in *Provisioner) Validate() field.ErrorList {
	errs := validateObjectName(in.Name, in.GenerateName)
	return append(errs, in.Spec.validate(field.NewPath("spec"))...)
}

func validateObjectName(name, generateName string) field.ErrorList {
	path := field.NewPath("metadata", "name")
	if name == "" {
		if generateName == "" {
			return field.ErrorList{field.Required(path, "set metadata.name to a lower-case DNS name such as default")}
		}
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

func (in *ProvisionerSpec) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateAnnotations(path.Child("annotations"), in.Annotations)...)
	errs = append(errs, validateLabels(path.Child("labels"), in.Labels)...)
	errs = append(errs, validateTaints(path.Child("taints"), in.Taints, msgTaintsRepeat)...)
	errs = append(errs, validateTaints(path.Child("startupTaints"), in.StartupTaints, msgStartupTaintsRepeat)...)
	errs = append(errs, validateStartupTaintRepeats(path.Child("startupTaints"), in.Taints, in.StartupTaints)...)
	errs = append(errs, validateRequirements(path.Child("requirements"), in.Requirements)...)
	if in.KubeletConfiguration != nil {
		errs = append(errs, in.KubeletConfiguration.validate(path.Child("kubeletConfiguration"))...)
	}
	errs = append(errs, in.validateProvider(path)...)
	errs = append(errs, minimum(path.Child("ttlSecondsAfterEmpty"), in.TTLSecondsAfterEmpty, 0,
		"ttlSecondsAfterEmpty must not be negative; set the seconds an empty node may live, such as 30")...)
	errs = append(errs, minimum(path.Child("ttlSecondsUntilExpired"), in.TTLSecondsUntilExpired, 0,
		"ttlSecondsUntilExpired must not be negative; set the seconds a node may live, such as 2592000 for 30 days")...)
	if in.TTLSecondsAfterEmpty != nil && in.Consolidation != nil && in.Consolidation.Enabled != nil && *in.Consolidation.Enabled {
		errs = append(errs, field.Invalid(path.Child("ttlSecondsAfterEmpty"), *in.TTLSecondsAfterEmpty, msgTTLAfterEmptyWithConsolidation))
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
	switch name := path.Child("name"); {
	case in.Name == "":
		errs = append(errs, field.Required(name, "set name to the NodeClass the nodes are launched with"))
	case len(in.Name) > 253:
		errs = append(errs, field.TooLong(name, in.Name, 253))
	case !dnsSubdomainRE.MatchString(in.Name):
		errs = append(errs, field.Invalid(name, in.Name, msgNodeClassName))
	}
	return errs
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
	return append(errs, validateTags(path.Child("tags"), in.Tags)...)
}

// validateSelector checks a tag selector; byID is the message for Karpenter's ID-selecting keys.
func validateSelector(path *field.Path, selector map[string]string, byID string) field.ErrorList {
	var errs field.ErrorList
	if len(selector) > 20 {
		errs = append(errs, field.TooMany(path, len(selector), 20))
	}
	for _, k := range sortedKeys(selector) {
		if k == "" || selector[k] == "" {
			errs = append(errs, field.Invalid(path.Key(k), selector[k], msgSelectorEmpty))
		}
		if strings.HasPrefix(k, "aws::") || k == "aws-ids" {
			errs = append(errs, field.Invalid(path.Key(k), selector[k], byID))
		}
	}
	return errs
}

func validateTags(path *field.Path, tags map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(tags) > 40 {
		errs = append(errs, field.TooMany(path, len(tags), 40))
	}
	for _, k := range sortedKeys(tags) {
		p := path.Key(k)
		if k == "" || len(k) > 128 {
			errs = append(errs, field.Invalid(p, k, msgTagKeyLength))
		}
		if len(tags[k]) > 256 {
			errs = append(errs, field.Invalid(p, tags[k], msgTagValueLength))
		}
		if strings.HasPrefix(k, "kubernetes.io/cluster/") {
			errs = append(errs, field.Invalid(p, k, msgTagClusterPrefix))
		}
		if slices.Contains(agentTags, k) {
			errs = append(errs, field.Invalid(p, k, msgTagReserved))
		}
	}
	return errs
}

func (in *KubeletConfiguration) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(in.ClusterDNS) > 3 {
		errs = append(errs, field.TooMany(path.Child("clusterDNS"), len(in.ClusterDNS), 3))
	}
	errs = append(errs, between(path.Child("maxPods"), in.MaxPods, 1, 1000, "maxPods must be between 1 and 1000")...)
	errs = append(errs, minimum(path.Child("podsPerCore"), in.PodsPerCore, 0, "podsPerCore must not be negative; 0 means no per-core cap")...)
	errs = append(errs, validateReserved(path.Child("systemReserved"), "systemReserved", in.SystemReserved)...)
	errs = append(errs, validateReserved(path.Child("kubeReserved"), "kubeReserved", in.KubeReserved)...)
	errs = append(errs, validateThresholds(path.Child("evictionHard"), "evictionHard", in.EvictionHard)...)
	errs = append(errs, validateThresholds(path.Child("evictionSoft"), "evictionSoft", in.EvictionSoft)...)
	errs = append(errs, validateGracePeriods(path.Child("evictionSoftGracePeriod"), in.EvictionSoftGracePeriod)...)
	for _, k := range sortedKeys(in.EvictionSoft) {
		if _, ok := in.EvictionSoftGracePeriod[k]; !ok {
			errs = append(errs, field.Invalid(path.Child("evictionSoftGracePeriod"), k, msgEvictionSoftNeedsGrace))
			break // the API server reports the rule once
		}
	}
	for _, k := range sortedKeys(in.EvictionSoftGracePeriod) {
		if _, ok := in.EvictionSoft[k]; !ok {
			errs = append(errs, field.Invalid(path.Child("evictionSoft"), k, msgGraceNeedsEvictionSoft))
			break
		}
	}
	errs = append(errs, minimum(path.Child("evictionMaxPodGracePeriod"), in.EvictionMaxPodGracePeriod, 0,
		"evictionMaxPodGracePeriod must not be negative; set the longest grace period in seconds, such as 60")...)
	errs = append(errs, between(path.Child("imageGCHighThresholdPercent"), in.ImageGCHighThresholdPercent, 0, 100,
		"imageGCHighThresholdPercent must be a percentage between 0 and 100")...)
	errs = append(errs, between(path.Child("imageGCLowThresholdPercent"), in.ImageGCLowThresholdPercent, 0, 100,
		"imageGCLowThresholdPercent must be a percentage between 0 and 100")...)
	if hi, lo := in.ImageGCHighThresholdPercent, in.ImageGCLowThresholdPercent; hi != nil && lo != nil && *hi <= *lo {
		errs = append(errs, field.Invalid(path.Child("imageGCLowThresholdPercent"), *lo, msgImageGCThresholds))
	}
	return errs
}

// validateReserved checks systemReserved or kubeReserved.
func validateReserved(path *field.Path, name string, reserved map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(reserved) > len(reservedResources) {
		errs = append(errs, field.TooMany(path, len(reserved), len(reservedResources)))
	}
	for _, k := range sortedKeys(reserved) {
		if !slices.Contains(reservedResources, k) {
			errs = append(errs, field.Invalid(path.Key(k), k, name+" keys must be cpu, memory, ephemeral-storage or pid"))
		}
		if v := reserved[k]; len(v) > 64 || !isNonNegativeQuantity(v) {
			errs = append(errs, field.Invalid(path.Key(k), v, name+" values must be non-negative quantities such as 100m or 1Gi"))
		}
	}
	return errs
}

// validateThresholds checks evictionHard or evictionSoft.
func validateThresholds(path *field.Path, name string, thresholds map[string]EvictionThreshold) field.ErrorList {
	var errs field.ErrorList
	if len(thresholds) > len(evictionSignals) {
		errs = append(errs, field.TooMany(path, len(thresholds), len(evictionSignals)))
	}
	for _, k := range sortedKeys(thresholds) {
		if !slices.Contains(evictionSignals, k) {
			errs = append(errs, field.Invalid(path.Key(k), k, name+" keys must be "+signalList))
		}
		switch v := string(thresholds[k]); {
		case len(v) > 64:
			errs = append(errs, field.TooLong(path.Key(k), v, 64))
		case !percentageRE.MatchString(v) && !isNonNegativeQuantity(v):
			errs = append(errs, field.Invalid(path.Key(k), v, name+" values must be a percentage such as 10% or a quantity such as 100Mi"))
		}
	}
	return errs
}

func validateGracePeriods(path *field.Path, periods map[string]Duration) field.ErrorList {
	var errs field.ErrorList
	if len(periods) > len(evictionSignals) {
		errs = append(errs, field.TooMany(path, len(periods), len(evictionSignals)))
	}
	for _, k := range sortedKeys(periods) {
		if !slices.Contains(evictionSignals, k) {
			errs = append(errs, field.Invalid(path.Key(k), k, "evictionSoftGracePeriod keys must be "+signalList))
		}
		switch v := string(periods[k]); {
		case len(v) > 64:
			errs = append(errs, field.TooLong(path.Key(k), v, 64))
		case !durationRE.MatchString(v):
			errs = append(errs, field.Invalid(path.Key(k), v, "evictionSoftGracePeriod values must be durations such as 30s or 1m30s (units s, m, h)"))
		}
	}
	return errs
}

const signalList = "memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"

func isNonNegativeQuantity(s string) bool {
	q, err := resource.ParseQuantity(s)
	return err == nil && q.Sign() >= 0
}

func validateAnnotations(path *field.Path, annotations map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(annotations) > 100 {
		errs = append(errs, field.TooMany(path, len(annotations), 100))
	}
	for _, k := range sortedKeys(annotations) {
		if !isQualifiedName(k) {
			errs = append(errs, field.Invalid(path.Key(k), k, msgKeySyntax))
		}
	}
	return errs
}

// validateLabels checks node labels: syntax, the restricted domains, and tenon.dev/nodepool,
// which the agent sets.
func validateLabels(path *field.Path, labels map[string]LabelValue) field.ErrorList {
	var errs field.ErrorList
	if len(labels) > 100 {
		errs = append(errs, field.TooMany(path, len(labels), 100))
	}
	for _, k := range sortedKeys(labels) {
		p := path.Key(k)
		for _, msg := range labelKeyErrors(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		if k == LabelNodePool {
			errs = append(errs, field.Invalid(p, k, msgNodePoolLabel))
		}
		errs = append(errs, validateLabelValue(p, string(labels[k]))...)
	}
	return errs
}

func validateLabelValue(path *field.Path, v string) field.ErrorList {
	switch {
	case len(v) > 63:
		return field.ErrorList{field.TooLong(path, v, 63)}
	case !labelValueRE.MatchString(v):
		return field.ErrorList{field.Invalid(path, v, msgValueSyntax)}
	}
	return nil
}

// labelKeyErrors returns the syntax and restricted-domain problems of a label key, in the
// order of the CEL rules.
func labelKeyErrors(key string) []string {
	var msgs []string
	if !isQualifiedName(key) {
		msgs = append(msgs, msgKeySyntax)
	}
	if !slices.Contains(wellKnownKubernetesKeys, key) && !openKubernetesDomainRE.MatchString(key) && kubernetesDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainKubernetes)
	}
	if k8sDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainK8s)
	}
	if karpenterDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainKarpenter)
	}
	if !slices.Contains(wellKnownTenonKeys, key) && tenonDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainTenon)
	}
	return msgs
}

func isQualifiedName(k string) bool {
	return len(k) <= 316 && qualifiedNameRE.MatchString(k) && qualifiedNameLengthRE.MatchString(k)
}

func validateRequirements(path *field.Path, reqs []NodeSelectorRequirement) field.ErrorList {
	var errs field.ErrorList
	if len(reqs) > 100 {
		errs = append(errs, field.TooMany(path, len(reqs), 100))
	}
	for i := range reqs {
		errs = append(errs, reqs[i].validate(path.Index(i))...)
	}
	return errs
}

func (in *NodeSelectorRequirement) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	keyPath, valuesPath := path.Child("key"), path.Child("values")
	switch {
	case in.Key == "":
		errs = append(errs, field.Required(keyPath, "set key to a node label such as node.kubernetes.io/instance-type"))
	case len(in.Key) > 316:
		errs = append(errs, field.TooLong(keyPath, in.Key, 316))
	default:
		for _, msg := range labelKeyErrors(in.Key) {
			errs = append(errs, field.Invalid(keyPath, in.Key, msg))
		}
		if in.Key == LabelNodePool {
			errs = append(errs, field.Invalid(keyPath, in.Key, msgNodePoolReq))
		}
	}
	switch {
	case in.Operator == "":
		errs = append(errs, field.Required(path.Child("operator"), "set operator to one of In, NotIn, Exists, DoesNotExist, Gt, Lt"))
	case !slices.Contains(supportedOperators, string(in.Operator)):
		errs = append(errs, field.NotSupported(path.Child("operator"), in.Operator, supportedOperators))
	}
	if len(in.Values) > 1000 {
		errs = append(errs, field.TooMany(valuesPath, len(in.Values), 1000))
	}
	for j, v := range in.Values {
		errs = append(errs, validateLabelValue(valuesPath.Index(j), v)...)
	}
	switch in.Operator {
	case corev1.NodeSelectorOpIn:
		if len(in.Values) == 0 {
			errs = append(errs, field.Invalid(valuesPath, in.Values, msgInValues))
		}
	case corev1.NodeSelectorOpNotIn:
		if len(in.Values) == 0 {
			errs = append(errs, field.Invalid(valuesPath, in.Values, msgNotInValues))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(in.Values) != 0 {
			errs = append(errs, field.Invalid(valuesPath, in.Values, msgExistsValues))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(in.Values) != 1 || !integerValueRE.MatchString(in.Values[0]) {
			errs = append(errs, field.Invalid(valuesPath, in.Values, msgIntegerValues))
		}
	}
	return errs
}

// validateTaints checks a list of taints: key, value, effect, and that no key and effect pair
// repeats (repeat is the message for that).
func validateTaints(path *field.Path, taints []Taint, repeat string) field.ErrorList {
	var errs field.ErrorList
	if len(taints) > 50 {
		errs = append(errs, field.TooMany(path, len(taints), 50))
	}
	for i, t := range taints {
		p := path.Index(i)
		switch {
		case t.Key == "":
			errs = append(errs, field.Required(p.Child("key"), "set key to a label key such as example.com/dedicated"))
		case len(t.Key) > 316:
			errs = append(errs, field.TooLong(p.Child("key"), t.Key, 316))
		case !isQualifiedName(t.Key):
			errs = append(errs, field.Invalid(p.Child("key"), t.Key, msgKeySyntax))
		}
		errs = append(errs, validateLabelValue(p.Child("value"), t.Value)...)
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(p.Child("effect"), "set effect to NoSchedule, PreferNoSchedule or NoExecute"))
		case !slices.Contains(supportedTaintEffects, string(t.Effect)):
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, supportedTaintEffects))
		}
		if slices.ContainsFunc(taints[:i], func(o Taint) bool { return o.Key == t.Key && o.Effect == t.Effect }) {
			errs = append(errs, field.Invalid(p, t.Key, repeat))
		}
	}
	return errs
}

// validateStartupTaintRepeats reports startup taints that repeat a taint's key and effect.
func validateStartupTaintRepeats(path *field.Path, taints, startupTaints []Taint) field.ErrorList {
	var errs field.ErrorList
	for i, s := range startupTaints {
		if slices.ContainsFunc(taints, func(t Taint) bool { return t.Key == s.Key && t.Effect == s.Effect }) {
			errs = append(errs, field.Invalid(path.Index(i), s.Key, msgStartupTaintRepeat))
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

// sortedKeys returns the keys of m in order, so errors come out in a stable order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
