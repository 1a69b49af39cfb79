package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// Split splits a file into its documents: YAML documents separated by `---`
// lines, or a stream of JSON values. Documents holding nothing but comments
// or whitespace are skipped. A List (apiVersion v1, kind List) or a
// top-level array stands for its items (see unpack). A malformed document
// stops the split with an *Error naming the document and, for YAML and JSON
// syntax, the line in the file.
func Split(f File) ([]*Document, error) {
	raws, err := splitData(f.Data)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, &Error{File: f.Name, Object: fmt.Sprintf("document %d", se.number), Detail: se.msg}
		}
		return nil, &Error{File: f.Name, Detail: err.Error()}
	}
	var docs []*Document
	for i, raw := range raws {
		d := &Document{File: f.Name, Number: i + 1, Raw: raw}
		items, err := unpack(d)
		if err != nil {
			return nil, err
		}
		docs = append(docs, items...)
	}
	return docs, nil
}

// syntaxError is a document that is not valid YAML or JSON.
type syntaxError struct {
	// number counts the file's non-empty documents from 1, this one
	// included.
	number int
	// msg says what is wrong, with line numbers counted from the top of the
	// file.
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// splitData splits a file into JSON documents. What looks like JSON is read
// as a JSON stream, unless its first value does not parse as JSON and the
// file does as YAML (YAML flow style, {kind: Pod, ...}, looks like JSON
// too). A stream whose first values are JSON is not read again as YAML:
// the YAML parser would read its first value and drop the others.
func splitData(data []byte) ([][]byte, error) {
	if !looksLikeJSON(data) {
		return splitYAML(data)
	}
	raws, err := splitJSON(data)
	var se *syntaxError
	if errors.As(err, &se) && se.number == 1 {
		yamlRaws, yamlErr := splitYAML(data)
		if yamlErr == nil {
			return yamlRaws, nil
		}
		var ye *syntaxError
		if errors.As(yamlErr, &ye) {
			// Neither reading works: say what each found, the file may be
			// meant as either.
			return nil, &syntaxError{number: ye.number, msg: fmt.Sprintf("%s (read as YAML flow style: %s)", se.msg, strings.TrimPrefix(ye.msg, "malformed YAML: "))}
		}
	}
	return raws, err
}

// looksLikeJSON reports whether the first thing in data after blank and `#`
// comment lines opens a JSON object or array.
func looksLikeJSON(data []byte) bool {
	data = skipComments(data)
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// skipComments drops leading whitespace and `#` comment lines.
func skipComments(data []byte) []byte {
	for {
		data = bytes.TrimLeft(data, " \t\r\n")
		if len(data) == 0 || data[0] != '#' {
			return data
		}
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
}

// splitJSON reads a stream of JSON values after leading `#` comment lines.
func splitJSON(data []byte) ([][]byte, error) {
	body := skipComments(data)
	skipped := len(data) - len(body)
	dec := json.NewDecoder(bytes.NewReader(body))
	var out [][]byte
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			msg := "malformed JSON: " + err.Error()
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				line := 1 + bytes.Count(data[:skipped+int(syntax.Offset)], []byte("\n"))
				msg = fmt.Sprintf("malformed JSON: line %d: %v", line, err)
			}
			return nil, &syntaxError{number: len(out) + 1, msg: msg}
		}
		out = append(out, raw)
	}
}

// splitYAML splits data on `---` lines and converts each document to JSON
// strictly (a duplicate key is an error, as it is for the API server), and
// refuses a piece holding more than one document (see singleDocument).
func splitYAML(data []byte) ([][]byte, error) {
	var out [][]byte
	start, startLine, line := 0, 1, 1
	flush := func(end int) error {
		if len(bytes.TrimSpace(data[start:end])) == 0 {
			return nil // an empty document: nothing to parse (a million `---` lines take no time)
		}
		raw, err := yaml.YAMLToJSONStrict(data[start:end])
		if err == nil {
			err = singleDocument(data[start:end])
		}
		if err != nil {
			msg := strings.TrimPrefix(shiftLines(err.Error(), startLine-1), "yaml: ")
			return &syntaxError{number: len(out) + 1, msg: "malformed YAML: " + msg}
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

// singleDocument returns an error unless piece, the text between two `---`
// lines, holds at most one YAML document. The YAML-to-JSON conversion reads
// the first document and ignores what follows it, so two flow-style objects
// on consecutive lines, a document after a `...` end marker, or `--- {...}`
// with the object on the separator's line would each be silently dropped.
// The second parser (yaml v3) stops there with the line at fault.
func singleDocument(piece []byte) error {
	dec := yamlv3.NewDecoder(bytes.NewReader(piece))
	for n := 0; ; n++ {
		var node yamlv3.Node
		err := dec.Decode(&node)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil && strings.Contains(err.Error(), "did not find expected <document start>"):
			return fmt.Errorf("%s: more content after the end of a document; separate documents with a line holding only ---", strings.TrimSuffix(err.Error(), ": did not find expected <document start>"))
		case err != nil:
			return err
		case n > 0:
			return fmt.Errorf("line %d: a second document without a --- line of its own before it; put --- alone on the line above each document", node.Line)
		}
	}
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

// shiftLines adds offset to every "line N" of a YAML error message, so that
// lines count from the top of the file rather than of the document.
func shiftLines(msg string, offset int) string {
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return fmt.Sprintf("line %d", n+offset)
	})
}
