package convert

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Finding is one input field the output does not carry.
type Finding struct {
	File   string
	Object string
	// Field is the field's path in the input, such as
	// spec.kubeletConfiguration.containerRuntime.
	Field string
	// Reason says why it is not mapped and, where there is one, what to do.
	Reason string
}

// String reads `file: object: field: reason`, the parts read from input
// made manifest.Printable: a finding is one line wherever it is written.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s: %s", manifest.Printable(f.File), manifest.Printable(f.Object), manifest.Printable(f.Field), f.Reason)
}

// conversion collects what converting one document found: fields it could
// not map, fields it ignored on purpose, and errors.
type conversion struct {
	doc      *source
	unmapped []Finding
	ignored  []Finding
	errs     []error
	// origins maps a Tenon field path to the input path it came from, where
	// the two differ, so validation errors name the field the user wrote.
	origins map[string]string
}

func (c *conversion) unmap(path *field.Path, reason string) {
	c.unmapped = append(c.unmapped, Finding{File: c.doc.File, Object: c.doc.Describe(), Field: path.String(), Reason: reason})
}

func (c *conversion) ignore(path *field.Path, reason string) {
	c.ignored = append(c.ignored, Finding{File: c.doc.File, Object: c.doc.Describe(), Field: path.String(), Reason: reason})
}

func (c *conversion) fail(path *field.Path, format string, args ...any) {
	p := ""
	if path != nil {
		p = path.String()
	}
	c.errs = append(c.errs, c.doc.Errorf(p, format, args...))
}

// from records that the Tenon field at to came from the input field at from.
func (c *conversion) from(to, from *field.Path) {
	if to.String() == from.String() {
		return
	}
	if c.origins == nil {
		c.origins = map[string]string{}
	}
	c.origins[to.String()] = from.String()
}

// origin names the input field a Tenon path came from: the longest recorded
// prefix with the rest of the path appended.
func (c *conversion) origin(path string) string {
	best := ""
	for to := range c.origins {
		if (path == to || len(path) > len(to) && (path[len(to)] == '.' || path[len(to)] == '[') && path[:len(to)] == to) && len(to) > len(best) {
			best = to
		}
	}
	if best == "" {
		return path
	}
	return c.origins[best] + path[len(best):]
}

// node is an input object being converted. Every key read through it is
// marked used; finish reports the rest as unmapped, so no field is dropped
// without a word.
type node struct {
	c    *conversion
	path *field.Path
	m    map[string]any
	used map[string]bool
}

func newNode(c *conversion, path *field.Path, m map[string]any) *node {
	return &node{c: c, path: path, m: m, used: map[string]bool{}}
}

// get returns the value at key and marks it used; null counts as absent.
func (n *node) get(key string) (any, bool) {
	if n == nil {
		return nil, false
	}
	v, ok := n.m[key]
	if ok {
		n.used[key] = true
	}
	return v, ok && v != nil
}

// at is the path of the field key. A key that is not a plain name (it holds
// spaces, quotes, brackets or control characters) is quoted, so it reads as
// one field: spec["x\ndata ..."].
func (n *node) at(key string) *field.Path {
	if plainKey(key) {
		return n.path.Child(key)
	}
	return n.path.Key(strconv.Quote(key))
}

