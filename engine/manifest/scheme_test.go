package manifest

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// widget is a cluster-scoped kind of a made-up group, with a field of every
// shape decodeStrict locates errors in.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size  int `json:"size"`
		Parts []struct {
			Count int `json:"count"`
		} `json:"parts"`
		Labels map[string]int `json:"labels"`
	} `json:"spec"`
}

var testScheme = &Scheme{
	Kinds: []Kind{
		KindOf[corev1.Pod]("v1", "Pod", true),
		KindOf[widget]("example.com/v1", "Widget", false),
		KindOf[widget]("example.com/v2", "Widget", false),
	},
	Source:    "in a test",
	Elsewhere: "take it elsewhere",
	Refused:   []Refusal{{Group: "example.com", Kind: "Gadget", Why: "gadgets are not widgets; remove it"}},
}

func TestSchemeDecode(t *testing.T) {
	cases := []struct {
		name string
		in   string
		// wantObj says Decode returns the object (perhaps with errors).
		wantObj  bool
		wantErrs []string
	}{
		{name: "a pod gets the default namespace", in: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", wantObj: true},
		{name: "a widget", in: "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n", wantObj: true},
		{name: "no kind", in: "apiVersion: v1\nmetadata: {name: p}\n",
			wantErrs: []string{"f: document 1: kind: Required value: every document needs a kind; supported kinds: Pod (v1), Widget (example.com/v1), Widget (example.com/v2)"}},
		{name: "no apiVersion", in: "kind: Pod\nmetadata: {name: p}\n", wantErrs: []string{"f: Pod p: apiVersion: Required value: Pod is v1"}},
		{name: "another version", in: "apiVersion: example.com/v3\nkind: Widget\nmetadata: {name: w}\n",
			wantErrs: []string{`f: Widget w: apiVersion: Unsupported value: "example.com/v3": Widget is example.com/v1 or example.com/v2`}},
		{name: "a malformed apiVersion", in: "apiVersion: a/b/c\nkind: Thing\nmetadata: {name: t}\n", wantErrs: []string{`f: Thing t: apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`}},
		{name: "a refused kind", in: "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n",
			wantErrs: []string{`f: Gadget g: kind: Unsupported value: "Gadget": gadgets are not widgets; remove it`}},
		{name: "another group", in: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
			wantErrs: []string{"f: Deployment d: apiVersion: only core and example.com kinds are accepted in a test (Pod (v1), Widget (example.com/v1), Widget (example.com/v2)); Deployment.apps is not one: take it elsewhere"}},
		{name: "an unknown kind of a known group", in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
			wantErrs: []string{`f: ConfigMap c: kind: Unsupported value: "ConfigMap": supported kinds: Pod (v1)`}},
		{name: "unknown fields keep the object", in: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodename: n, Containers: []}\n", wantObj: true,
			wantErrs: []string{
				"f: Pod default/p: spec.Containers: unknown field; remove it or check its spelling (field names are case-sensitive)",
				"f: Pod default/p: spec.nodename: unknown field",
			}},
		{name: "a duplicate JSON field", in: `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "name": "q"}}`, wantObj: true,
			wantErrs: []string{`f: Pod default/q: metadata.name: duplicate field; keep one`}},
		{name: "a namespace on a cluster-scoped kind", in: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\n", wantObj: true,
			wantErrs: []string{`f: Widget ns/w: metadata.namespace: Forbidden: Widget objects are cluster-scoped; remove the namespace "ns"`}},
		{name: "a wrong type, located", in: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: big}\n",
			wantErrs: []string{"f: Widget w: spec.size: Invalid value: expected an integer, got string"}},
		{name: "a wrong type in a list", in: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {parts: [{count: 1}, {count: x}]}\n",
			wantErrs: []string{"f: Widget w: spec.parts[1].count: Invalid value: expected an integer, got string"}},
		{name: "a wrong type in a map", in: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {labels: {a: 1, tenon.dev/b: x}}\n",
			wantErrs: []string{"f: Widget w: spec.labels[tenon.dev/b]: Invalid value: expected an integer, got string"}},
		{name: "a wrong type in metadata", in: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: [a]}\n",
			wantErrs: []string{"f: Pod default/p: metadata.labels: Invalid value: expected a map, got array"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Split(File{Name: "f", Data: []byte(tc.in)})
			if err != nil || len(docs) != 1 {
				t.Fatalf("Split = %d documents, %v", len(docs), err)
			}
			obj, errs := testScheme.Decode(docs[0])
			if (obj != nil) != tc.wantObj {
				t.Errorf("object = %v, want one: %v", obj, tc.wantObj)
			}
			var got []string
			for _, e := range errs {
				var me *Error
				if !errors.As(e, &me) {
					t.Errorf("error %T is not an *Error: %v", e, e)
				}
				got = append(got, e.Error())
			}
			if len(got) != len(tc.wantErrs) {
				t.Fatalf("errors:\n%s\nwant %d:\n%s", strings.Join(got, "\n"), len(tc.wantErrs), strings.Join(tc.wantErrs, "\n"))
			}
			for i, want := range tc.wantErrs {
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("error %d = %q, want it to start %q", i, got[i], want)
				}
			}
			if p, ok := obj.(*corev1.Pod); ok && p.Namespace != "default" {
				t.Errorf("pod namespace = %q, want default", p.Namespace)
			}
		})
	}
}
