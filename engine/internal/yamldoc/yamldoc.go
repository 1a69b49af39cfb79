// Package yamldoc splits multi-document YAML files into JSON documents, with
// errors that name the line in the file rather than in the document. It is
// shared by `tenon simulate` (scenario files) and `tenon convert`
// (Karpenter manifests), which both report bad input by file, document and
// line.
package yamldoc

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// SyntaxError is a document that is not valid YAML.
type SyntaxError struct {
	// Doc counts the file's non-empty documents from 1, this one included.
	Doc int
	// Msg is the YAML parser's message with its line numbers counted from
	// the top of the file.
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Split splits data on `---` lines and converts each document to JSON
// strictly (a duplicate key is an error, as it is for the API server).
// Documents holding nothing but comments or whitespace are skipped. A
// malformed document stops the split with a *SyntaxError.
func Split(data []byte) ([][]byte, error) {
	var out [][]byte
	start, startLine, line := 0, 1, 1
	flush := func(end int) error {
		raw, err := yaml.YAMLToJSONStrict(data[start:end])
		if err != nil {
			return &SyntaxError{Doc: len(out) + 1, Msg: shiftLines(err.Error(), startLine-1)}
		}
		if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
			out = append(out, raw)
		}
		return nil
	}
	for off := 0; off < len(data); line++ {
		next := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		if isSeparator(data[off:next]) {
			if err := flush(off); err != nil {
				return nil, err
			}
			start, startLine = next, line+1
		}
		off = next
	}
	if err := flush(len(data)); err != nil {
		return nil, err
	}
	return out, nil
}

// isSeparator reports whether a line is a YAML document separator: `---`
// followed by nothing but spaces or a comment.
func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// shiftLines adds offset to every "line N" in a YAML error message.
func shiftLines(msg string, offset int) string {
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return fmt.Sprintf("line %d", n+offset)
	})
}
