package v1

import (
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// The expressions below are the ones in the CEL rules and patterns of the markers, character
// for character, so Go and the API server accept the same strings. None uses a backslash, so
// the markers need no escaping.
var (
	qualifiedNameRE       = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	qualifiedNameLengthRE = regexp.MustCompile(`^([^/]{1,253}/)?[^/]{1,63}$`)
	labelValueRE          = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	dnsSubdomainRE        = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	integerValueRE        = regexp.MustCompile(`^[0-9]{1,18}$`)
	durationRE            = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)

	kubernetesDomainRE     = regexp.MustCompile(`^([^/]+[.])?kubernetes[.]io/`)
	openKubernetesDomainRE = regexp.MustCompile(`^([^/]+[.])?(node|node-restriction)[.]kubernetes[.]io/`)
	k8sDomainRE            = regexp.MustCompile(`^([^/]+[.])?k8s[.]io/`)
	kopsDomainRE           = regexp.MustCompile(`^([^/]+[.])?kops[.]k8s[.]io/`)
	karpenterDomainRE      = regexp.MustCompile(`^([^/]+[.])?karpenter[.]sh/`)
	tenonDomainRE          = regexp.MustCompile(`^([^/]+[.])?tenon[.]dev/`)
)

// Messages shared by Go and CEL. Each says what is wrong and how to fix it.
const (
	msgKeySyntax        = "key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	msgValueSyntax      = "value must be up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	msgDomainKubernetes = "label domain kubernetes.io is restricted; use kubernetes.io/arch, kubernetes.io/os, topology.kubernetes.io/zone or region, a node.kubernetes.io label, or a key in your own domain"
	msgDomainK8s        = "label domain k8s.io is restricted (kops.k8s.io excepted); use a key in your own domain"
	msgKarpenterAWS     = "Karpenter's instance labels are restricted; use the tenon.dev equivalent, such as tenon.dev/instance-family for karpenter.k8s.aws/instance-family"
	msgDomainKarpenter  = "label domain karpenter.sh is restricted; use the tenon.dev equivalent, such as tenon.dev/capacity-type for karpenter.sh/capacity-type"
	msgDomainTenon      = "label domain tenon.dev is restricted; use a well-known label such as tenon.dev/capacity-type or tenon.dev/instance-family, or a key in your own domain"
	msgNodePoolLabel    = "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove it"
	msgNodePoolReq      = "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove the requirement"

	msgInValues       = "operator In requires at least one value; add values or use Exists"
	msgNotInValues    = "operator NotIn requires at least one value; add values or use DoesNotExist"
	msgExistsValues   = "operators Exists and DoesNotExist take no values; remove values or use In or NotIn"
	msgIntegerValues  = "operators Gt, Lt, Gte and Lte take exactly one value, a non-negative integer such as '4'; set values to a single number"
	msgMinValues      = "minValues is more than the number of values; lower minValues or add values"
	msgMinValuesRange = "minValues must be between 1 and 50"

	msgStartupTaintRepeat = "a startup taint repeats a taint's key and effect; keep it in taints or startupTaints, not both"

	msgNodeClassGroupImmutable = "nodeClassRef.group is immutable; create a new NodePool to use another group"
	msgNodeClassKindImmutable  = "nodeClassRef.kind is immutable; create a new NodePool to use another kind"
	msgNodeClassName           = "name must be a NodeClass name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	msgNodeClassRefRequired    = "set nodeClassRef.name to the NodeClass the nodes are launched with"
	msgNodeClassNameRequired   = "set the name of the NodeClass the nodes are launched with"

	msgExpireAfter            = "expireAfter must be a duration such as 720h or 1h30m (units s, m, h), or Never"
	msgTerminationGracePeriod = "terminationGracePeriod must be a duration such as 30m or 1h30m (units s, m, h)"
)

// supportedOperators are the requirement operators, in the order the CRD's enum lists them.
var supportedOperators = []string{
	string(corev1.NodeSelectorOpIn), string(corev1.NodeSelectorOpNotIn),
	string(corev1.NodeSelectorOpExists), string(corev1.NodeSelectorOpDoesNotExist),
	string(corev1.NodeSelectorOpGt), string(corev1.NodeSelectorOpLt),
	string(NodeSelectorOpGte), string(NodeSelectorOpLte),
}

var supportedTaintEffects = []string{
	string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute),
}

// validateObjectName checks metadata.name (or generateName) as the API server does for
// cluster-scoped objects.
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

