package gitops

import (
	"strings"
	"testing"
)

func TestDecodeFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		data     string
		wantObjs int
		wantErrs []string
	}{
		{"valid multi-document", "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: a}\nspec: {kwok: {}}\n---\n---\napiVersion: tenon.dev/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {providerRef: {name: a}}\n", 2, nil},
		{"v1 List", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"tenon.dev/v1","kind":"NodeClass","metadata":{"name":"a"},"spec":{"kwok":{}}}]}`, 1, nil},
		{"kubectl export is cleaned", "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: a, resourceVersion: '5', uid: x}\nspec: {kwok: {}}\nstatus: {}\n", 1, nil},
		{"missing kind", "apiVersion: tenon.dev/v1\nmetadata: {name: a}\n", 0, []string{"f.yaml: document 1: kind: Required value: every document needs a kind; supported kinds: NodePool (tenon.dev/v1), NodeClass (tenon.dev/v1), Provisioner (tenon.dev/v1alpha5)"}},
		{"foreign kind", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", 0, []string{"f.yaml: Deployment web: apiVersion: only tenon.dev kinds"}},
		{"node claim", "apiVersion: tenon.dev/v1\nkind: NodeClaim\nmetadata: {name: c}\n", 0, []string{`NodeClaim c: kind: Unsupported value: "NodeClaim": NodeClaims are the agent's records`}},
		{"unknown version", "apiVersion: tenon.dev/v9\nkind: NodePool\nmetadata: {name: p}\n", 0, []string{`NodePool p: apiVersion: Unsupported value: "tenon.dev/v9": NodePool is tenon.dev/v1`}},
		{"namespaced", "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: a, namespace: x}\nspec: {kwok: {}}\n", 0, []string{`NodeClass x/a: metadata.namespace: Forbidden: NodeClass objects are cluster-scoped; remove the namespace "x"`}},
		{"validation", "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: a}\nspec: {}\n", 0, []string{"NodeClass a: spec: Required value"}},
		{"bad name", "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: A_B}\nspec: {kwok: {}}\n", 0, []string{"NodeClass A_B: metadata.name"}},
		{"duplicate key", "apiVersion: tenon.dev/v1\nkind: NodeClass\nkind: NodeClass\n", 0, []string{"f.yaml: document 1: malformed YAML: unmarshal errors:\n  line 3: key \"kind\" already set in map"}},
		{"wrong type", "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {weight: heavy, template: {spec: {nodeClassRef: {name: a}}}}\n", 0, []string{"f.yaml: NodePool p: spec.weight: Invalid value: expected an integer, got string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, errs := decodeFile("f.yaml", []byte(tc.data))
			if len(objs) != tc.wantObjs {
				t.Errorf("got %d objects, want %d (errors %v)", len(objs), tc.wantObjs, errs)
			}
			if (len(errs) == 0) != (len(tc.wantErrs) == 0) {
				t.Fatalf("errors = %v, want %v", errs, tc.wantErrs)
			}
			var all []string
			for _, e := range errs {
				all = append(all, e.Error())
			}
			joined := strings.Join(all, "\n")
			for _, want := range tc.wantErrs {
				if !strings.Contains(joined, want) {
					t.Errorf("errors lack %q:\n%s", want, joined)
				}
			}
			for _, o := range objs {
				if _, ok := o.obj.Object.Object["status"]; ok || o.obj.Object.GetResourceVersion() != "" || o.obj.Object.GetUID() != "" {
					t.Errorf("object keeps server-set fields: %v", o.obj.Object.Object)
				}
			}
		})
	}
}
