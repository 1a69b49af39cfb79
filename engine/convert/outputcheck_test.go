package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// checkHCL parses the HCL written for res and checks it says exactly what
// was converted: one resource block per object, labelled with its type and
// a label, plus an import block per object with --import, and nothing else
// (no data, provider or locals block a crafted input could smuggle in);
// each resource's attributes are exactly name and its spec's non-empty
// fields; every comment is one line.
func checkHCL(t *testing.T, res *Result, out []byte, withImports bool) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig(out, "out.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("the HCL does not parse: %v\n%s", diags, out)
	}
	body := file.Body.(*hclsyntax.Body)
	if len(body.Attributes) > 0 {
		t.Errorf("top-level attributes %v in:\n%s", slices.Collect(maps.Keys(body.Attributes)), out)
	}
	var resources, imports int
	for _, b := range body.Blocks {
		switch {
		case b.Type == "resource" && len(b.Labels) == 2 && resources < len(res.Objects):
			obj := res.Objects[resources]
			resources++
			if b.Labels[0] != resourceType(obj.Value) {
				t.Errorf("resource %d is a %s, want %s", resources, b.Labels[0], resourceType(obj.Value))
			}
			if got, want := sortedAttrs(b.Body), expectedAttrs(t, obj.Value); !slices.Equal(got, want) {
				t.Errorf("%s %s has attributes %v, want %v:\n%s", b.Labels[0], b.Labels[1], got, want, out)
			}
		case b.Type == "import" && withImports && len(b.Labels) == 0:
			imports++
		default:
			t.Errorf("unexpected block %s %q in:\n%s", b.Type, b.Labels, out)
		}
	}
	if resources != len(res.Objects) || withImports && imports != len(res.Objects) {
		t.Errorf("%d resource and %d import blocks for %d objects:\n%s", resources, imports, len(res.Objects), out)
	}
	checkComments(t, out)
}

// checkComments checks that every line outside the blocks' bodies that is
// not blank is a comment: nothing from the input escaped the header.
func checkComments(t *testing.T, out []byte) {
	t.Helper()
	header, _, _ := bytes.Cut(out, []byte("\n\n# From"))
	for i, line := range strings.Split(string(header), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			t.Errorf("header line %d is not a comment: %q", i+1, line)
		}
	}
}

func sortedAttrs(b *hclsyntax.Body) []string {
	return slices.Sorted(maps.Keys(b.Attributes))
}

// expectedAttrs derives a resource's attributes from the object's JSON,
// independently of the HCL writer: name, and each spec field that is not
// empty, in snake_case; an inline Provisioner provider is aws (provider is
// a Terraform meta-argument).
func expectedAttrs(t *testing.T, obj any) []string {
	t.Helper()
	raw, err := json.Marshal(reflect.ValueOf(obj).Elem().FieldByName("Spec").Interface())
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	out := []string{"name"}
	for k, v := range spec {
		if isEmptyJSON(v) || k == "limits" && emptyProvisionerLimits(v) {
			continue
		}
		if k == "provider" {
			k = "aws"
		}
		out = append(out, snake(k))
	}
	slices.Sort(out)
	return out
}

// emptyProvisionerLimits reports whether v is a Provisioner's limits with
// no resources ({resources: {}}), which write no attribute.
func emptyProvisionerLimits(v any) bool {
	m, _ := v.(map[string]any)
	r, ok := m["resources"]
	return ok && len(m) == 1 && isEmptyJSON(r)
}

func isEmptyJSON(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// checkYAML checks the YAML written for res: one document per object, each
// the object, and a header of comments only.
func checkYAML(t *testing.T, res *Result, out []byte) {
	t.Helper()
	dec := yamlv3.NewDecoder(bytes.NewReader(out))
	var docs []map[string]any
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the YAML does not parse: %v\n%s", err, out)
		}
		if doc != nil {
			docs = append(docs, doc)
		}
	}
	if len(docs) != len(res.Objects) {
		t.Fatalf("%d YAML documents for %d objects:\n%s", len(docs), len(res.Objects), out)
	}
	for i, obj := range res.Objects {
		want, err := MarshalYAML(obj.Value)
		if err != nil {
			t.Fatal(err)
		}
		var wantDoc map[string]any
		if err := yaml.Unmarshal(want, &wantDoc); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(docs[i])
		exp, _ := json.Marshal(wantDoc)
		if !bytes.Equal(got, exp) {
			t.Errorf("document %d = %s, want %s", i+1, got, exp)
		}
	}
	header, _, _ := bytes.Cut(out, []byte("\n---\n"))
	for i, line := range strings.Split(string(header), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			t.Errorf("header line %d is not a comment: %q", i+1, line)
		}
	}
}

