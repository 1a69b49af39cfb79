package manifest

import "strings"

// Error is a problem with one object of one manifest file, at one field. It
// reads `file: object: field: detail`, the object and field left out when
// they are empty: `w.yaml: Deployment default/web: spec.replicas: Invalid
// value: expected an integer, got string`. Detail says what to do where
// there is a fix.
type Error struct {
	// File names the file as the person who gave it would: a path,
	// "<stdin>", or a data source's manifests[0].
	File string
	// Object names the object, as Document.Describe does: "Kind
	// namespace/name", or its place in the file when it has no name.
	Object string
	// Field is the path of the offending field, such as
	// spec.template.spec.containers[0].resources; empty for the whole object.
	Field string
	// Detail says what is wrong and, where there is one, the fix.
	Detail string
}

// Error reads `file: object: field: detail`; the file, object and field,
// which come from input, are Printable.
func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString(Printable(e.File))
	for _, part := range []string{Printable(e.Object), Printable(e.Field), e.Detail} {
		if part != "" {
			sb.WriteString(": ")
			sb.WriteString(part)
		}
	}
	return sb.String()
}

// Flatten lists the errors joined in err (by errors.Join, or any error with
// an Unwrap() []error method), depth first, so that a command can print one
// problem a line; an error that joins none is listed as itself.
func Flatten(err error) []error {
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error }) //nolint:errorlint // looking for a join at the top, not in the chain
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, Flatten(e)...)
	}
	return out
}
