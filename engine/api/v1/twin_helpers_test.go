package v1_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/crdtest"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
)

// twin is one validation case; the tables live in v1test so the integration tests against a
// real API server run the same cases.
type twin = v1test.Twin

const (
	nodePoolBase  = v1test.NodePoolBase
	nodeClassBase = v1test.NodeClassBase
	nodeClaimBase = v1test.NodeClaimBase
)

// object is what the Go side of a twin test needs of an API type.
type object[T any] interface {
	*T
	Validate() field.ErrorList
	ValidateUpdate(old *T) field.ErrorList
	SetDefaults()
}

func validator(t *testing.T, file string) *crdtest.Validator {
	t.Helper()
	data, err := crds.Get(file)
	if err != nil {
		t.Fatal(err)
	}
	v, err := crdtest.NewValidator(data, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// runTwins runs every case through the CRD and the Go validation and checks they agree. It
// returns the messages of the CEL rules the cases triggered.
func runTwins[T any, P object[T]](t *testing.T, crdFile, base string, cases []twin) map[string]bool {
	t.Helper()
	v := validator(t, crdFile)
	hit := map[string]bool{}
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.Name] {
			t.Fatalf("two cases are named %q", tc.Name)
		}
		seen[tc.Name] = true
		t.Run(tc.Name, func(t *testing.T) {
			obj := merged(t, base, tc.Patch)
			var old map[string]any
			if tc.Old != "" {
				old = merged(t, base, tc.Old)
			}
			crdErrs := v.Validate(deepCopy(t, obj), deepCopyOrNil(t, old))
			goErrs := goValidate[T, P](t, obj, old, false)
			defaultedErrs := goValidate[T, P](t, obj, old, true)
			t.Logf("CRD:\n%sGo:\n%s", list(crdErrs), list(goErrs))

			if tc.Path == "" {
				if len(crdErrs) > 0 {
					t.Errorf("the CRD rejects a valid object:\n%s", list(crdErrs))
				}
				if len(goErrs) > 0 {
					t.Errorf("Validate rejects a valid object:\n%s", list(goErrs))
				}
				if len(defaultedErrs) > 0 {
					t.Errorf("Validate after SetDefaults rejects a valid object:\n%s", list(defaultedErrs))
				}
				return
			}
			checkGo(t, "Validate", goErrs, tc)
			checkGo(t, "Validate after SetDefaults", defaultedErrs, tc)
			if rule := checkCRD(t, crdErrs, tc); rule != "" {
				hit[rule] = true
			}
		})
	}
	return hit
}

// checkEveryRuleHit fails for each CEL rule of the CRD that no case triggered: every rule must
// have a twin.
func checkEveryRuleHit(t *testing.T, crdFile string, hit map[string]bool) {
	t.Helper()
	data, err := crds.Get(crdFile)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		rules := celRules(*v.Schema.OpenAPIV3Schema, "")
		for _, rule := range rules {
			if !hit[rule] {
				t.Errorf("no twin case triggers the CEL rule of %s at %s", crdFile, rule)
			}
		}
		t.Logf("%s has %d CEL rules", crdFile, len(rules))
	}
}

// celRules lists the CEL rules of a schema as "path: message", the path being where the rule
// reports (its place in the schema plus its fieldPath, without list indices).
func celRules(s apiextensionsv1.JSONSchemaProps, path string) []string {
	var rules []string
	for _, rule := range s.XValidations {
		rules = append(rules, ruleKey(path+rule.FieldPath, rule.Message))
	}
	for name, p := range s.Properties {
		rules = append(rules, celRules(p, path+"."+name)...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		rules = append(rules, celRules(*s.Items.Schema, path)...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		rules = append(rules, celRules(*s.AdditionalProperties.Schema, path)...)
	}
	return rules
}

var indexRE = regexp.MustCompile(`\[[^\]]*\]`)

func ruleKey(path, message string) string {
	return strings.TrimPrefix(indexRE.ReplaceAllString(path, ""), ".") + ": " + message
}

func checkGo(t *testing.T, what string, errs field.ErrorList, tc twin) {
	t.Helper()
	for _, e := range errs {
		if e.Field == tc.Path && strings.Contains(e.Error(), tc.Fix) {
			return
		}
	}
	t.Errorf("%s: want an error at %s saying %q, got:\n%s", what, tc.Path, tc.Fix, list(errs))
}

// checkCRD checks the CRD rejected the case at its path, and returns the message of the CEL
// rule that did, for cases marked cel.
func checkCRD(t *testing.T, errs field.ErrorList, tc twin) string {
	t.Helper()
	if len(errs) == 0 {
		t.Errorf("the CRD accepts an object Go rejects at %s", tc.Path)
		return ""
	}
	for _, e := range errs {
		if !crdPathMatches(tc.Path, e.Field) {
			continue
		}
		if !tc.CEL {
			return ""
		}
		if strings.Contains(e.Detail, tc.Fix) {
			return ruleKey(e.Field, e.Detail)
		}
	}
	if tc.CEL {
		t.Errorf("the CRD does not reject at %s (or a list or map holding it) with a message saying %q; got:\n%s", tc.Path, tc.Fix, list(errs))
		return ""
	}
	t.Errorf("the CRD does not reject at %s (or a list or map holding it); got:\n%s", tc.Path, list(errs))
	return ""
}

var mapKeyRE = regexp.MustCompile(`\[([^\]0-9][^\]]*)\]`)

// crdPathMatches reports whether the CRD's error path names the Go error's path: the same path
// (map keys written .key rather than [key]), or the list or map a CEL rule sits on.
func crdPathMatches(want, got string) bool {
	if got == want || mapKeyRE.ReplaceAllString(want, ".$1") == got {
		return true
	}
	return got != "" && (strings.HasPrefix(want, got+".") || strings.HasPrefix(want, got+"["))
}

// goValidate decodes the object into its Go type and validates it (as an update when old is
// set), optionally after SetDefaults.
func goValidate[T any, P object[T]](t *testing.T, obj, old map[string]any, defaults bool) field.ErrorList {
	t.Helper()
	typed := P(decode[T](t, obj))
	if defaults {
		typed.SetDefaults()
	}
	if old == nil {
		return typed.Validate()
	}
	typedOld := P(decode[T](t, old))
	if defaults {
		typedOld.SetDefaults()
	}
	return typed.ValidateUpdate((*T)(typedOld))
}

func decode[T any](t *testing.T, obj map[string]any) *T {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	out := new(T)
	if err := dec.Decode(out); err != nil {
		t.Fatalf("decoding into %T (a mistake in the test input): %v", out, err)
	}
	return out
}

// merged returns base with patch merged in, both YAML.
func merged(t *testing.T, base, patch string) map[string]any {
	t.Helper()
	obj, err := v1test.Merged(base, patch)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func deepCopy(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func deepCopyOrNil(t *testing.T, obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	return deepCopy(t, obj)
}

func list(errs field.ErrorList) string {
	if len(errs) == 0 {
		return "  (no errors)"
	}
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  %s\n", e.Error())
	}
	return b.String()
}

func fromYAML(t *testing.T, s string) map[string]any {
	t.Helper()
	obj, err := v1test.FromYAML(s)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}
