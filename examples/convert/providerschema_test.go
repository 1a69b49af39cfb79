// Package convert_test holds the tests that tie `tenon convert`'s HCL and
// the hand-written guides to the provider's resource schemas. It lives here,
// beside the Karpenter inputs it converts, because engine packages may not
// import provider/ (DESIGN §3) and this test needs both.
package convert_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"

	"github.com/tenonhq/terraform-provider-tenon/engine/convert"
	"github.com/tenonhq/terraform-provider-tenon/provider"
)

// guides are the hand-written guides whose HCL must match the schemas.
var guides = []string{
	"../../docs/guides/migrating-from-karpenter.md",
	"../../docs/guides/capacity-policy-recipes.md",
	"../../docs/guides/observability.md",
}

// hclSource is one piece of HCL to check, with a name for messages.
type hclSource struct {
	name string
	src  []byte
}

// TestHCLMatchesProviderSchema decodes every tenon_* resource that tenon
// convert writes for examples/convert (recipes included) and that the
// guides show, against the provider's own schema as Terraform receives it
// (GetProviderSchema over protocol 6): unknown attributes, missing required
// ones and wrong types all fail. A resource type the provider does not
// serve yet is skipped, saying so.
func TestHCLMatchesProviderSchema(t *testing.T) {
	ctx := context.Background()
	server := providerserver.NewProtocol6(provider.New("test")())()
	resp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatalf("GetProviderSchema: %v", err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("GetProviderSchema: %s: %s", d.Summary, d.Detail)
		}
	}
	blocks := map[string][]*hclsyntax.Block{}
	for _, s := range hclSources(t) {
		file, diags := hclsyntax.ParseConfig(s.src, s.name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Errorf("%s does not parse: %v", s.name, diags)
			continue
		}
		for _, b := range file.Body.(*hclsyntax.Body).Blocks {
			if b.Type == "resource" && len(b.Labels) == 2 && strings.HasPrefix(b.Labels[0], "tenon_") {
				blocks[b.Labels[0]] = append(blocks[b.Labels[0]], b)
			}
		}
	}
	for _, rt := range []string{convert.ResourceNodePool, convert.ResourceNodeClass, convert.ResourceProvisioner} {
		if len(blocks[rt]) == 0 {
			t.Errorf("no %s resource in the converted examples or the guides; add an example", rt)
		}
	}
	for _, rt := range sortedKeys(blocks) {
		t.Run(rt, func(t *testing.T) {
			schema := resp.ResourceSchemas[rt]
			if schema == nil {
				t.Skipf("the provider has no %s resource yet: tenon convert writes it by the snake_case rule (DESIGN §4) until it does", rt)
			}
			spec := objectSpec(schema.Block)
			for _, b := range blocks[rt] {
				if _, diags := hcldec.Decode(b.Body, spec, evalContext()); diags.HasErrors() {
					t.Errorf("%s %q does not match the provider's schema:\n%s", rt, b.Labels[1], diagText(diags))
				}
				// cty's conversion drops object attributes the type does not
				// have; Terraform rejects them, and so does this check.
				for name, attr := range b.Body.Attributes {
					as, ok := spec[name].(*hcldec.AttrSpec)
					if !ok {
						continue
					}
					v, diags := attr.Expr.Value(evalContext())
					if diags.HasErrors() {
						continue
					}
					for _, extra := range extraAttributes(v, as.Type, name) {
						t.Errorf("%s %q (%s): attribute %s is not in the provider's schema", rt, b.Labels[1], attr.SrcRange, extra)
					}
				}
			}
		})
	}
}

// hclSources converts every Karpenter example and collects the guides' HCL.
func hclSources(t *testing.T) []hclSource {
	t.Helper()
	var out []hclSource
	paths, _ := filepath.Glob("*.yaml")
	recipes, _ := filepath.Glob("recipes/*.yaml")
	for _, p := range append(paths, recipes...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := convert.Convert([]convert.Input{{Name: p, Data: data}}, convert.Options{ClusterName: "prod"})
		if err != nil {
			t.Fatalf("converting %s: %v", p, err)
		}
		var buf bytes.Buffer
		if err := convert.WriteHCL(&buf, res, convert.HCLOptions{Import: true}); err != nil {
			t.Fatal(err)
		}
		out = append(out, hclSource{name: "tenon convert " + p, src: buf.Bytes()})
	}
	for _, g := range guides {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatalf("reading guide: %v", err)
		}
		for i, block := range hclBlocks(string(data)) {
			out = append(out, hclSource{name: fmt.Sprintf("%s (hcl block %d)", filepath.Base(g), i+1), src: []byte(block)})
		}
	}
	return out
}

var fence = regexp.MustCompile("(?ms)^```hcl\n(.*?)^```")

