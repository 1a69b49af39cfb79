package v1_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestSetDefaultsMatchesTheCRD applies Go's SetDefaults and the CRD's structural defaults to the
// same objects and expects the same result.
func TestSetDefaultsMatchesTheCRD(t *testing.T) {
	cases := []struct {
		name, file, yaml string
		defaults         func(t *testing.T, obj map[string]any) map[string]any
	}{
		{"nodepool minimal", "tenon.dev_nodepools.yaml", nodePoolBase, goDefaults[v1.NodePool]},
		{"nodepool with partial disruption", "tenon.dev_nodepools.yaml", nodePoolBase + `
  disruption:
    consolidateAfter: 30s
    budgets: [{schedule: "@daily", duration: 1h}, {nodes: "3"}]
`, goDefaults[v1.NodePool]},
		{"nodepool with everything set", "tenon.dev_nodepools.yaml", `
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: tenon.dev, kind: NodeClass, name: default}
      expireAfter: Never
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: Never, budgets: [{nodes: "1"}]}
`, goDefaults[v1.NodePool]},
		{"nodeclass aws minimal", "tenon.dev_nodeclasses.yaml", nodeClassBase, goDefaults[v1.NodeClass]},
		{"nodeclass aws partial metadata options", "tenon.dev_nodeclasses.yaml", nodeClassBase + `
    amiFamily: Bottlerocket
    metadataOptions: {httpTokens: optional}
`, goDefaults[v1.NodeClass]},
		{"nodeclass kwok", "tenon.dev_nodeclasses.yaml", `
metadata: {name: kwok}
spec: {kwok: {}}
`, goDefaults[v1.NodeClass]},
		{"nodeclaim", "tenon.dev_nodeclaims.yaml", nodeClaimBase, goDefaults[v1.NodeClaim]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := validator(t, tc.file)
			crd := fromYAML(t, tc.yaml)
			goObj := tc.defaults(t, deepCopy(t, crd))
			v.Default(crd)
			if !reflect.DeepEqual(normalize(t, crd), normalize(t, goObj)) {
				t.Errorf("defaults differ\nCRD:\n%s\nGo:\n%s", toYAML(t, crd), toYAML(t, goObj))
			}
		})
	}
}

// goDefaults decodes obj into its Go type, applies SetDefaults and encodes it back.
func goDefaults[T any, P interface {
	*T
	SetDefaults()
}](t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	typed := P(decode[T](t, obj))
	typed.SetDefaults()
	data, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// normalize drops what Go's encoding adds and a request would not carry: nulls (an unset
// creationTimestamp) and an empty status.
func normalize(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	out := dropNulls(deepCopy(t, obj)).(map[string]any)
	if s, ok := out["status"].(map[string]any); ok && len(s) == 0 {
		delete(out, "status")
	}
	if m, ok := out["metadata"].(map[string]any); ok && len(m) == 0 {
		delete(out, "metadata")
	}
	return out
}

func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
				continue
			}
			v[k] = dropNulls(e)
		}
	case []any:
		for i := range v {
			v[i] = dropNulls(v[i])
		}
	}
	return v
}

func toYAML(t *testing.T, v any) string {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
