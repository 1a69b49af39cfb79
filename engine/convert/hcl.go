package convert

import (
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// Terraform resource types of the tenon provider.
const (
	ResourceNodePool    = "tenon_nodepool"
	ResourceNodeClass   = "tenon_node_class"
	ResourceProvisioner = "tenon_provisioner"
	ResourceNodeOverlay = "tenon_node_overlay"
)

// shape says how the HCL writer renders one API field. The default, for a
// field not listed, is an attribute named after the JSON field in
// snake_case, with nested objects as object values and lists of objects as
// lists of object values.
type shape struct {
	kind shapeKind
	// name overrides the snake_case name.
	name string
}

type shapeKind int

const (
	// flatten renders a nested object's fields in the enclosing object.
	flatten shapeKind = iota + 1
	// asReference renders a reference to a NodeClass as its name, or as a
	// reference to the tenon_node_class resource when that is in the output.
	asReference
	// asResources renders a v1alpha5 limits object as its resources map.
	asResources
)

// shapes are the HCL shapes of each resource, by JSON path below the object
// (spec's fields are the resource's attributes, metadata.name is name). The
// provider's schemas follow one rule, which the default here implements:
// the API's fields in snake_case, nested objects as nested attributes
// (template = {...}), lists of objects as lists of objects. The exceptions
// are listed; TestHCLMatchesProviderSchema (examples/convert) holds this table
// to the provider's schemas.
var shapes = map[string]map[string]shape{
	ResourceNodePool: {
		"spec.template.spec":              {kind: flatten},
		"spec.template.spec.nodeClassRef": {kind: asReference, name: "node_class"},
	},
	ResourceNodeClass:   {},
	ResourceNodeOverlay: {},
	ResourceProvisioner: {
		// provider is a meta-argument Terraform reserves in every resource
		// block, so the inline provider cannot take its snake_case name.
		"spec.provider":    {name: "aws"},
		"spec.providerRef": {kind: asReference, name: "provider_ref"},
		"spec.limits":      {kind: asResources, name: "limits"},
	},
}

// resourceType returns the Terraform resource type of a converted object.
func resourceType(obj any) string {
	switch obj.(type) {
	case *v1.NodePool:
		return ResourceNodePool
	case *v1.NodeClass:
		return ResourceNodeClass
	case *v1alpha5.Provisioner:
		return ResourceProvisioner
	case *v1.NodeOverlay:
		return ResourceNodeOverlay
	}
	return ""
}

// HCLOptions tune WriteHCL.
type HCLOptions struct {
	// Import adds an import block for every resource, so `terraform plan`
	// adopts objects that already exist in the cluster.
	Import bool
}

// WriteHCL writes the objects as tenon_* resources (and import blocks),
// formatted by hclwrite, after the header comment. The object's own
// metadata labels and annotations have no attribute and are reported.
func WriteHCL(w io.Writer, res *Result, opts HCLOptions) error {
	res = withHCLFindings(res)
	file := hclwrite.NewEmptyFile()
	body := file.Body()
	labels := resourceLabels(res.Objects)
	classes := map[string]string{}
	for i, obj := range res.Objects {
		if nc, ok := obj.Value.(*v1.NodeClass); ok {
			classes[nc.Name] = labels[i]
		}
	}
	for i, obj := range res.Objects {
		rt := resourceType(obj.Value)
		if i > 0 {
			body.AppendNewline()
		}
		body.AppendUnstructuredTokens(commentTokens("From " + obj.Source))
		block := body.AppendNewBlock("resource", []string{rt, labels[i]})
		e := &hclEmitter{shapes: shapes[rt], classes: classes}
		e.object(block.Body(), reflect.ValueOf(obj.Value).Elem())
		if opts.Import {
			body.AppendNewline()
			imp := body.AppendNewBlock("import", nil)
			imp.Body().SetAttributeTraversal("to", hcl.Traversal{hcl.TraverseRoot{Name: rt}, hcl.TraverseAttr{Name: labels[i]}})
			imp.Body().SetAttributeValue("id", cty.StringVal(objectName(obj.Value)))
		}
	}
	if err := writeComment(w, header(res)); err != nil {
		return err
	}
	if len(res.Objects) > 0 {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	_, err := w.Write(hclwrite.Format(file.Bytes()))
	return err
}

// withHCLFindings adds to a copy of res the object labels and annotations
// the HCL cannot carry.
func withHCLFindings(res *Result) *Result {
	out := *res
	out.Unmapped = slices.Clone(res.Unmapped)
	for _, obj := range res.Objects {
		m, ok := obj.Value.(metav1.Object)
		if !ok {
			continue
		}
		file, object, _ := strings.Cut(obj.Source, ": ")
		for _, k := range sortedKeys(m.GetLabels()) {
			out.Unmapped = append(out.Unmapped, Finding{File: file, Object: object, Field: "metadata.labels[" + k + "]",
				Reason: "the tenon_* resources do not manage the object's own labels (node labels go in template.metadata); use -o yaml to keep them"})
		}
		for _, k := range sortedKeys(m.GetAnnotations()) {
			out.Unmapped = append(out.Unmapped, Finding{File: file, Object: object, Field: "metadata.annotations[" + k + "]",
				Reason: "the tenon_* resources do not manage the object's own annotations (node annotations go in template.metadata); use -o yaml to keep them"})
		}
	}
	return &out
}

func objectName(obj any) string {
	return reflect.ValueOf(obj).Elem().FieldByName("ObjectMeta").FieldByName("Name").String()
}

var notIdentifier = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// resourceLabels returns a Terraform resource name for each object: its
// name with characters HCL identifiers cannot hold replaced by _, unique
// within the resource type.
func resourceLabels(objs []Object) []string {
	used := map[string]bool{}
	out := make([]string, len(objs))
	for i, obj := range objs {
		label := notIdentifier.ReplaceAllString(objectName(obj.Value), "_")
		if label == "" || !unicode.IsLetter(rune(label[0])) && label[0] != '_' {
			label = "_" + label
		}
		rt := resourceType(obj.Value)
		base := label
		for n := 2; used[rt+"."+label]; n++ {
			label = fmt.Sprintf("%s_%d", base, n)
		}
		used[rt+"."+label] = true
		out[i] = label
	}
	return out
}

// commentTokens is a one-line comment; text is made manifest.Printable so
// that nothing in it can end the comment.
func commentTokens(text string) hclwrite.Tokens {
	return hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte("# " + manifest.Printable(text) + "\n")}}
}

