package convert

import (
	"bytes"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestHCLValuesReadBack writes HCL, parses it, evaluates the attributes as
// Terraform would, and checks they hold the converted values: escaping of
// template sequences, heredocs, quoted map keys and references.
func TestHCLValuesReadBack(t *testing.T) {
	userData := "#!/bin/bash\necho \"${HOME}\" %{ not a directive }\ncat <<EOF\nEOF\n"
	res, err := convertYAML(t, `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: web.pool}
spec:
  template:
    metadata: {labels: {karpenter.sh/capacity-type: spot}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, m6i], minValues: 2}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiFamily: AL2023
  role: R
  tags: {owner: "${CLUSTER_NAME}-team"}
  userData: |
    #!/bin/bash
    echo "${HOME}" %{ not a directive }
    cat <<EOF
    EOF
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteHCL(&out, res, HCLOptions{}); err != nil {
		t.Fatal(err)
	}
	file, diags := hclsyntax.ParseConfig(out.Bytes(), "out.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %v\n%s", diags, out.String())
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{
		"tenon_node_class": cty.ObjectVal(map[string]cty.Value{"default": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("default")})}),
	}}
	attrs := map[string]cty.Value{}
	for _, block := range file.Body.(*hclsyntax.Body).Blocks {
		for name, attr := range block.Body.Attributes {
			v, diags := attr.Expr.Value(ctx)
			if diags.HasErrors() {
				t.Fatalf("%s.%s: %v", block.Labels[1], name, diags)
			}
			attrs[block.Labels[1]+"."+name] = v
		}
	}
	checks := []struct {
		name string
		got  cty.Value
		want cty.Value
	}{
		{"pool name", attrs["web_pool.name"], cty.StringVal("web.pool")},
		{"node_class reference", attrs["web_pool.template"].GetAttr("node_class"), cty.StringVal("default")},
		{"label key", attrs["web_pool.template"].GetAttr("metadata").GetAttr("labels").GetAttr("tenon.dev/capacity-type"), cty.StringVal("spot")},
		{"min_values", attrs["web_pool.template"].GetAttr("requirements").Index(cty.NumberIntVal(0)).GetAttr("min_values"), cty.NumberIntVal(2)},
		{"user data heredoc", attrs["default.aws"].GetAttr("user_data"), cty.StringVal(userData)},
		{"placeholder kept literally", attrs["default.aws"].GetAttr("tags").GetAttr("owner"), cty.StringVal("${CLUSTER_NAME}-team")},
	}
	for _, c := range checks {
		if !c.got.RawEquals(c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// TestResourceLabels checks that Terraform resource names are identifiers
// even when object names are not.
func TestResourceLabels(t *testing.T) {
	res, err := convertYAML(t, `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: a.b}
spec: {amiFamily: AL2023, role: R}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: a-b}
spec: {amiFamily: AL2023, role: R}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: 1st}
spec: {amiFamily: AL2023, role: R}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := resourceLabels(res.Objects)
	want := []string{"a_b", "a-b", "_1st"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("labels = %q, want %q", got, want)
			break
		}
	}
	for _, l := range got {
		if !hclsyntax.ValidIdentifier(l) {
			t.Errorf("label %q is not an HCL identifier", l)
		}
	}
}
