package scheduling

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// RequirementSpec is one requirement as users write it: Karpenter's
// NodeSelectorRequirementWithMinValues without the Kubernetes types, so
// engine/api can convert into it without this package importing engine/api.
type RequirementSpec struct {
	// Key is the label key, e.g. "kubernetes.io/arch".
	Key string
	// Operator is one of Operators().
	Operator string
	// Values are the operand: one or more for In and NotIn, exactly one
	// integer for Gt, Lt, Gte and Lte, none for Exists and DoesNotExist.
	Values []string
	// MinValues, when set, is the least number of distinct values to keep.
	MinValues *int
}

// ParseRequirement validates spec and returns its Requirement. Errors name the
// problem and the fix, e.g. `operator Gt takes exactly one integer value, got
// [4 8]`.
func ParseRequirement(spec RequirementSpec) (Requirement, error) {
	if spec.Key == "" {
		return Requirement{}, fmt.Errorf("empty key: set key to a label name such as %s", LabelArch)
	}
	r, err := parseOperator(spec)
	if err != nil {
		return Requirement{}, fmt.Errorf("key %s: %w", spec.Key, err)
	}
	if err := checkMinValues(spec, r); err != nil {
		return Requirement{}, fmt.Errorf("key %s: %w", spec.Key, err)
	}
	if spec.MinValues != nil {
		r = r.WithMinValues(*spec.MinValues)
	}
	return r, nil
}

func parseOperator(spec RequirementSpec) (Requirement, error) {
	switch spec.Operator {
	case OpIn, OpNotIn:
		if len(spec.Values) == 0 {
			return Requirement{}, fmt.Errorf("operator %s needs at least one value; add values or use %s", spec.Operator, alternativeFor(spec.Operator))
		}
		if spec.Operator == OpIn {
			return In(spec.Key, spec.Values...), nil
		}
		return NotIn(spec.Key, spec.Values...), nil
	case OpExists, OpDoesNotExist:
		if len(spec.Values) > 0 {
			return Requirement{}, fmt.Errorf("operator %s takes no values, got %s; remove the values", spec.Operator, formatValues(spec.Values))
		}
		if spec.Operator == OpExists {
			return Exists(spec.Key), nil
		}
		return DoesNotExist(spec.Key), nil
	case OpGt, OpLt, OpGte, OpLte:
		n, err := parseBound(spec)
		if err != nil {
			return Requirement{}, err
		}
		switch spec.Operator {
		case OpGt:
			return Gt(spec.Key, n), nil
		case OpLt:
			return Lt(spec.Key, n), nil
		case OpGte:
			return Gte(spec.Key, n), nil
		default:
			return Lte(spec.Key, n), nil
		}
	default:
		return Requirement{}, fmt.Errorf("unknown operator %q; use one of %s", spec.Operator, strings.Join(Operators(), ", "))
	}
}

func parseBound(spec RequirementSpec) (int64, error) {
	if len(spec.Values) != 1 {
		return 0, fmt.Errorf("operator %s takes exactly one integer value, got %s; write one, e.g. [\"4\"]", spec.Operator, formatValues(spec.Values))
	}
	n, err := strconv.ParseInt(spec.Values[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("operator %s takes exactly one integer value, got %q; write a base-10 integer, e.g. \"4\"", spec.Operator, spec.Values[0])
	}
	return n, nil
}

func checkMinValues(spec RequirementSpec, r Requirement) error {
	if spec.MinValues == nil {
		return nil
	}
	if *spec.MinValues < 1 {
		return fmt.Errorf("minValues must be at least 1, got %d; omit it or raise it", *spec.MinValues)
	}
	if spec.Operator == OpIn && *spec.MinValues > r.Len() {
		return fmt.Errorf("minValues %d is more than the %d distinct values of In; lower minValues or add values", *spec.MinValues, r.Len())
	}
	return nil
}

func alternativeFor(operator string) string {
	if operator == OpIn {
		return OpExists
	}
	return OpExists + " or drop the requirement"
}

// Specs returns r as the requirements a user would write, which together are
// equal to r (ParseRequirement of each, intersected, gives r back): one spec
// for In, NotIn, Exists and DoesNotExist; for a bounded set, a Gt and/or Lt
// (Gte/Lte only at the int64 limits) and a NotIn for excluded values. An In
// left with fewer values than its MinValues, which no node can satisfy, gives
// specs that ParseRequirement rejects.
func (r Requirement) Specs() []RequirementSpec {
	spec := func(op string, values ...string) RequirementSpec {
		return RequirementSpec{Key: r.Key, Operator: op, Values: values, MinValues: maxIntPtr(r.MinValues, nil)}
	}
	switch op := r.Operator(); {
	case op == OpDoesNotExist:
		return []RequirementSpec{spec(op)}
	case op == OpIn || op == OpNotIn:
		return []RequirementSpec{spec(op, slices.Clone(r.values)...)}
	case !r.isBounded():
		return []RequirementSpec{spec(OpExists)}
	}
	var specs []RequirementSpec
	for _, b := range r.bounds() {
		specs = append(specs, spec(b.operator, strconv.FormatInt(b.value, 10)))
	}
	if len(r.values) > 0 {
		specs = append(specs, spec(OpNotIn, r.values...))
	}
	return specs
}

// bound is one printable integer bound of a requirement.
type bound struct {
	operator string
	value    int64
}

// bounds returns r's bounds as Gt/Lt where expressible, else Gte/Lte.
func (r Requirement) bounds() []bound {
	var out []bound
	if r.hasLower {
		if r.lower == minInt64 {
			out = append(out, bound{OpGte, r.lower})
		} else {
			out = append(out, bound{OpGt, r.lower - 1})
		}
	}
	if r.hasUpper {
		if r.upper == maxInt64 {
			out = append(out, bound{OpLte, r.upper})
		} else {
			out = append(out, bound{OpLt, r.upper + 1})
		}
	}
	return out
}
