package convert

import (
	"errors"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// TestBadInput checks that input which cannot be converted is an error
// naming the file, the document or object, and the field.
func TestBadInput(t *testing.T) {
	pool := func(extra string) string {
		return `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
` + extra
	}
	tests := []struct {
		name string
		in   string
		opts Options
		want []string // substrings of one error
	}{
		{"malformed YAML", "apiVersion: karpenter.sh/v1\nkind: [\n", Options{}, []string{"in.yaml: document 1: malformed YAML", "line"}},
		{"malformed second document", pool("") + "---\nkind: NodePool\n  bad: indent\n", Options{}, []string{"in.yaml: document 2: malformed YAML", "line 11"}},
		{"not an object", "- a\n- b\n", Options{}, []string{"in.yaml: document 1, item 1: a list item must be an object with apiVersion, kind and metadata"}},
		{"unknown kind", "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: x}\n", Options{}, []string{`in.yaml: NodeClaim x: kind: Unsupported value: "NodeClaim": supported kinds: Provisioner (karpenter.sh/v1alpha5)`, "EC2NodeClass (karpenter.k8s.aws/v1)"}},
		{"unknown apiVersion", "apiVersion: karpenter.sh/v2\nkind: NodePool\nmetadata: {name: x}\n", Options{}, []string{`in.yaml: NodePool x: apiVersion: Unsupported value: "karpenter.sh/v2": NodePool is karpenter.sh/v1beta1 or karpenter.sh/v1`}},
		{"tenon object", "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: x}\n", Options{}, []string{`in.yaml: NodePool x: apiVersion: Unsupported value: "tenon.dev/v1": already a Tenon object; apply it as it is`}},
		{"no kind", "metadata: {name: x}\n", Options{}, []string{"in.yaml: document 1: kind: Required value: every document needs a kind; supported kinds: Provisioner"}},
		{"wrong type", pool("  weight: ten\n"), Options{}, []string{"in.yaml: NodePool pool: spec.weight: expected an integer, got \"ten\""}},
		{"wrong type in a list", pool("  disruption: {consolidateAfter: 0s, budgets: [{nodes: 5, reasons: Empty}]}\n"), Options{}, []string{"spec.disruption.budgets[0].nodes: expected a string, got the number 5"}},
		{"bad quantity", pool("  limits: {cpu: lots}\n"), Options{}, []string{"spec.limits[cpu]: \"lots\" is not a quantity"}},
		{"missing name", "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {}\nspec: {role: R}\n", Options{}, []string{"metadata.name: missing"}},
		{"invalid for Tenon", pool("  weight: 500\n"), Options{}, []string{"in.yaml: NodePool pool: spec.weight: invalid for Tenon"}},
		{
			"invalid moved field names the input field",
			"apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template: {spec: {nodeClassRef: {name: d}}}\n  disruption: {expireAfter: forever}\n",
			Options{}, []string{"in.yaml: NodePool p: spec.disruption.expireAfter: invalid for Tenon", "(Tenon field spec.template.spec.expireAfter)"},
		},
		{
			"invalid requirement after a dropped one keeps its input index",
			pool("      requirements:\n        - {key: karpenter.sh/nodepool, operator: In, values: [a]}\n        - {key: team, operator: Near, values: [a]}\n"),
			Options{}, []string{"spec.template.spec.requirements[1].operator: invalid for Tenon"},
		},
		{
			"reference to another cloud's node class",
			"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {template: {spec: {nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: d}}}}\n",
			Options{}, []string{"spec.template.spec.nodeClassRef: references a KWOKNodeClass of karpenter.kwok.sh"},
		},
		{
			"provisioner referencing an EC2NodeClass",
			"apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {providerRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: d}}\n",
			Options{}, []string{"spec.providerRef: references a EC2NodeClass of karpenter.k8s.aws/v1beta1"},
		},
		{
			"AWSNodeTemplate without an instance profile",
			"apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: t}\nspec: {amiFamily: AL2023}\n",
			Options{}, []string{"in.yaml: AWSNodeTemplate t: spec: invalid for Tenon", "--default-instance-profile"},
		},
		{
			"inline provider without an instance profile",
			"apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {provider: {amiFamily: AL2023}}\n",
			Options{}, []string{"in.yaml: Provisioner p: spec.provider.instanceProfile: invalid for Tenon", "--default-instance-profile"},
		},
		{"duplicate NodePool", pool("") + "---\n" + pool(""), Options{}, []string{"in.yaml: NodePool pool (document 2): becomes node pool \"pool\" like in.yaml: NodePool pool (document 1)", "rename one"}},
		{
			"provisioner and nodepool share a name",
			pool("") + "---\napiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: pool}\nspec: {providerRef: {name: d}}\n",
			Options{}, []string{"in.yaml: Provisioner pool (document 2): becomes node pool \"pool\" like in.yaml: NodePool pool (document 1)"},
		},
		{"missing spec", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\n", Options{}, []string{"in.yaml: NodePool p: spec: missing"}},
		{"list item", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: karpenter.sh/v1\n  kind: Widget\n  metadata: {name: w}\n", Options{}, []string{`in.yaml: Widget w: kind: Unsupported value: "Widget": supported kinds:`}},
		{"unnamed list item", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {}}\n", Options{}, []string{"in.yaml: NodePool (document 1, item 1): metadata.name: missing"}},
		{"another group", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n", Options{}, []string{"in.yaml: PodDisruptionBudget web: apiVersion: ", "PodDisruptionBudget.policy is not one: leave it out of the input"}},
		{"a Deployment no CapacityBuffer refers to", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", Options{}, []string{"in.yaml: Deployment web: no CapacityBuffer in the input refers to it: tenon convert reads Deployment only as the shape of a buffer's pods"}},
		{"a JSON array", `[{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"}, "spec": {"weight": "x"}}]`, Options{}, []string{"in.yaml: NodePool p: spec.weight:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convertYAML(t, tt.in, tt.opts)
			if err == nil {
				t.Fatal("Convert succeeded, want an error")
			}
			for _, e := range manifest.Flatten(err) {
				var me *manifest.Error
				if !errors.As(e, &me) {
					t.Errorf("error %T is not a *manifest.Error: %v", e, e)
				}
				if all(e.Error(), tt.want) {
					return
				}
			}
			t.Errorf("no error contains all of %q; got:\n%v", tt.want, err)
		})
	}
}

func all(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
