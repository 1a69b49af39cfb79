package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// decodeStrict decodes d into v as the API server would: field names
// case-sensitive, unknown and duplicate fields rejected. It reports whether v
// was decoded; unknown and duplicate fields leave the rest decoded, a value
// of the wrong type does not. Every error names the offending field.
func decodeStrict(d *Document, v any) (bool, []error) {
	if path, value := checkExponents(d.Raw); value != "" {
		return false, []error{d.Errorf(path, "%q %s", value, ExponentMessage)}
	}
	strict, err := kjson.UnmarshalStrict(d.Raw, v)
	if err != nil {
		path, detail := locate(reflect.TypeOf(v), d.Raw, nil, err)
		return false, []error{d.Errorf(pathString(path), "%s", detail)}
	}
	out := make([]error, 0, len(strict))
	for _, e := range strict {
		path := ""
		var fe kjson.FieldError
		if errors.As(e, &fe) {
			path = fe.FieldPath()
		}
		kind := strings.TrimSpace(strings.TrimSuffix(e.Error(), fmt.Sprintf("%q", path)))
		if strings.HasPrefix(kind, "unknown field") {
			out = append(out, d.Errorf(path, "unknown field; remove it or check its spelling (field names are case-sensitive)"))
		} else {
			out = append(out, d.Errorf(path, "%s; keep one", kind))
		}
	}
	return true, out
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

var typeOfHead = reflect.TypeFor[Head]()

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
	var (
		entries map[string]json.RawMessage
		items   []json.RawMessage
	)
	switch t.Kind() {
	case reflect.Struct:
		if json.Unmarshal(raw, &entries) == nil {
			return locateField(t, entries, path, detail)
		}
	case reflect.Slice:
		if json.Unmarshal(raw, &items) == nil {
			return locateItem(t.Elem(), items, path, detail)
		}
	case reflect.Map:
		if json.Unmarshal(raw, &entries) == nil {
			return locateEntry(t.Elem(), entries, path, detail)
		}
	}
	return path, detail
}

// tryDecode decodes raw into a new value of type t as decodeStrict does,
// without the strict checks.
func tryDecode(t reflect.Type, raw []byte) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(raw, reflect.New(t).Interface())
}

// locateField descends into the first field of struct type t that fails.
func locateField(t reflect.Type, fields map[string]json.RawMessage, path *field.Path, detail string) (*field.Path, string) {
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		ft, ok := jsonField(t, key)
		if !ok {
			continue
		}
		if err := tryDecode(ft, fields[key]); err != nil {
			return locate(ft, fields[key], childPath(path, key), err)
		}
	}
	return path, detail
}

// locateItem descends into the first item of a list of elem that fails.
func locateItem(elem reflect.Type, items []json.RawMessage, path *field.Path, detail string) (*field.Path, string) {
	for i, item := range items {
		if err := tryDecode(elem, item); err != nil {
			return locate(elem, item, path.Index(i), err)
		}
	}
	return path, detail
}

// locateEntry descends into the first entry of a map of elem that fails.
func locateEntry(elem reflect.Type, entries map[string]json.RawMessage, path *field.Path, detail string) (*field.Path, string) {
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		if err := tryDecode(elem, entries[key]); err != nil {
			p := childPath(path, key)
			if !plainKey.MatchString(key) {
				p = path.Key(key)
			}
			return locate(elem, entries[key], p, err)
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

// pathString is path as messages give it; the object itself has no path.
func pathString(path *field.Path) string {
	if path == nil {
		return ""
	}
	return path.String()
}

// jsonField returns the type of t's field with JSON name key, looking into
// inline (embedded) structs.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if st, ok := structType(f.Type); ok && f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			if inner, ok := jsonField(st, key); ok {
				return inner, true
			}
			continue
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

// structType is t, or what t points to, when that is a struct.
func structType(t reflect.Type) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, t.Kind() == reflect.Struct
}
