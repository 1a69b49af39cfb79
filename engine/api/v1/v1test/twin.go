// Package v1test holds the validation cases of the tenon.dev/v1 API as data, so that every
// tier checks the same table: the Go validation and the in-process CRD evaluation
// (engine/api/v1's twin tests) and the real kube-apiserver (the integration tests).
package v1test

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// Twin is one input for both the CRD (OpenAPI schema and CEL, as the API server runs them)
// and the Go validation. The object is the table's base object with Patch merged in (a JSON
// merge patch written as YAML: maps merge, null deletes, anything else replaces); when Old is
// set, the input is an update from the base object with Old merged in.
type Twin struct {
	Name  string
	Patch string
	Old   string
	// Path is the exact path of the Go error; empty means both must accept the object. The
	// CRD's error must be at the same path or, where a CEL rule sits on a list or map, at that
	// list or map.
	Path string
	// Fix is part of the Go error's message: the part that says how to fix it.
	Fix string
	// CEL marks inputs a CEL rule of ours rejects: the CRD's error carries the same message.
	CEL bool
}

// Merged returns base with patch merged in, both YAML, as a JSON object.
func Merged(base, patch string) (map[string]any, error) {
	obj, err := FromYAML(base)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(patch) == "" {
		return obj, nil
	}
	p, err := FromYAML(patch)
	if err != nil {
		return nil, err
	}
	return MergePatch(obj, p).(map[string]any), nil
}

// MergePatch applies a JSON merge patch (RFC 7386) to target, which it changes.
func MergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = MergePatch(t[k], v)
	}
	return t
}

// FromYAML decodes a YAML object as encoding/json would decode its JSON form.
func FromYAML(s string) (map[string]any, error) {
	data, err := yaml.YAMLToJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("test input is not YAML: %w\n%s", err, s)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}
