package v1

import (
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
)

// Messages of the CEL rules only this version has. The rest are apivalidation's.
const (
	msgNodePoolLabel = "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove it"
	msgNodePoolReq   = "label tenon.dev/nodepool is restricted: the agent sets it to the pool's name; remove the requirement"

	msgIntegerValues  = "operators Gt, Lt, Gte and Lte take exactly one value, a non-negative integer such as '4'; set values to a single number"
	msgMinValues      = "minValues is more than the number of values; lower minValues or add values"
	msgMinValuesRange = "minValues must be between 1 and 50"

	msgNodeClassGroupImmutable = "nodeClassRef.group is immutable; create a new NodePool to use another group"
	msgNodeClassKindImmutable  = "nodeClassRef.kind is immutable; create a new NodePool to use another kind"
	msgNodeClassRefRequired    = "set nodeClassRef.name to the NodeClass the nodes are launched with"
	msgNodeClassNameRequired   = "set the name of the NodeClass the nodes are launched with"

	msgExpireAfter            = "expireAfter must be a duration such as 720h or 1h30m (units s, m, h), or Never"
	msgTerminationGracePeriod = "terminationGracePeriod must be a duration such as 30m or 1h30m (units s, m, h)"
)

// operators are the requirement operators, in the order the CRD's enum lists them.
var operators = apivalidation.Operators{
	Supported: []corev1.NodeSelectorOperator{
		corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist,
		corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte,
	},
	MsgIntegerValues: msgIntegerValues,
}

// ValidateLabels checks node labels as a NodePool template sets them: label syntax, the
// restricted domains, and tenon.dev/nodepool, which the agent sets.
func ValidateLabels(path *field.Path, labels map[string]string) field.ErrorList {
	return apivalidation.Labels(path, labels, msgNodePoolLabel)
}

// ValidateRequirements checks a list of requirements: label keys and their restricted domains,
// operators, the shape of values for each operator, and minValues.
func ValidateRequirements(path *field.Path, reqs []NodeSelectorRequirementWithMinValues) field.ErrorList {
	errs := apivalidation.Requirements(path, reqs, operators)
	for i, r := range reqs {
		errs = append(errs, validateMinValues(path.Index(i).Child("minValues"), r)...)
	}
	return errs
}

func validateMinValues(path *field.Path, r NodeSelectorRequirementWithMinValues) field.ErrorList {
	if r.MinValues == nil {
		return nil
	}
	switch mv := *r.MinValues; {
	case mv < 1 || mv > 50:
		return field.ErrorList{field.Invalid(path, mv, msgMinValuesRange)}
	case r.Operator == corev1.NodeSelectorOpIn && len(r.Values) < int(mv):
		return field.ErrorList{field.Invalid(path, mv, msgMinValues)}
	}
	return nil
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
	return append(errs, apivalidation.NodeClassName(path.Child("name"), ref.Name, msgNodeClassNameRequired)...)
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
	case !apivalidation.DurationRE.MatchString(string(d)):
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