// plainKey reports whether key can stand in a field path as it is.
func plainKey(key string) bool {
	return key != "" && !strings.ContainsFunc(key, func(r rune) bool {
		return !unicode.IsGraphic(r) || unicode.IsSpace(r) || strings.ContainsRune(`"[]\`, r)
	})
}

// str returns the string at key, or "" when absent.
func (n *node) str(key string) string {
	v, ok := n.get(key)
	if !ok {
		return ""
	}
	s, isString := v.(string)
	if !isString {
		n.c.fail(n.at(key), "expected a string, got %s", describeJSON(v))
		return ""
	}
	return s
}

// strPtr returns the string at key, or nil when absent.
func (n *node) strPtr(key string) *string {
	if _, ok := n.get(key); !ok {
		return nil
	}
	s := n.str(key)
	return &s
}

// integer returns the integer at key, or nil when absent.
func (n *node) integer(key string) *int64 {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	num, isNum := v.(json.Number)
	if !isNum {
		n.c.fail(n.at(key), "expected an integer, got %s", describeJSON(v))
		return nil
	}
	i, err := num.Int64()
	if err != nil {
		n.c.fail(n.at(key), "expected an integer, got %s", num)
		return nil
	}
	return &i
}

// int32p returns the integer at key as an int32, or nil when absent.
func (n *node) int32p(key string) *int32 {
	i := n.integer(key)
	if i == nil {
		return nil
	}
	if *i < -1<<31 || *i > 1<<31-1 {
		n.c.fail(n.at(key), "%d is out of range", *i)
		return nil
	}
	v := int32(*i)
	return &v
}

// boolPtr returns the boolean at key, or nil when absent.
func (n *node) boolPtr(key string) *bool {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	b, isBool := v.(bool)
	if !isBool {
		n.c.fail(n.at(key), "expected true or false, got %s", describeJSON(v))
		return nil
	}
	return &b
}

// child returns the object at key, or nil when absent.
func (n *node) child(key string) *node {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		n.c.fail(n.at(key), "expected an object, got %s", describeJSON(v))
		return nil
	}
	return newNode(n.c, n.at(key), m)
}

// items returns the objects of the list at key.
func (n *node) items(key string) []*node {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		n.c.fail(n.at(key), "expected a list, got %s", describeJSON(v))
		return nil
	}
	out := make([]*node, 0, len(list))
	for i, e := range list {
		m, isMap := e.(map[string]any)
		if !isMap {
			n.c.fail(n.at(key).Index(i), "expected an object, got %s", describeJSON(e))
			continue
		}
		out = append(out, newNode(n.c, n.at(key).Index(i), m))
	}
	return out
}

// strings returns the strings of the list at key.
func (n *node) strings(key string) []string {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		n.c.fail(n.at(key), "expected a list of strings, got %s", describeJSON(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, isString := e.(string)
		if !isString {
			n.c.fail(n.at(key).Index(i), "expected a string, got %s", describeJSON(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// strMap returns the map of strings at key. A value that is not a string
// (an unquoted number or boolean, which Karpenter's schema rejects too) is an
// error naming its key.
func (n *node) strMap(key string) map[string]string {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		n.c.fail(n.at(key), "expected a map of strings, got %s", describeJSON(v))
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		e := m[k]
		s, isString := e.(string)
		if !isString {
			n.c.fail(n.at(key).Key(k), "expected a string, got %s", describeJSON(e))
			continue
		}
		out[k] = s
	}
	return out
}

// quantities returns the resource quantities at key (strings or numbers).
func (n *node) quantities(key string) map[string]resource.Quantity {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		n.c.fail(n.at(key), "expected a map of quantities, got %s", describeJSON(v))
		return nil
	}
	out := make(map[string]resource.Quantity, len(m))
	for _, k := range sortedKeys(m) {
		e := m[k]
		if q, ok := parseQuantity(n.c, n.at(key).Key(k), e); ok {
			out[k] = q
		}
	}
	return out
}

// quantity returns the quantity at key, or nil when absent.
func (n *node) quantity(key string) *resource.Quantity {
	v, ok := n.get(key)
	if !ok {
		return nil
	}
	q, ok := parseQuantity(n.c, n.at(key), v)
	if !ok {
		return nil
	}
	return &q
}

func parseQuantity(c *conversion, path *field.Path, v any) (resource.Quantity, bool) {
	var text string
	switch t := v.(type) {
	case string:
		text = t
	case json.Number:
		text = t.String()
	default:
		c.fail(path, "expected a quantity such as 100 or 16Gi, got %s", describeJSON(v))
		return resource.Quantity{}, false
	}
	q, err := scheduling.ParseQuantity(text)
	if err != nil {
		c.fail(path, "%q is not a quantity such as 100, 500m or 16Gi", text)
		return resource.Quantity{}, false
	}
	// ParseQuantity silently lowers a binary quantity past int64, such as
	// 9999999Ei, to 2^63-1: say so, in the input's own words.
	if q.Cmp(int64Max) >= 0 && text != int64Max.String() {
		c.fail(path, "%q is too large: it is past 2^63-1, and what Tenon reads as a quantity (limits, sizes, reserved resources) is far smaller", text)
		return resource.Quantity{}, false
	}
	return q, true
}

var int64Max = *resource.NewQuantity(math.MaxInt64, resource.DecimalSI)

// drop marks key used and reports it unmapped with reason, when present.
func (n *node) drop(key, reason string) {
	if _, ok := n.get(key); ok {
		n.c.unmap(n.at(key), reason)
	}
}

// skip marks key used and lists it as ignored with reason, when present.
func (n *node) skip(key, reason string) {
	if _, ok := n.get(key); ok {
		n.c.ignore(n.at(key), reason)
	}
}

// finish reports every key not read as unmapped.
func (n *node) finish() {
	if n == nil {
		return
	}
	keys := make([]string, 0, len(n.m))
	for k := range n.m {
		if !n.used[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if n.m[k] == nil {
			continue
		}
		n.c.unmap(n.at(k), "Tenon has no such field (unknown to this converter)")
	}
}

// describeJSON names the type of a JSON value for messages.
func describeJSON(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case json.Number:
		return "the number " + t.String()
	case bool:
		return strconv.FormatBool(t)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}