// hclBlocks returns the ```hcl blocks of a Markdown document.
func hclBlocks(md string) []string {
	var out []string
	for _, m := range fence.FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// evalContext resolves references (tenon_node_class.x.name, var.y) to
// unknown values, as Terraform does at plan time before they are known.
func evalContext() *hcl.EvalContext {
	vars := map[string]cty.Value{}
	for _, root := range []string{"var", "local", "data", "module", "tenon_node_class", "tenon_nodepool", "tenon_provisioner", "tenon_agent"} {
		vars[root] = cty.DynamicVal
	}
	return &hcl.EvalContext{Variables: vars}
}

// objectSpec builds the decoder spec of a schema block as Terraform does:
// attributes the configuration may set (not computed-only), nested blocks.
func objectSpec(b *tfprotov6.SchemaBlock) hcldec.ObjectSpec {
	spec := hcldec.ObjectSpec{}
	for _, a := range b.Attributes {
		if a.Computed && !a.Optional && !a.Required {
			continue
		}
		spec[a.Name] = &hcldec.AttrSpec{Name: a.Name, Type: attrType(a), Required: a.Required}
	}
	for _, nb := range b.BlockTypes {
		nested := objectSpec(nb.Block)
		switch nb.Nesting {
		case tfprotov6.SchemaNestedBlockNestingModeList:
			spec[nb.TypeName] = &hcldec.BlockListSpec{TypeName: nb.TypeName, Nested: nested, MinItems: int(nb.MinItems), MaxItems: int(nb.MaxItems)}
		case tfprotov6.SchemaNestedBlockNestingModeSet:
			spec[nb.TypeName] = &hcldec.BlockSetSpec{TypeName: nb.TypeName, Nested: nested, MinItems: int(nb.MinItems), MaxItems: int(nb.MaxItems)}
		default:
			spec[nb.TypeName] = &hcldec.BlockSpec{TypeName: nb.TypeName, Nested: nested, Required: nb.MinItems > 0}
		}
	}
	return spec
}

// attrType is the cty type constraint of an attribute.
func attrType(a *tfprotov6.SchemaAttribute) cty.Type {
	if a.NestedType == nil {
		return ctyType(a.Type)
	}
	attrs := map[string]cty.Type{}
	var optional []string
	for _, na := range a.NestedType.Attributes {
		if na.Computed && !na.Optional && !na.Required {
			continue
		}
		attrs[na.Name] = attrType(na)
		if !na.Required {
			optional = append(optional, na.Name)
		}
	}
	obj := cty.ObjectWithOptionalAttrs(attrs, optional)
	switch a.NestedType.Nesting {
	case tfprotov6.SchemaObjectNestingModeList:
		return cty.List(obj)
	case tfprotov6.SchemaObjectNestingModeSet:
		return cty.Set(obj)
	case tfprotov6.SchemaObjectNestingModeMap:
		return cty.Map(obj)
	}
	return obj
}

// ctyType converts a tftypes type into the cty type Terraform uses.
func ctyType(t tftypes.Type) cty.Type {
	switch {
	case t.Is(tftypes.String):
		return cty.String
	case t.Is(tftypes.Number):
		return cty.Number
	case t.Is(tftypes.Bool):
		return cty.Bool
	case t.Is(tftypes.DynamicPseudoType):
		return cty.DynamicPseudoType
	}
	switch tt := t.(type) {
	case tftypes.List:
		return cty.List(ctyType(tt.ElementType))
	case tftypes.Set:
		return cty.Set(ctyType(tt.ElementType))
	case tftypes.Map:
		return cty.Map(ctyType(tt.ElementType))
	case tftypes.Tuple:
		elems := make([]cty.Type, len(tt.ElementTypes))
		for i, e := range tt.ElementTypes {
			elems[i] = ctyType(e)
		}
		return cty.Tuple(elems)
	case tftypes.Object:
		attrs := map[string]cty.Type{}
		var optional []string
		for name, at := range tt.AttributeTypes {
			attrs[name] = ctyType(at)
			if _, ok := tt.OptionalAttributes[name]; ok {
				optional = append(optional, name)
			}
		}
		return cty.ObjectWithOptionalAttrs(attrs, optional)
	}
	panic(fmt.Sprintf("no cty type for %s", t))
}

// extraAttributes lists the object attributes of v, at any depth, that the
// type constraint t does not have.
func extraAttributes(v cty.Value, t cty.Type, path string) []string {
	if !v.IsKnown() || v.IsNull() {
		return nil
	}
	vt := v.Type()
	var out []string
	switch {
	case t.IsObjectType() && (vt.IsObjectType() || vt.IsMapType()):
		for name, av := range v.AsValueMap() {
			if !t.HasAttribute(name) {
				out = append(out, path+"."+name)
				continue
			}
			out = append(out, extraAttributes(av, t.AttributeType(name), path+"."+name)...)
		}
	case (t.IsListType() || t.IsSetType()) && (vt.IsTupleType() || vt.IsListType() || vt.IsSetType()):
		for i, ev := range v.AsValueSlice() {
			out = append(out, extraAttributes(ev, t.ElementType(), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case t.IsMapType() && (vt.IsObjectType() || vt.IsMapType()):
		for k, ev := range v.AsValueMap() {
			out = append(out, extraAttributes(ev, t.ElementType(), path+"["+k+"]")...)
		}
	}
	slices.Sort(out)
	return out
}

func diagText(diags hcl.Diagnostics) string {
	var sb strings.Builder
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		where := ""
		if d.Subject != nil {
			where = d.Subject.String() + ": "
		}
		fmt.Fprintf(&sb, "  %s%s: %s\n", where, d.Summary, d.Detail)
	}
	return sb.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
