package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/internal/yamldoc"
)

// Input is one file to convert.
type Input struct {
	// Name is what messages call the file: its path, or "<stdin>".
	Name string
	// Data is the file's content: multi-document YAML or JSON.
	Data []byte
}

// document is one object of an input file, decoded into plain JSON values.
type document struct {
	file string
	// index counts the file's documents from 1, for messages; item counts
	// the items of a List document from 1 (0 outside a List).
	index      int
	item       int
	apiVersion string
	kind       string
	name       string
	raw        map[string]any
}

// describe names the document in messages: "NodePool default", or
// "document 3" when it has no kind.
func (d *document) describe() string {
	switch {
	case d.kind == "":
		return fmt.Sprintf("document %d", d.index)
	case d.name == "":
		return fmt.Sprintf("%s (document %d)", d.kind, d.index)
	}
	return d.kind + " " + d.name
}

// locate names the document in error messages: its kind and name, and its
// place in the file, such as "NodePool default (document 2)".
func (d *document) locate() string {
	switch {
	case d.kind == "" || d.name == "":
		return d.describe()
	case d.item > 0:
		return fmt.Sprintf("%s (document %d, item %d)", d.describe(), d.index, d.item)
	}
	return fmt.Sprintf("%s (document %d)", d.describe(), d.index)
}

// splitDocuments splits a file into its YAML (or JSON) documents, skipping
// empty ones. Duplicate keys are errors, as they are for the API server.
func splitDocuments(file string, data []byte) ([]*document, error) {
	raws, err := yamldoc.Split(data)
	if err != nil {
		var se *yamldoc.SyntaxError
		if errors.As(err, &se) {
			return nil, &Error{File: file, Object: fmt.Sprintf("document %d", se.Doc), Detail: "malformed YAML: " + se.Msg}
		}
		return nil, &Error{File: file, Detail: "malformed YAML: " + err.Error()}
	}
	docs := make([]*document, 0, len(raws))
	for i, raw := range raws {
		index := i + 1
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, &Error{File: file, Object: fmt.Sprintf("document %d", index), Detail: "malformed document: " + err.Error()}
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &Error{File: file, Object: fmt.Sprintf("document %d", index), Detail: "a document must be an object with apiVersion, kind, metadata and spec"}
		}
		d := &document{file: file, index: index, raw: m}
		d.apiVersion, _ = m["apiVersion"].(string)
		d.kind, _ = m["kind"].(string)
		if meta, ok := m["metadata"].(map[string]any); ok {
			d.name, _ = meta["name"].(string)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// clusterNamePlaceholders are the spellings Karpenter's documentation uses
// for the cluster name in manifests meant for envsubst.
var clusterNamePlaceholders = []string{"${CLUSTER_NAME}", "$CLUSTER_NAME"}

// substitute replaces the cluster-name placeholders in every string (keys
// included) of v with name, and returns the paths where a placeholder stays
// because name is empty.
func substitute(v any, name string, path string, left *[]string) any {
	switch t := v.(type) {
	case string:
		return substituteString(t, name, path, left)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			key := substituteString(k, name, path+"."+k, left)
			out[key] = substitute(e, name, path+"."+k, left)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = substitute(e, name, fmt.Sprintf("%s[%d]", path, i), left)
		}
		return out
	}
	return v
}

func substituteString(s, name, path string, left *[]string) string {
	for _, p := range clusterNamePlaceholders {
		if !strings.Contains(s, p) {
			continue
		}
		if name == "" {
			*left = append(*left, strings.TrimPrefix(path, "."))
			return s
		}
		s = strings.ReplaceAll(s, p, name)
	}
	return s
}

// Error is input that cannot be converted: malformed YAML, an unknown kind,
// a field of the wrong type, or a converted object that fails Tenon's
// validation. It reads `file: Kind name: field: detail`.
type Error struct {
	File   string
	Object string
	Field  string
	Detail string
}

func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString(e.File)
	for _, s := range []string{e.Object, e.Field} {
		if s != "" {
			sb.WriteString(": ")
			sb.WriteString(s)
		}
	}
	sb.WriteString(": ")
	sb.WriteString(e.Detail)
	return sb.String()
}

// Errors is every Error of one conversion.
type Errors []*Error

func (e Errors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "\n")
}

// asErrors returns err as Errors, for callers that list them.
func asErrors(err error) Errors {
	var list Errors
	if errors.As(err, &list) {
		return list
	}
	var one *Error
	if errors.As(err, &one) {
		return Errors{one}
	}
	return nil
}
