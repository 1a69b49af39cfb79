package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/tenonhq/terraform-provider-tenon/engine/internal/yamldoc"
)

// document is one object of a scenario file, as JSON, with what identifies
// it in messages.
type document struct {
	file string
	// index counts documents from 0 within the file, for messages about
	// documents that have no kind or name.
	index int
	raw   []byte
	head  typeHead
}

// typeHead is the part of every object decoded before its kind is known.
type typeHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// describe names the document for messages: "Deployment default/web", or
// "document 3" before its kind is known.
func (d *document) describe() string {
	if d.head.Kind == "" {
		return fmt.Sprintf("document %d", d.index+1)
	}
	name := d.head.Metadata.Name
	if d.head.Metadata.Namespace != "" {
		name = d.head.Metadata.Namespace + "/" + name
	}
	if name == "" {
		return d.head.Kind
	}
	return d.head.Kind + " " + name
}

// InputError is a problem with one document of one scenario file, at one
// field. Its message reads `file: Kind namespace/name: field: detail`.
type InputError struct {
	File   string
	Object string
	Field  string
	Detail string
}

func (e *InputError) Error() string {
	var sb strings.Builder
	sb.WriteString(e.File)
	if e.Object != "" {
		sb.WriteString(": ")
		sb.WriteString(e.Object)
	}
	if e.Field != "" {
		sb.WriteString(": ")
		sb.WriteString(e.Field)
	}
	sb.WriteString(": ")
	sb.WriteString(e.Detail)
	return sb.String()
}

func (d *document) errorf(path, format string, args ...any) *InputError {
	return &InputError{File: d.file, Object: d.describe(), Field: path, Detail: fmt.Sprintf(format, args...)}
}

// fieldErrors turns validation errors into InputErrors on d.
func (d *document) fieldErrors(errs field.ErrorList) []error {
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		out = append(out, &InputError{File: d.file, Object: d.describe(), Field: e.Field, Detail: e.ErrorBody()})
	}
	return out
}

// splitDocuments splits a file into JSON documents: YAML documents
// separated by `---`, or a JSON stream of objects or arrays of objects.
// Empty documents (only comments or whitespace) are skipped, and a List
// (kind: List, items: [...]) stands for its items.
func splitDocuments(file string, data []byte) ([]*document, error) {
	var raws [][]byte
	var err error
	if looksLikeJSON(data) {
		raws, err = splitJSON(data)
		if err != nil {
			// YAML flow style ({kind: Pod, ...}) looks like JSON too.
			if yamlRaws, yamlErr := splitYAML(data); yamlErr == nil {
				raws, err = yamlRaws, nil
			}
		}
	} else {
		raws, err = splitYAML(data)
	}
	if err != nil {
		return nil, &InputError{File: file, Detail: err.Error()}
	}
	var docs []*document
	for _, raw := range raws {
		d := &document{file: file, index: len(docs), raw: raw}
		if err := json.Unmarshal(raw, &d.head); err != nil {
			return nil, d.errorf("", "a document must be an object with apiVersion, kind and metadata: %v", err)
		}
		if d.head.Kind == "List" && d.head.APIVersion == "v1" {
			var list struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, d.errorf("items", "%v", err)
			}
			for _, item := range list.Items {
				it := &document{file: file, index: len(docs), raw: item}
				if err := json.Unmarshal(item, &it.head); err != nil {
					return nil, it.errorf("", "a list item must be an object with apiVersion, kind and metadata: %v", err)
				}
				docs = append(docs, it)
			}
			continue
		}
		docs = append(docs, d)
	}
	return docs, nil
}

func looksLikeJSON(data []byte) bool {
	for len(data) > 0 {
		data = bytes.TrimLeft(data, " \t\r\n")
		if len(data) > 0 && data[0] == '#' {
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				data = data[i+1:]
				continue
			}
			return false
		}
		break
	}
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// splitJSON reads a stream of JSON values; arrays stand for their elements.
// Leading `#` comment lines are allowed.
func splitJSON(data []byte) ([][]byte, error) {
	full := data
	for {
		data = bytes.TrimLeft(data, " \t\r\n")
		if len(data) == 0 || data[0] != '#' {
			break
		}
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil, nil
		}
		data = data[i+1:]
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var out [][]byte
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				skipped := len(full) - len(data)
				line := 1 + bytes.Count(full[:skipped+int(syntax.Offset)], []byte("\n"))
				return nil, fmt.Errorf("line %d: reading JSON: %w", line, err)
			}
			return nil, fmt.Errorf("reading JSON: %w", err)
		}
		if raw[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("reading JSON array: %w", err)
			}
			for _, it := range items {
				out = append(out, it)
			}
			continue
		}
		out = append(out, raw)
	}
}

