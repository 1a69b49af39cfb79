package v1alpha5_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5/v1alpha5test"
)

// twinError is one expected error; the cases live in v1alpha5test so the integration tests
// against a real API server run the same table.
type twinError = v1alpha5test.Error

const (
	invalid      = field.ErrorTypeInvalid
	notSupported = field.ErrorTypeNotSupported
	tooLong      = field.ErrorTypeTooLong
	tooMany      = field.ErrorTypeTooMany
)

// TestValidationTwins runs every case through the CRD (as the API server validates it) and
// through Validate, and checks both report the expected errors: same types, paths as
// expected, and for CEL rules the same message, which says how to fix the problem.
func TestValidationTwins(t *testing.T) {
	crd := provisionerCRD(t)
	base := yamlToMap(t, v1alpha5test.Base)
	for _, tc := range v1alpha5test.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			obj := base
			if tc.Patch != "" {
				obj = mergePatch(base, yamlToMap(t, []byte(tc.Patch)))
			}
			p := decodeProvisioner(t, mapToYAML(t, obj))
			goErrs := p.Validate()
			crdErrs := crd.Validate(toMap(t, p), nil)

			var wantGo, wantCRD []twinError
			for _, w := range tc.Want {
				if w.GoPath != "-" {
					wantGo = append(wantGo, w)
				}
				c := w
				if c.CRDPath == "" {
					c.CRDPath = c.GoPath
				}
				wantCRD = append(wantCRD, c)
			}
			checkErrors(t, "Go", goErrs, wantGo, func(w twinError) string { return w.GoPath })
			checkErrors(t, "CRD", crdErrs, wantCRD, func(w twinError) string { return w.CRDPath })
			for _, e := range goErrs {
				if e.Detail == "" && e.Type != notSupported && e.Type != tooLong && e.Type != tooMany {
					t.Errorf("Go error %v has no detail saying how to fix it", e)
				}
			}
		})
	}
}

func checkErrors(t *testing.T, side string, got field.ErrorList, want []twinError, path func(twinError) string) {
	t.Helper()
	key := func(typ field.ErrorType, p string) string { return fmt.Sprintf("%s %s", typ, p) }
	var gotKeys, wantKeys []string
	for _, e := range got {
		gotKeys = append(gotKeys, key(e.Type, e.Field))
	}
	for _, w := range want {
		wantKeys = append(wantKeys, key(w.Type, path(w)))
	}
	slices.Sort(gotKeys)
	slices.Sort(wantKeys)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("%s errors:\n got  %q\n want %q\n%v", side, gotKeys, wantKeys, got.ToAggregate())
	}
	for _, w := range want {
		if w.Msg == "" {
			continue
		}
		i := slices.IndexFunc(got, func(e *field.Error) bool { return e.Type == w.Type && e.Field == path(w) })
		if !strings.Contains(got[i].Detail, w.Msg) {
			t.Errorf("%s error at %s: detail %q, want it to contain %q", side, path(w), got[i].Detail, w.Msg)
		}
	}
}

// TestEveryCELRuleHasATwinCase fails when the CRD gains a CEL rule no twin case exercises.
func TestEveryCELRuleHasATwinCase(t *testing.T) {
	crd := yamlToMap(t, readYAML(t, "../crds/tenon.dev_provisioners.yaml"))
	tested := map[string]bool{}
	for _, tc := range v1alpha5test.Cases {
		for _, w := range tc.Want {
			tested[w.Msg] = true
		}
	}
	var rules int
	var walk func(any)
	walk = func(node any) {
		switch n := node.(type) {
		case map[string]any:
			if list, ok := n["x-kubernetes-validations"].([]any); ok {
				for _, r := range list {
					rule := r.(map[string]any)
					rules++
					if msg, _ := rule["message"].(string); !tested[msg] {
						t.Errorf("no twin case expects the message of rule %q (%q)", rule["rule"], msg)
					}
				}
			}
			for _, v := range n {
				walk(v)
			}
		case []any:
			for _, v := range n {
				walk(v)
			}
		}
	}
	walk(crd)
	if rules < 40 {
		t.Errorf("found only %d CEL rules in the CRD; is the walk broken?", rules)
	}
}

// TestCRDOnly covers what the Go types cannot express, so only clients writing YAML or JSON
// meet it: empty selectors, misspelt fields, wrong types.
func TestCRDOnly(t *testing.T) {
	crd := provisionerCRD(t)
	base := yamlToMap(t, v1alpha5test.Base)
	tests := []struct {
		name, patch string
		want        []string // "type path"
	}{
		{"empty subnetSelector", `{spec: {provider: {subnetSelector: {}}}}`,
			[]string{"Invalid value spec.provider.subnetSelector"}},
		{"empty instanceProfile", `{spec: {provider: {instanceProfile: ""}}}`,
			[]string{"Invalid value spec.provider.instanceProfile"}},
		{"misspelt field", `{spec: {ttlSecondAfterEmpty: 30}}`,
			[]string{"Not found spec.ttlSecondAfterEmpty"}},
		{"Karpenter's untyped provider field", `{spec: {provider: {launchTemplate: lt}}}`,
			[]string{"Not found spec.provider.launchTemplate"}},
		{"string weight", `{spec: {weight: "10"}}`,
			[]string{"Invalid value <nil>", "Invalid value spec.weight"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := mergePatch(base, yamlToMap(t, []byte(tc.patch)))
			errs, err := crd.ValidateYAML(mapToYAML(t, obj), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, fmt.Sprintf("%s %s", e.Type, e.Field))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q\n%v", got, tc.want, errs.ToAggregate())
			}
		})
	}
}