// hclEmitter renders one object.
type hclEmitter struct {
	shapes  map[string]shape
	classes map[string]string
}

// object renders the object's name and spec into body.
func (e *hclEmitter) object(body *hclwrite.Body, v reflect.Value) {
	body.SetAttributeValue("name", cty.StringVal(v.FieldByName("ObjectMeta").FieldByName("Name").String()))
	e.body(body, v.FieldByName("Spec"), "spec")
}

// item is one attribute of a body or object, in output order.
type item struct {
	name   string
	tokens hclwrite.Tokens
}

// body renders a struct's items into an HCL body.
func (e *hclEmitter) body(body *hclwrite.Body, v reflect.Value, path string) {
	for _, it := range e.items(v, path) {
		body.SetAttributeRaw(it.name, it.tokens)
	}
}

// items lists a struct's non-empty fields, in field order, shaped by the
// resource's shapes.
func (e *hclEmitter) items(v reflect.Value, path string) []item {
	var out []item
	t := v.Type()
	for i := range t.NumField() {
		jsonName := jsonName(t.Field(i))
		fv := v.Field(i)
		if jsonName == "" || jsonName == "-" || isEmpty(fv) {
			continue
		}
		p := path + "." + jsonName
		sh := e.shapes[p]
		name := sh.name
		if name == "" {
			name = snake(jsonName)
		}
		switch sh.kind {
		case flatten:
			out = append(out, e.items(deref(fv), p)...)
		case asReference:
			out = append(out, item{name: name, tokens: e.reference(deref(fv).FieldByName("Name").String())})
		case asResources:
			if res := deref(fv).FieldByName("Resources"); !isEmpty(res) {
				out = append(out, item{name: name, tokens: tokens(res)})
			}
		default:
			out = append(out, item{name: name, tokens: e.value(fv, p)})
		}
	}
	return out
}

// reference renders a NodeClass name: a reference to the tenon_node_class
// resource when it is in the output (so Terraform orders them), else the name.
func (e *hclEmitter) reference(name string) hclwrite.Tokens {
	if label, ok := e.classes[name]; ok {
		return hclwrite.TokensForTraversal(hcl.Traversal{hcl.TraverseRoot{Name: ResourceNodeClass}, hcl.TraverseAttr{Name: label}, hcl.TraverseAttr{Name: "name"}})
	}
	return hclwrite.TokensForValue(cty.StringVal(name))
}

// value renders a field as an expression: structs (alone or in lists) as
// objects whose fields follow the shapes, anything else with tokens.
func (e *hclEmitter) value(v reflect.Value, path string) hclwrite.Tokens {
	v = deref(v)
	switch {
	case v.Kind() == reflect.Struct && v.Type() != quantityType:
		var attrs []hclwrite.ObjectAttrTokens
		for _, it := range e.items(v, path) {
			attrs = append(attrs, hclwrite.ObjectAttrTokens{Name: hclwrite.TokensForIdentifier(it.name), Value: it.tokens})
		}
		return hclwrite.TokensForObject(attrs)
	case v.Kind() == reflect.Slice && deref(reflect.New(v.Type().Elem()).Elem()).Kind() == reflect.Struct && v.Type().Elem() != quantityType:
		items := make([]hclwrite.Tokens, v.Len())
		for i := range items {
			items[i] = e.value(v.Index(i), path)
		}
		return objectList(items)
	}
	return tokens(v)
}

// jsonName returns a struct field's JSON name, "" for fields without one.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

func deref(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return v
}

