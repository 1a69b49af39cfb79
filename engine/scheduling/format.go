package scheduling

import (
	"fmt"
	"strconv"
	"strings"
)

// maxShownValues caps how many values String prints, so an error about a
// requirement on hundreds of instance types stays readable.
const maxShownValues = 10

// String returns r in the form users write it: `key In [a b]`,
// `key NotIn [a]`, `key Exists`, `key DoesNotExist`, `key Gt 4 Lt 16`,
// followed by ` minValues N` when set. Long value lists are shortened.
func (r Requirement) String() string {
	return r.Key + " " + r.describe()
}

// describe is String without the key, for messages that name the key once.
func (r Requirement) describe() string {
	var b strings.Builder
	switch op := r.Operator(); {
	case op == OpIn || op == OpNotIn:
		b.WriteString(op + " " + formatValues(r.values))
	case op == OpDoesNotExist || !r.isBounded():
		b.WriteString(op)
	default:
		for i, bd := range r.bounds() {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(bd.operator + " " + strconv.FormatInt(bd.value, 10))
		}
		if len(r.values) > 0 {
			b.WriteString(" " + OpNotIn + " " + formatValues(r.values))
		}
	}
	if r.MinValues != nil {
		fmt.Fprintf(&b, " minValues %d", *r.MinValues)
	}
	return b.String()
}

// formatValues prints values as `[a b c]`, eliding all but the first few.
func formatValues(values []string) string {
	if len(values) <= maxShownValues {
		return "[" + strings.Join(values, " ") + "]"
	}
	return fmt.Sprintf("[%s and %d more]", strings.Join(values[:maxShownValues], " "), len(values)-maxShownValues)
}
