package apivalidation

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

const (
	maxRequirements = 100
	maxValues       = 1000
)

// Requirement is a version's requirement type: it knows its core form.
type Requirement interface {
	ToCore() corev1.NodeSelectorRequirement
}

// Operators are the requirement operators a version supports, in the order of its CRD's enum;
// those beyond In, NotIn, Exists and DoesNotExist compare integers.
type Operators struct {
	// Supported lists the operators.
	Supported []corev1.NodeSelectorOperator
	// MsgIntegerValues is the message of the CEL rule on the values of integer operators.
	MsgIntegerValues string
}

// setOperators compare label values as strings; every other operator compares integers.
var setOperators = []corev1.NodeSelectorOperator{
	corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist,
}

// Set returns the supported operators that compare label values as strings, in order.
func (o Operators) Set() []corev1.NodeSelectorOperator {
	return slices.DeleteFunc(slices.Clone(o.Supported), func(op corev1.NodeSelectorOperator) bool {
		return !slices.Contains(setOperators, op)
	})
}

// Integer returns the supported operators that compare integer labels, in order.
func (o Operators) Integer() []corev1.NodeSelectorOperator {
	return slices.DeleteFunc(slices.Clone(o.Supported), func(op corev1.NodeSelectorOperator) bool {
		return slices.Contains(setOperators, op)
	})
}

// Requirements checks a list of requirements: label keys and their restricted domains,
// operators, and the shape of the values for each operator.
func Requirements[R Requirement](path *field.Path, reqs []R, ops Operators) field.ErrorList {
	var errs field.ErrorList
	if len(reqs) > maxRequirements {
		errs = append(errs, field.TooMany(path, len(reqs), maxRequirements))
	}
	for i := range reqs {
		errs = append(errs, requirement(path.Index(i), reqs[i].ToCore(), ops)...)
	}
	return errs
}

func requirement(path *field.Path, r corev1.NodeSelectorRequirement, ops Operators) field.ErrorList {
	var errs field.ErrorList
	keyPath, valuesPath := path.Child("key"), path.Child("values")
	switch {
	case r.Key == "":
		errs = append(errs, field.Required(keyPath, "set key to a node label such as node.kubernetes.io/instance-type"))
	case len(r.Key) > maxLabelKey:
		errs = append(errs, field.TooLong(keyPath, r.Key, maxLabelKey))
	default:
		for _, msg := range requirementKeyErrors(r.Key) {
			errs = append(errs, field.Invalid(keyPath, r.Key, msg))
		}
	}
	supported := operatorNames(ops.Supported)
	switch {
	case r.Operator == "":
		errs = append(errs, field.Required(path.Child("operator"), "set operator to one of "+strings.Join(supported, ", ")))
	case !slices.Contains(ops.Supported, r.Operator):
		errs = append(errs, field.NotSupported(path.Child("operator"), r.Operator, supported))
	}
	if len(r.Values) > maxValues {
		errs = append(errs, field.TooMany(valuesPath, len(r.Values), maxValues))
	}
	for j, v := range r.Values {
		errs = append(errs, labelValue(valuesPath.Index(j), v)...)
	}
	if capacityTypeKey(r.Key) && (r.Operator == corev1.NodeSelectorOpIn || r.Operator == corev1.NodeSelectorOpNotIn) &&
		slices.ContainsFunc(r.Values, func(v string) bool { return !slices.Contains(capacityTypes(), v) }) {
		errs = append(errs, field.Invalid(valuesPath, r.Values, msgCapacityType))
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
	default:
		if slices.Contains(ops.Integer(), r.Operator) && (len(r.Values) != 1 || !integerValueRE.MatchString(r.Values[0])) {
			errs = append(errs, field.Invalid(valuesPath, r.Values, ops.MsgIntegerValues))
		}
	}
	return errs
}

// capacityTypeKey reports whether key is the capacity type label, in Tenon's
// or Karpenter's spelling.
func capacityTypeKey(key string) bool {
	return key == scheduling.LabelCapacityType || key == scheduling.KarpenterAlias(scheduling.LabelCapacityType)
}

// capacityTypes are the values of the capacity type label.
func capacityTypes() []string {
	return []string{scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot, scheduling.CapacityTypeReserved}
}

// ForbidRequirementKey reports each requirement on key, which the agent sets itself; msg says
// so.
func ForbidRequirementKey[R Requirement](path *field.Path, reqs []R, key, msg string) field.ErrorList {
	var errs field.ErrorList
	for i := range reqs {
		if r := reqs[i].ToCore(); r.Key == key {
			errs = append(errs, field.Invalid(path.Index(i).Child("key"), r.Key, msg))
		}
	}
	return errs
}

func operatorNames(ops []corev1.NodeSelectorOperator) []string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = string(op)
	}
	return names
}
