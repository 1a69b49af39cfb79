package provider

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The allowed values named in descriptions come from the lists the engine validates against
// (engine/api, engine/scheduling, engine/agent/manifests), rendered here, so that the docs
// tfplugindocs generates cannot drift from what validation accepts.

// codeList renders allowed values as the docs list them, each in backticks, the last after
// "or": `a`, `b` or `c`. A note follows its value in parentheses, such as "the default".
func codeList[S ~string](values []S, notes map[S]string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = "`" + string(v) + "`"
		if note := notes[v]; note != "" {
			parts[i] += " (" + note + ")"
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// codes renders values each in backticks, separated by commas: `a`, `b`, `c`.
func codes[S ~string](values []S) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = "`" + string(v) + "`"
	}
	return strings.Join(parts, ", ")
}

// operatorsDoc describes requirement operators: those that compare label values, then those
// that compare integer labels.
func operatorsDoc(set, integer []corev1.NodeSelectorOperator) string {
	if len(integer) == 0 {
		return codes(set)
	}
	return codes(set) + ", and for integer labels " + codes(integer)
}
