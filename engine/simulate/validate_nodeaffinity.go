package simulate

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// nodeSelectorOperators are the operators of a node selector requirement,
// as the API server accepts them.
var nodeSelectorOperators = []corev1.NodeSelectorOperator{
	corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
	corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt,
}

// validateNodeAffinity checks node affinity as the API server does: an
// operator it does not know, or values that do not suit the operator, are
// bad input, not a pod the engine reports as unschedulable.
func validateNodeAffinity(path *field.Path, na *corev1.NodeAffinity) field.ErrorList {
	if na == nil {
		return nil
	}
	var errs field.ErrorList
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		p := path.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
		if len(req.NodeSelectorTerms) == 0 {
			errs = append(errs, field.Required(p, "at least one term"))
		}
		for i := range req.NodeSelectorTerms {
			errs = append(errs, validateNodeSelectorTerm(p.Index(i), &req.NodeSelectorTerms[i])...)
		}
	}
	p := path.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		if t.Weight < 1 || t.Weight > 100 {
			errs = append(errs, field.Invalid(p.Index(i).Child("weight"), t.Weight, "must be between 1 and 100"))
		}
		errs = append(errs, validateNodeSelectorTerm(p.Index(i).Child("preference"), &t.Preference)...)
	}
	return errs
}

func validateNodeSelectorTerm(path *field.Path, t *corev1.NodeSelectorTerm) field.ErrorList {
	var errs field.ErrorList
	for i, r := range t.MatchExpressions {
		p := path.Child("matchExpressions").Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(r.Key, p.Child("key"))...)
		errs = append(errs, validateNodeSelectorValues(p, r)...)
	}
	for i, r := range t.MatchFields {
		p := path.Child("matchFields").Index(i)
		if r.Key != metav1ObjectNameField {
			errs = append(errs, field.NotSupported(p.Child("key"), r.Key, []string{metav1ObjectNameField}))
		}
		switch {
		case r.Operator != corev1.NodeSelectorOpIn && r.Operator != corev1.NodeSelectorOpNotIn:
			errs = append(errs, field.NotSupported(p.Child("operator"), r.Operator, []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn}))
		case len(r.Values) != 1:
			errs = append(errs, field.Required(p.Child("values"), "must have exactly one value, the node's name"))
		}
	}
	return errs
}

// metav1ObjectNameField is the one field a matchFields requirement may name.
const metav1ObjectNameField = "metadata.name"

// validateNodeSelectorValues checks a requirement's operator and that its
// values suit it.
func validateNodeSelectorValues(path *field.Path, r corev1.NodeSelectorRequirement) field.ErrorList {
	values := path.Child("values")
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return field.ErrorList{field.Required(values, "must be specified when operator is In or NotIn")}
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			return field.ErrorList{field.Forbidden(values, "may not be specified when operator is Exists or DoesNotExist")}
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return field.ErrorList{field.Required(values, "must be specified, with one value, when operator is Gt or Lt")}
		}
		if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			return field.ErrorList{field.Invalid(values.Index(0), r.Values[0], "must be an integer when operator is Gt or Lt")}
		}
	default:
		return field.ErrorList{field.NotSupported(path.Child("operator"), r.Operator, nodeSelectorOperators)}
	}
	return nil
}