// labelKeyErrors returns the syntax and restricted-domain problems of a label key, in the
// order of the CEL rules. What is allowed follows the scheduling package's well-known labels
// (less kubernetes.io/hostname); the markers list them literally, and a test keeps the two in
// step.
func labelKeyErrors(key string) []string {
	var msgs []string
	if !isQualifiedName(key) {
		msgs = append(msgs, msgKeySyntax)
	}
	wellKnown := scheduling.IsWellKnownLabel(key) && key != scheduling.LabelHostname
	if !wellKnown && !openKubernetesDomainRE.MatchString(key) && kubernetesDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainKubernetes)
	}
	if !kopsDomainRE.MatchString(key) && k8sDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainK8s)
	}
	if karpenterDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainKarpenter)
	}
	if _, ok := scheduling.FromKarpenterLabel(key); ok && strings.HasPrefix(key, "karpenter.k8s.aws/") {
		msgs = append(msgs, msgKarpenterAWS)
	}
	if !wellKnown && tenonDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainTenon)
	}
	return msgs
}

func isLabelValue(v string) bool { return len(v) <= 63 && labelValueRE.MatchString(v) }

func isQualifiedName(k string) bool {
	return len(k) <= 316 && qualifiedNameRE.MatchString(k) && qualifiedNameLengthRE.MatchString(k)
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

// ValidateLabels checks node labels as a NodePool template sets them: label syntax, the
// restricted domains, and tenon.dev/nodepool, which the agent sets.
func ValidateLabels(path *field.Path, labels map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(labels) > 100 {
		errs = append(errs, field.TooMany(path, len(labels), 100))
	}
	for _, k := range sortedKeys(labels) {
		for _, msg := range labelKeyErrors(k) {
			errs = append(errs, field.Invalid(path.Key(k), k, msg))
		}
		if k == LabelNodePool {
			errs = append(errs, field.Invalid(path.Key(k), k, msgNodePoolLabel))
		}
		if !isLabelValue(labels[k]) {
			errs = append(errs, field.Invalid(path.Key(k), labels[k], msgValueSyntax))
		}
	}
	return errs
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

// ValidateRequirements checks a list of requirements: label keys and their restricted domains,
// operators, the shape of values for each operator, and minValues.
func ValidateRequirements(path *field.Path, reqs []NodeSelectorRequirementWithMinValues) field.ErrorList {
	var errs field.ErrorList
	if len(reqs) > 100 {
		errs = append(errs, field.TooMany(path, len(reqs), 100))
	}
	for i := range reqs {
		errs = append(errs, validateRequirement(path.Index(i), reqs[i])...)
	}
	return errs
}

func validateRequirement(path *field.Path, r NodeSelectorRequirementWithMinValues) field.ErrorList {
	var errs field.ErrorList
	keyPath, valuesPath := path.Child("key"), path.Child("values")
	if r.Key == "" {
		errs = append(errs, field.Required(keyPath, "set key to a node label such as node.kubernetes.io/instance-type"))
	} else {
		for _, msg := range labelKeyErrors(r.Key) {
			errs = append(errs, field.Invalid(keyPath, r.Key, msg))
		}
	}
	if r.Operator == "" {
		errs = append(errs, field.Required(path.Child("operator"), "set operator to one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte"))
	} else if !slices.Contains(supportedOperators, string(r.Operator)) {
		errs = append(errs, field.NotSupported(path.Child("operator"), r.Operator, supportedOperators))
	}
	if len(r.Values) > 1000 {
		errs = append(errs, field.TooMany(valuesPath, len(r.Values), 1000))
	}
	for j, v := range r.Values {
		if !isLabelValue(v) {
			errs = append(errs, field.Invalid(valuesPath.Index(j), v, msgValueSyntax))
		}
	}
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Invalid(valuesPath, r.Values, msgInValues))
		}
	case corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Invalid(valuesPath, r.Values, msgNotInValues))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) != 0 {
			errs = append(errs, field.Invalid(valuesPath, r.Values, msgExistsValues))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte:
		if len(r.Values) != 1 || !integerValueRE.MatchString(r.Values[0]) {
			errs = append(errs, field.Invalid(valuesPath, r.Values, msgIntegerValues))
		}
	}
	if r.MinValues != nil {
		mv := *r.MinValues
		switch {
		case mv < 1 || mv > 50:
			errs = append(errs, field.Invalid(path.Child("minValues"), mv, msgMinValuesRange))
		case r.Operator == corev1.NodeSelectorOpIn && len(r.Values) < int(mv):
			errs = append(errs, field.Invalid(path.Child("minValues"), mv, msgMinValues))
		}
	}
	return errs
}

