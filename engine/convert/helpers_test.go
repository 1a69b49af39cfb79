package convert

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// convertYAML converts one in-memory file named "in.yaml".
func convertYAML(t *testing.T, data string, opts Options) (*Result, error) {
	t.Helper()
	return Convert([]Input{{Name: "in.yaml", Data: []byte(data)}}, opts)
}

var segment = regexp.MustCompile(`^([^.\[]*)((?:\[[^\]]*\])*)`)

// lookup returns the value at a path such as
// spec.template.spec.requirements[0].key or spec.labels[tenon.dev/team] in
// the JSON form of obj, and whether it exists.
func lookup(t *testing.T, obj any, path string) (any, bool) {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var cur any
	if err := json.Unmarshal(raw, &cur); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	rest := path
	for rest != "" {
		m := segment.FindStringSubmatch(rest)
		rest = strings.TrimPrefix(rest[len(m[0]):], ".")
		if m[1] != "" {
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = obj[m[1]]; !ok {
				return nil, false
			}
		}
		for _, sub := range regexp.MustCompile(`\[([^\]]*)\]`).FindAllStringSubmatch(m[2], -1) {
			if i, err := strconv.Atoi(sub[1]); err == nil {
				list, ok := cur.([]any)
				if !ok || i >= len(list) {
					return nil, false
				}
				cur = list[i]
				continue
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = obj[sub[1]]; !ok {
				return nil, false
			}
		}
	}
	return cur, true
}

// fields returns the Field of each finding.
func fields(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Field
	}
	return out
}
