package manifest

import (
	"strconv"
	"strings"
	"unicode"
)

// Printable returns s with every character that could break a line, move
// the cursor or reorder text escaped as Go writes it in a quoted string
// (\n, \r, \x1b, \u2028, \u202e, ...). Names and keys read from input (a
// field named "x\ndata ...", an object named with a terminal escape) pass
// through it before they reach a message, a comment in generated HCL or
// YAML, or a log: there they stay one line of inert text.
func Printable(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		if !unsafeRune(r) {
			sb.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		sb.WriteString(q[1 : len(q)-1])
	}
	return sb.String()
}

// unsafeRune reports whether r is a control character (C0, DEL, C1: NEL
// included), a line or paragraph separator, a bidirectional control (which
// can make text read in another order than it parses), another invisible
// format character, or not valid UTF-8.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r == unicode.ReplacementChar ||
		unicode.In(r, unicode.Zl, unicode.Zp, unicode.Cf, unicode.Bidi_Control)
}