// splitYAML splits on `---` lines and converts each document to JSON,
// rejecting duplicate keys. YAML errors give line numbers in the file, not
// in the document.
func splitYAML(data []byte) ([][]byte, error) {
	return yamldoc.Split(data)
}

// decodeStrict decodes d into v as the API server would: field names
// case-sensitive, unknown and duplicate fields rejected. Errors name the
// offending field.
func (d *document) decodeStrict(v any) []error {
	strict, err := kjson.UnmarshalStrict(d.raw, v)
	if err != nil {
		path, detail := locate(reflect.TypeOf(v), d.raw, nil, err)
		return []error{d.errorf(path.String(), "%s", detail)}
	}
	if len(strict) == 0 {
		return nil
	}
	out := make([]error, 0, len(strict))
	for _, e := range strict {
		path := ""
		var fe kjson.FieldError
		if errors.As(e, &fe) {
			path = fe.FieldPath()
		}
		kind := strings.TrimSuffix(strings.TrimSuffix(e.Error(), " "+fmt.Sprintf("%q", path)), " ")
		if strings.HasPrefix(kind, "unknown field") {
			out = append(out, d.errorf(path, "unknown field; remove it or check its spelling (field names are case-sensitive)"))
		} else {
			out = append(out, d.errorf(path, "%s; keep one", kind))
		}
	}
	return out
}

var (
	jsonPrefix = regexp.MustCompile(`^json: (cannot unmarshal )?`)
	typeError  = regexp.MustCompile(`^(\w+) into Go (?:struct field \S+ of type|value of type) (\S+)$`)
)

// decodeDetail rewords a JSON decoding error for a person.
func decodeDetail(err error) string {
	detail := jsonPrefix.ReplaceAllString(err.Error(), "")
	if m := typeError.FindStringSubmatch(detail); m != nil {
		return fmt.Sprintf("Invalid value: expected %s, got %s", goTypeName(m[2]), m[1])
	}
	return detail
}

// goTypeName names a Go type as a YAML author knows it.
func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a map"
	}
	return "an object"
}

// locate finds the deepest field of raw that fails to decode into t,
// descending through structs (by JSON name, inline structs included),
// slices and maps, and returns its path and the error there. It runs only
// after a decode failed, so its cost does not matter.
func locate(t reflect.Type, raw []byte, path *field.Path, err error) (*field.Path, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	detail := decodeDetail(err)
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return path, detail
	}
	try := func(t reflect.Type, raw []byte) error {
		return kjson.UnmarshalCaseSensitivePreserveInts(raw, reflect.New(t).Interface())
	}
	switch t.Kind() {
	case reflect.Struct:
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return path, detail
		}
		for _, key := range sortedKeys(fields) {
			ft, ok := jsonField(t, key)
			if !ok {
				continue
			}
			if err := try(ft, fields[key]); err != nil {
				return locate(ft, fields[key], childPath(path, key), err)
			}
		}
	case reflect.Slice:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return path, detail
		}
		for i, item := range items {
			if err := try(t.Elem(), item); err != nil {
				return locate(t.Elem(), item, path.Index(i), err)
			}
		}
	case reflect.Map:
		var entries map[string]json.RawMessage
		if json.Unmarshal(raw, &entries) != nil {
			return path, detail
		}
		for _, key := range sortedKeys(entries) {
			if err := try(t.Elem(), entries[key]); err != nil {
				p := childPath(path, key)
				if !plainKey.MatchString(key) {
					p = path.Key(key)
				}
				return locate(t.Elem(), entries[key], p, err)
			}
		}
	}
	return path, detail
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func childPath(path *field.Path, name string) *field.Path {
	if path == nil {
		return field.NewPath(name)
	}
	return path.Child(name)
}

// jsonField returns the type of t's field with JSON name key, looking into
// inline (embedded) structs.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if inner, ok := jsonField(ft, key); ok {
					return inner, true
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