// checkOutputs writes res as HCL (with import blocks) and YAML and checks
// both.
func checkOutputs(t *testing.T, res *Result) {
	t.Helper()
	var hclOut, yamlOut bytes.Buffer
	if err := WriteHCL(&hclOut, res, HCLOptions{Import: true}); err != nil {
		t.Fatal(err)
	}
	checkHCL(t, res, hclOut.Bytes(), true)
	if err := WriteYAML(&yamlOut, res); err != nil {
		t.Fatal(err)
	}
	checkYAML(t, res, yamlOut.Bytes())
}

// injections are strings that end a comment line in HCL or YAML, or would
// start a new block or document after it.
var injections = []string{
	"x\ndata \"external\" \"pwn\" { program = [\"sh\", \"-c\", \"id\"] }\n#",
	"x\r\ndata \"external\" \"pwn\" { program = [\"id\"] }\r\n#",
	"x\n---\nkind: Secret\n#",
	"x\u2028data \"external\" \"pwn\" {}\u2029",
	"x\u0085---\u0085kind: Secret",
	"x\x1b[2K\x1b[1Ahidden",
	"x\u202egnp.exe",
	"x\"]\n}\nresource \"null_resource\" \"pwn\" {\n#",
}

// TestConvertCommentInjection: keys of unknown fields and annotations, and
// file names, used to be copied into the NOT MAPPED comment header with a
// # before their first line only, so a key holding a line break added a
// live data "external" block to the HCL (run by terraform plan) or a ---
// document to the YAML.
func TestConvertCommentInjection(t *testing.T) {
	for i, s := range injections {
		key, _ := json.Marshal(s)
		docs := map[string]string{
			"unknown spec field": fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n  %s: 1\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n", key),
			"annotation key":     fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np, annotations: {%s: v}}\nspec:\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n", key),
			"label value":        fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np, labels: {team: %s}}\nspec:\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n", key),
		}
		for name, doc := range docs {
			t.Run(fmt.Sprintf("%s %d", name, i), func(t *testing.T) {
				res, err := Convert([]Input{{Name: "in.yaml", Data: []byte(doc)}}, Options{})
				if err != nil {
					return // refused as bad input: nothing is written
				}
				checkOutputs(t, res)
			})
		}
		t.Run(fmt.Sprintf("file name %d", i), func(t *testing.T) {
			doc := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n  weight: 5\n  extra: 1\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n"
			res, err := Convert([]Input{{Name: s, Data: []byte(doc)}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkOutputs(t, res)
		})
	}
}

// TestConvertQuantityOverflow: a quantity past int64 was rewritten to
// 9223372036854775807 without a word.
func TestConvertQuantityOverflow(t *testing.T) {
	for _, q := range []string{"9999999Ei", "1e400", "8E"} {
		doc := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n  limits: {cpu: " + q + "}\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n"
		_, err := Convert([]Input{{Name: "in.yaml", Data: []byte(doc)}}, Options{})
		if err == nil || !strings.Contains(err.Error(), "in.yaml: NodePool np: spec.limits") {
			t.Errorf("limits.cpu %s: err = %v, want an error at spec.limits", q, err)
		}
	}
}

// TestConvertEmptyInput: an empty file used to convert to a header saying
// every field was mapped, exit 0.
func TestConvertEmptyInput(t *testing.T) {
	for _, data := range []string{"", "# only a comment\n---\n"} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), nil, strings.NewReader(data), &stdout, &stderr); code != ExitBadInput || !strings.Contains(stderr.String(), "<stdin>: the file") {
			t.Errorf("%q: exit %d, stderr %q", data, code, stderr.String())
		}
	}
}
