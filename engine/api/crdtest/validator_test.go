package crdtest_test

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crdtest"
)

func newWidgetValidator(t *testing.T) *crdtest.Validator {
	t.Helper()
	crd, err := os.ReadFile("testdata/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := crdtest.NewValidator(crd, "v1")
	if err != nil {
		t.Fatalf("NewValidator: %v", err)
	}
	return v
}

// want is one expected error: its type, its exact path and a fragment of its detail.
type want struct {
	typ    field.ErrorType
	path   string
	detail string
}

func check(t *testing.T, got field.ErrorList, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d errors, want %d:\n%v", len(got), len(wants), got.ToAggregate())
	}
	for i, w := range wants {
		g := got[i]
		if g.Type != w.typ || g.Field != w.path || !strings.Contains(g.Detail, w.detail) {
			t.Errorf("error %d = %v (type %q, path %q)\nwant type %q, path %q, detail containing %q", i, g, g.Type, g.Field, w.typ, w.path, w.detail)
		}
	}
}

func TestValidateCreate(t *testing.T) {
	v := newWidgetValidator(t)
	blocked := want{field.ErrorTypeInvalid, "<nil>", "some validation rules were not checked"}
	tests := []struct {
		name string
		yaml string
		want []want
	}{
		{name: "minimal", yaml: `{metadata: {name: w}, spec: {name: abc}}`},
		{name: "full", yaml: `{apiVersion: example.tenon.dev/v1, kind: Widget, metadata: {name: w, labels: {a: b}},
			spec: {name: abc, size: large, minSize: 1, maxSize: 2, parts: [{id: a}, {id: b, count: 3}]}, status: {ready: true}}`},
		{name: "enum", yaml: `{metadata: {name: w}, spec: {name: abc, size: medium}}`,
			want: []want{{field.ErrorTypeNotSupported, "spec.size", ""}, blocked}},
		{name: "pattern", yaml: `{metadata: {name: w}, spec: {name: Abc}}`,
			want: []want{{field.ErrorTypeInvalid, "spec.name", "should match '^[a-z]+$'"}}},
		{name: "maxLength blocks CEL", yaml: `{metadata: {name: w}, spec: {name: abcdefghijklmnopqrstuvwxyz, minSize: 3, maxSize: 2}}`,
			want: []want{{field.ErrorTypeTooLong, "spec.name", "may not be more than 20"}, blocked}},
		{name: "minimum", yaml: `{metadata: {name: w}, spec: {name: abc, minSize: -1}}`,
			want: []want{{field.ErrorTypeInvalid, "spec.minSize", "should be greater than or equal to 0"}}},
		{name: "required", yaml: `{metadata: {name: w}, spec: {size: small}}`,
			want: []want{{field.ErrorTypeRequired, "spec.name", ""}, blocked}},
		{name: "wrong type", yaml: `{metadata: {name: w}, spec: {name: abc, maxSize: "2"}}`,
			want: []want{{field.ErrorTypeTypeInvalid, "spec.maxSize", "must be of type integer"}, blocked}},
		{name: "maxItems", yaml: `{metadata: {name: w}, spec: {name: abc, parts: [{id: a}, {id: b}, {id: c}, {id: d}]}}`,
			want: []want{{field.ErrorTypeTooMany, "spec.parts", "must have at most 3 items"}, blocked}},
		{name: "map list key unique", yaml: `{metadata: {name: w}, spec: {name: abc, parts: [{id: a}, {id: a}]}}`,
			want: []want{{field.ErrorTypeDuplicate, "spec.parts[1]", ""}}},
		{name: "CEL rule with fieldPath", yaml: `{metadata: {name: w}, spec: {name: abc, minSize: 3, maxSize: 2}}`,
			want: []want{{field.ErrorTypeInvalid, "spec.minSize", "minSize must not exceed maxSize; lower minSize or raise maxSize"}}},
		{name: "unknown field", yaml: `{metadata: {name: w}, spec: {name: abc, colour: red, parts: [{id: a, cnt: 1}]}}`,
			want: []want{{field.ErrorTypeNotFound, "spec.colour", "unknown field"}, {field.ErrorTypeNotFound, "spec.parts[0].cnt", "unknown field"}}},
		{name: "unknown metadata field", yaml: `{metadata: {name: w, colour: red}, spec: {name: abc}}`,
			want: []want{{field.ErrorTypeNotFound, "metadata.colour", "unknown field"}}},
		{name: "missing name", yaml: `{spec: {name: abc}}`,
			want: []want{{field.ErrorTypeRequired, "metadata.name", "name or generateName is required"}, blocked}},
		{name: "bad name", yaml: `{metadata: {name: W_1}, spec: {name: abc}}`,
			want: []want{{field.ErrorTypeInvalid, "metadata.name", "RFC 1123"}}},
		{name: "namespace on a cluster-scoped kind", yaml: `{metadata: {name: w, namespace: x}, spec: {name: abc}}`,
			want: []want{{field.ErrorTypeForbidden, "metadata.namespace", "not allowed"}}},
		{name: "wrong kind", yaml: `{apiVersion: example.tenon.dev/v2, kind: Gadget, metadata: {name: w}, spec: {name: abc}}`,
			want: []want{{field.ErrorTypeInvalid, "kind", "must be Widget"}, {field.ErrorTypeInvalid, "apiVersion", "must be example.tenon.dev/v1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.ValidateYAML([]byte(tt.yaml), nil)
			if err != nil {
				t.Fatal(err)
			}
			check(t, got, tt.want)
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	v := newWidgetValidator(t)
	tests := []struct {
		name     string
		old, new string
		want     []want
	}{
		{name: "unchanged name", old: `{metadata: {name: w}, spec: {name: abc}}`, new: `{metadata: {name: w}, spec: {name: abc, size: large}}`},
		{name: "transition rule", old: `{metadata: {name: w}, spec: {name: abc}}`, new: `{metadata: {name: w}, spec: {name: abd}}`,
			want: []want{{field.ErrorTypeInvalid, "spec.name", "name is immutable; create a new Widget instead"}}},
		// An object stored before the pattern existed keeps its name: ratcheting
		// forgives errors in what the update does not change.
		{name: "ratcheting", old: `{metadata: {name: w}, spec: {name: ABC}}`, new: `{metadata: {name: w}, spec: {name: ABC, size: large}}`},
		{name: "ratcheting stops at changes", old: `{metadata: {name: w}, spec: {name: abc, maxSize: 2}}`, new: `{metadata: {name: w}, spec: {name: abc, minSize: 3, maxSize: 2}}`,
			want: []want{{field.ErrorTypeInvalid, "spec.minSize", "minSize must not exceed maxSize"}}},
		{name: "metadata name immutable", old: `{metadata: {name: w}, spec: {name: abc}}`, new: `{metadata: {name: x}, spec: {name: abc}}`,
			want: []want{{field.ErrorTypeInvalid, "metadata.name", "field is immutable"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.ValidateYAML([]byte(tt.new), []byte(tt.old))
			if err != nil {
				t.Fatal(err)
			}
			check(t, got, tt.want)
		})
	}
}

func TestDefault(t *testing.T) {
	v := newWidgetValidator(t)
	obj := map[string]any{
		"metadata": map[string]any{"name": "w"},
		"spec": map[string]any{
			"name":    "abc",
			"maxSize": 3, // a Go int, as hand-built maps have
			"parts":   []map[string]any{{"id": "a"}},
		},
	}
	if errs := v.Validate(obj, nil); len(errs) > 0 {
		t.Fatalf("Validate: %v", errs)
	}
	spec := obj["spec"].(map[string]any)
	if spec["size"] != "small" {
		t.Errorf("spec.size = %v, want the default small", spec["size"])
	}
	if spec["maxSize"] != int64(3) {
		t.Errorf("spec.maxSize = %#v, want int64(3) as the API server decodes it", spec["maxSize"])
	}
	if got := spec["parts"].([]any)[0].(map[string]any)["count"]; got != int64(1) {
		t.Errorf("spec.parts[0].count = %#v, want the default 1", got)
	}
}

func TestNewValidatorRejectsBadCRDs(t *testing.T) {
	tests := []struct {
		name, file, version, want string
	}{
		{name: "uncompilable CEL rule", file: "testdata/bad-rule.yaml", version: "v1", want: "compilation failed"},
		{name: "unserved version", file: "testdata/widgets.yaml", version: "v2", want: `does not serve version "v2"`},
		{name: "too costly CEL rule", file: "testdata/costly-rule.yaml", version: "v1", want: "exceeds budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			_, err = crdtest.NewValidator(crd, tt.version)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewValidator error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := crdtest.NewValidator([]byte("apiVersion: v1\nkind: ConfigMap\n"), "v1"); err == nil {
		t.Error("NewValidator accepted a ConfigMap")
	}
}