// validateTaints checks a list of taints: key syntax, value syntax, effect, and that no key and
// effect pair repeats. name is the list's field name (taints or startupTaints) for the message.
func validateTaints(path *field.Path, name string, taints []Taint) field.ErrorList {
	var errs field.ErrorList
	if len(taints) > 50 {
		errs = append(errs, field.TooMany(path, len(taints), 50))
	}
	type keyEffect struct {
		key    string
		effect corev1.TaintEffect
	}
	seen := map[keyEffect]bool{}
	for i, t := range taints {
		p := path.Index(i)
		switch {
		case t.Key == "":
			errs = append(errs, field.Required(p.Child("key"), "set key to a label key such as example.com/dedicated"))
		case !isQualifiedName(t.Key):
			errs = append(errs, field.Invalid(p.Child("key"), t.Key, msgKeySyntax))
		}
		if !isLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, msgValueSyntax))
		}
		if t.Effect == "" {
			errs = append(errs, field.Required(p.Child("effect"), "set effect to NoSchedule, PreferNoSchedule or NoExecute"))
		} else if !slices.Contains(supportedTaintEffects, string(t.Effect)) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, supportedTaintEffects))
		}
		ke := keyEffect{t.Key, t.Effect}
		if seen[ke] {
			errs = append(errs, field.Invalid(p, t.Key, name+" repeat a key and effect; remove the duplicate"))
		}
		seen[ke] = true
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

// validateNodeClassRef checks a reference to a NodeClass. Empty group and kind are left to
// the defaults.
func validateNodeClassRef(path *field.Path, ref *NodeClassReference) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(path, msgNodeClassRefRequired)}
	}
	var errs field.ErrorList
	if ref.Group != "" && ref.Group != Group {
		errs = append(errs, field.NotSupported(path.Child("group"), ref.Group, []string{Group}))
	}
	if ref.Kind != "" && ref.Kind != NodeClassKind {
		errs = append(errs, field.NotSupported(path.Child("kind"), ref.Kind, []string{NodeClassKind}))
	}
	switch {
	case ref.Name == "":
		errs = append(errs, field.Required(path.Child("name"), msgNodeClassNameRequired))
	case len(ref.Name) > 253:
		errs = append(errs, field.TooLong(path.Child("name"), ref.Name, 253))
	case !dnsSubdomainRE.MatchString(ref.Name):
		errs = append(errs, field.Invalid(path.Child("name"), ref.Name, msgNodeClassName))
	}
	return errs
}

// validateNodeClassRefUpdate reports a changed group or kind, which cannot change.
func validateNodeClassRefUpdate(path *field.Path, ref, old *NodeClassReference) field.ErrorList {
	if ref == nil || old == nil {
		return nil
	}
	var errs field.ErrorList
	if orDefault(ref.Group, Group) != orDefault(old.Group, Group) {
		errs = append(errs, field.Invalid(path.Child("group"), orDefault(ref.Group, Group), msgNodeClassGroupImmutable))
	}
	if orDefault(ref.Kind, NodeClassKind) != orDefault(old.Kind, NodeClassKind) {
		errs = append(errs, field.Invalid(path.Child("kind"), orDefault(ref.Kind, NodeClassKind), msgNodeClassKindImmutable))
	}
	return errs
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// validateNillableDuration checks a duration that may be Never; empty is left to the caller.
func validateNillableDuration(path *field.Path, d NillableDuration, msg string) field.ErrorList {
	switch {
	case d == "" || d.IsNever():
		return nil
	case len(d) > 64:
		return field.ErrorList{field.TooLong(path, string(d), 64)}
	case !durationRE.MatchString(string(d)):
		return field.ErrorList{field.Invalid(path, string(d), msg)}
	}
	return nil
}

// validateDuration checks an optional duration without Never.
func validateDuration(path *field.Path, d *Duration, re *regexp.Regexp, msg string) field.ErrorList {
	switch {
	case d == nil:
		return nil
	case len(*d) > 64:
		return field.ErrorList{field.TooLong(path, string(*d), 64)}
	case !re.MatchString(string(*d)):
		return field.ErrorList{field.Invalid(path, string(*d), msg)}
	}
	return nil
}