// isEmpty reports whether a field is left out of the output, as omitempty
// leaves it out of JSON.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return v.IsZero()
}

var quantityType = reflect.TypeFor[resource.Quantity]()

// tokens renders a Go value as an HCL expression: structs as objects with
// snake_case keys in field order, maps as objects with their keys as they
// are (sorted), slices as lists.
func tokens(v reflect.Value) hclwrite.Tokens {
	v = deref(v)
	if v.Type() == quantityType {
		q := v.Interface().(resource.Quantity)
		return hclwrite.TokensForValue(cty.StringVal(q.String()))
	}
	switch v.Kind() {
	case reflect.String:
		if heredoc, ok := heredocTokens(v.String()); ok {
			return heredoc
		}
		return hclwrite.TokensForValue(cty.StringVal(v.String()))
	case reflect.Bool:
		return hclwrite.TokensForValue(cty.BoolVal(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return hclwrite.TokensForValue(cty.NumberIntVal(v.Int()))
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		attrs := make([]hclwrite.ObjectAttrTokens, 0, len(keys))
		for _, k := range keys {
			attrs = append(attrs, hclwrite.ObjectAttrTokens{
				Name:  hclwrite.TokensForValue(cty.StringVal(k)),
				Value: tokens(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))),
			})
			if hclsyntax.ValidIdentifier(k) {
				attrs[len(attrs)-1].Name = hclwrite.TokensForIdentifier(k)
			}
		}
		return hclwrite.TokensForObject(attrs)
	case reflect.Slice:
		items := make([]hclwrite.Tokens, v.Len())
		for i := range items {
			items[i] = tokens(v.Index(i))
		}
		if deref(reflect.New(v.Type().Elem()).Elem()).Kind() != reflect.Struct || v.Type().Elem() == quantityType {
			return hclwrite.TokensForTuple(items)
		}
		return objectList(items)
	case reflect.Struct:
		var attrs []hclwrite.ObjectAttrTokens
		t := v.Type()
		for i := range t.NumField() {
			name := jsonName(t.Field(i))
			if name == "" || name == "-" || isEmpty(v.Field(i)) {
				continue
			}
			attrs = append(attrs, hclwrite.ObjectAttrTokens{Name: hclwrite.TokensForIdentifier(snake(name)), Value: tokens(v.Field(i))})
		}
		return hclwrite.TokensForObject(attrs)
	}
	panic(fmt.Sprintf("convert: no HCL rendering for %s; this is always a bug in tenon convert", v.Type()))
}

// heredocTokens renders a multi-line string ending in a newline (user data)
// as a heredoc, which reads like the YAML it came from. Template sequences
// are escaped; strings a heredoc cannot hold exactly or readably (a line
// that is the delimiter, carriage returns, other control or invisible
// characters) are left to a quoted string, where hclwrite escapes them.
func heredocTokens(s string) (hclwrite.Tokens, bool) {
	const delim = "EOT"
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") < 2 || strings.ContainsFunc(s, notHeredocText) {
		return nil, false
	}
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if strings.TrimSpace(line) == delim {
			return nil, false
		}
	}
	body := strings.NewReplacer("${", "$${", "%{", "%%{").Replace(s)
	return hclwrite.Tokens{
		{Type: hclsyntax.TokenOHeredoc, Bytes: []byte("<<" + delim + "\n")},
		{Type: hclsyntax.TokenStringLit, Bytes: []byte(body)},
		{Type: hclsyntax.TokenCHeredoc, Bytes: []byte(delim)},
	}, true
}

// notHeredocText reports whether r is a character a heredoc should not hold
// as it is: any manifest.Printable escapes but the line feed and the tab.
func notHeredocText(r rune) bool {
	return r != '\n' && r != '\t' && manifest.Printable(string(r)) != string(r)
}

// objectList renders a list of objects one per line, as terraform fmt
// leaves a hand-written one.
func objectList(items []hclwrite.Tokens) hclwrite.Tokens {
	out := hclwrite.Tokens{{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")}, {Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}}
	for _, item := range items {
		out = append(out, item...)
		out = append(out, &hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")}, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
	}
	return append(out, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")})
}

// snakeExceptions are JSON names whose acronyms the plain rule splits wrongly.
var snakeExceptions = map[string]string{
	"httpProtocolIPv6": "http_protocol_ipv6",
}

// snake turns a JSON field name into snake_case: amiFamily → ami_family,
// kmsKeyID → kms_key_id, clusterDNS → cluster_dns, cpuCFSQuota →
// cpu_cfs_quota.
func snake(name string) string {
	if s, ok := snakeExceptions[name]; ok {
		return s
	}
	runes := []rune(name)
	var sb strings.Builder
	for i, r := range runes {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]))
			nextLower := i > 0 && i+1 < len(runes) && unicode.IsLower(runes[i+1]) && unicode.IsUpper(runes[i-1])
			if prevLower || nextLower {
				sb.WriteByte('_')
			}
			sb.WriteRune(unicode.ToLower(r))
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
