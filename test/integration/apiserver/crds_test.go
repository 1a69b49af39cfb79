package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5/v1alpha5test"
)

// TestEveryCRDInstalls installs every CRD of engine/api/crds and checks the API server and
// kubectl discover each resource.
func TestEveryCRDInstalls(t *testing.T) {
	installed := installCRDs(t)
	if len(installed) < 4 {
		t.Fatalf("installed %d CRDs, want NodePool, NodeClass, NodeClaim and Provisioner", len(installed))
	}
	out := kubectl(t, "api-resources", "--api-group=tenon.dev", "-o", "name")
	for _, crd := range installed {
		if !slices.Contains(strings.Fields(out), crd.Name) {
			t.Errorf("kubectl api-resources does not list %s:\n%s", crd.Name, out)
		}
	}
}

func TestNodePoolTwins(t *testing.T) {
	runTwins(t, "NodePool", v1test.NodePoolBase, v1test.NodePoolTwins)
}

func TestNodeClassTwins(t *testing.T) {
	runTwins(t, "NodeClass", v1test.NodeClassBase, v1test.NodeClassTwins)
}

func TestNodeClaimTwins(t *testing.T) {
	runTwins(t, "NodeClaim", v1test.NodeClaimBase, v1test.NodeClaimTwins)
}

func TestNodeOverlayTwins(t *testing.T) {
	runTwins(t, "NodeOverlay", v1test.NodeOverlayBase, v1test.NodeOverlayTwins)
}

// runTwins sends every case of a v1 twin table to the API server: valid objects must be
// accepted, the others rejected at the case's path, and where a CEL rule of ours rejects them,
// with the message the Go validation gives.
func runTwins(t *testing.T, kind, base string, cases []v1test.Twin) {
	res := dynamicClient(t).Resource(gvr(crdByKind(t, kind)))
	for i, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			name := fmt.Sprintf("twin-%03d", i)
			obj := twinObject(t, base, tc.Patch, name)
			var err error
			if tc.Old == "" {
				err = create(ctx, res, obj)
			} else {
				old := twinObject(t, base, tc.Old, name)
				if dryRunCreate(ctx, res, old) != nil {
					// Today's schema rejects the old object: TestTransitionsFromLegacyObjects
					// stores it under a looser schema and runs this case.
					t.Skip("the old object needs an older schema; TestTransitionsFromLegacyObjects runs this case")
				}
				if err := create(ctx, res, old); err != nil {
					t.Fatalf("creating the old object:\n%s", causes(err))
				}
				err = update(ctx, res, obj)
			}
			checkTwin(t, tc, err)
		})
	}
}

// checkTwin checks the API server's answer to a v1 twin case.
func checkTwin(t *testing.T, tc v1test.Twin, err error) {
	t.Helper()
	if tc.Path == "" {
		if err != nil {
			t.Fatalf("the API server rejects a valid object:\n%s", causes(err))
		}
		return
	}
	if err == nil {
		t.Fatalf("the API server accepts an object Go rejects at %s (%q)", tc.Path, tc.Fix)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error at %s, got: %v", tc.Path, err)
	}
	for _, c := range statusCauses(err) {
		if pathMatches(tc.Path, c.Field) && (!tc.CEL || strings.Contains(c.Message, tc.Fix)) {
			return
		}
	}
	if tc.CEL {
		t.Errorf("the API server does not reject at %s (or a list or map holding it) with a message saying %q; got:\n%s", tc.Path, tc.Fix, causes(err))
	} else {
		t.Errorf("the API server does not reject at %s (or a list or map holding it); got:\n%s", tc.Path, causes(err))
	}
}

// TestTransitionsFromLegacyObjects runs the update cases whose old object today's schema
// rejects (such as a nodeClassRef.group other than tenon.dev): such objects exist only if they
// were stored under an older, looser schema, so the test stores them under the CRD without its
// enums, restores the CRD, and then checks the update against the transition rules.
func TestTransitionsFromLegacyObjects(t *testing.T) {
	tables := []struct {
		kind, base string
		cases      []v1test.Twin
	}{
		{"NodePool", v1test.NodePoolBase, v1test.NodePoolTwins},
		{"NodeClass", v1test.NodeClassBase, v1test.NodeClassTwins},
		{"NodeClaim", v1test.NodeClaimBase, v1test.NodeClaimTwins},
	}
	for _, table := range tables {
		t.Run(table.kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			crd := crdByKind(t, table.kind)
			res := dynamicClient(t).Resource(gvr(crd))
			type legacyCase struct {
				tc       v1test.Twin
				old, obj map[string]any
			}
			var legacy []legacyCase
			for i, tc := range table.cases {
				if tc.Old == "" {
					continue
				}
				name := fmt.Sprintf("legacy-%03d", i)
				old := twinObject(t, table.base, tc.Old, name)
				if dryRunCreate(ctx, res, old) != nil {
					legacy = append(legacy, legacyCase{tc: tc, old: old, obj: twinObject(t, table.base, tc.Patch, name)})
				}
			}
			if len(legacy) == 0 {
				return
			}
			probe := legacy[0].old
			setSchema(ctx, t, crd.Name, withoutEnums)
			waitUntil(ctx, t, "the CRD without enums is served", func() bool { return dryRunCreate(ctx, res, probe) == nil })
			for _, l := range legacy {
				if err := create(ctx, res, deepCopy(t, l.old)); err != nil {
					t.Fatalf("%s: storing the legacy object under the looser schema:\n%s", l.tc.Name, causes(err))
				}
			}
			setSchema(ctx, t, crd.Name, func(*apiextensionsv1.JSONSchemaProps) {})
			waitUntil(ctx, t, "the CRD with its enums is served again", func() bool { return dryRunCreate(ctx, res, probe) != nil })
			for _, l := range legacy {
				t.Run(l.tc.Name, func(t *testing.T) {
					checkTwin(t, l.tc, update(ctx, res, l.obj))
				})
			}
		})
	}
}

// setSchema replaces the schema of every version of the named CRD with the installed one
// changed by edit.
func setSchema(ctx context.Context, t *testing.T, name string, edit func(*apiextensionsv1.JSONSchemaProps)) {
	t.Helper()
	client, err := apiextensionsclient.NewForConfig(restConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	var original apiextensionsv1.CustomResourceDefinition
	for _, crd := range installCRDs(t) {
		if crd.Name == name {
			original = crd
		}
	}
	current, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	current.Spec.Versions = nil
	for _, v := range original.Spec.Versions {
		v = *v.DeepCopy()
		edit(v.Schema.OpenAPIV3Schema)
		current.Spec.Versions = append(current.Spec.Versions, v)
	}
	if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, current, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating the schema of %s: %v", name, err)
	}
}

// withoutEnums drops the enums of nodeClassRef's fields, which a legacy object breaks. A
// dropped enum becomes a maxLength, so the CEL cost estimates stay within the budget.
func withoutEnums(s *apiextensionsv1.JSONSchemaProps) {
	for k, p := range s.Properties {
		if k == "nodeClassRef" {
			for f, fp := range p.Properties {
				if len(fp.Enum) > 0 {
					fp.Enum = nil
					fp.MaxLength = ptr(int64(253))
					p.Properties[f] = fp
				}
			}
		}
		withoutEnums(&p)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		withoutEnums(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		withoutEnums(s.AdditionalProperties.Schema)
	}
}

func ptr[T any](v T) *T { return &v }

func dryRunCreate(ctx context.Context, res dynamic.ResourceInterface, obj map[string]any) error {
	_, err := res.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	return err
}

func waitUntil(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting until %s: %v", what, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestProvisionerTwins sends every Provisioner case of the Go twin tests to the API server,
// as a client built on the Go types sends it, and checks the API server reports exactly the
// errors the case expects of the CRD, with the CEL rules' messages.
func TestProvisionerTwins(t *testing.T) {
	res := dynamicClient(t).Resource(gvr(crdByKind(t, "Provisioner")))
	base, err := v1test.FromYAML(string(v1alpha5test.Base))
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range v1alpha5test.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			obj := deepCopy(t, base)
			if tc.Patch != "" {
				patch, err := v1test.FromYAML(tc.Patch)
				if err != nil {
					t.Fatal(err)
				}
				obj = v1test.MergePatch(obj, patch).(map[string]any)
			}
			obj = throughGoTypes(t, obj)
			rename(obj, objName(base), fmt.Sprintf("twin-%03d", i))

			err := create(ctx, res, obj)
			var want []string
			for _, w := range tc.Want {
				path := w.CRDPath
				if path == "" {
					path = w.GoPath
				}
				want = append(want, fmt.Sprintf("%s %s", string(w.Type), path))
			}
			if len(want) == 0 {
				if err != nil {
					t.Fatalf("the API server rejects a valid Provisioner:\n%s", causes(err))
				}
				return
			}
			if err == nil || !apierrors.IsInvalid(err) {
				t.Fatalf("want the API server to reject with %q, got: %v", want, err)
			}
			got := statusCauses(err)
			var gotKeys []string
			for _, c := range got {
				gotKeys = append(gotKeys, fmt.Sprintf("%s %s", c.Type, causeField(c.Field)))
			}
			slices.Sort(gotKeys)
			slices.Sort(want)
			if !slices.Equal(gotKeys, want) {
				t.Fatalf("API server errors:\n got  %q\n want %q\n%s", gotKeys, want, causes(err))
			}
			for _, w := range tc.Want {
				if w.Msg == "" {
					continue
				}
				if !slices.ContainsFunc(got, func(c metav1.StatusCause) bool { return strings.Contains(c.Message, w.Msg) }) {
					t.Errorf("no API server error says %q; got:\n%s", w.Msg, causes(err))
				}
			}
		})
	}
}

// TestPrinterColumnsAndStatus writes each kind's status through its status subresource and
// reads it back through kubectl's columns: the main resource ignores status, the status
// subresource stores it without a new generation, and every printer column is shown.
func TestPrinterColumnsAndStatus(t *testing.T) {
	bases := map[string]string{
		"NodePool":    v1test.NodePoolBase,
		"NodeClass":   v1test.NodeClassBase,
		"NodeClaim":   v1test.NodeClaimBase,
		"Provisioner": string(v1alpha5test.Base),
	}
	for kind, base := range bases {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			crd := crdByKind(t, kind)
			res := dynamicClient(t).Resource(gvr(crd))
			name := "columns-" + strings.ToLower(kind)
			obj := twinObject(t, base, "", name)
			created, err := res.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{FieldValidation: "Strict"})
			if err != nil {
				t.Fatalf("creating %s:\n%s", name, causes(err))
			}

			ready := map[string]any{"conditions": []any{map[string]any{
				"type": "Ready", "status": "True", "reason": "Ready", "message": "",
				"lastTransitionTime": "2026-01-02T03:04:05Z",
			}}}
			withStatus := created.DeepCopy()
			withStatus.Object["status"] = ready
			updated, err := res.Update(ctx, withStatus, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("updating %s:\n%s", name, causes(err))
			}
			if _, found, _ := unstructured.NestedSlice(updated.Object, "status", "conditions"); found {
				t.Errorf("the main resource stored a status; the status subresource must own it")
			}
			withStatus.SetResourceVersion(updated.GetResourceVersion())
			stored, err := res.UpdateStatus(ctx, withStatus, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("updating the status of %s:\n%s", name, causes(err))
			}
			if stored.GetGeneration() != created.GetGeneration() {
				t.Errorf("a status update changed the generation from %d to %d", created.GetGeneration(), stored.GetGeneration())
			}
			if conds, _, _ := unstructured.NestedSlice(stored.Object, "status", "conditions"); len(conds) != 1 {
				t.Errorf("status.conditions after the status update: %v", conds)
			}

			row := kubectlRow(t, crd, name)
			for _, col := range printerColumns(crd) {
				if _, ok := row[strings.ToUpper(col)]; !ok {
					t.Errorf("kubectl get -o wide has no column %s: %v", col, row)
				}
			}
			if row["NAME"] != name || row["READY"] != "True" {
				t.Errorf("kubectl get -o wide shows NAME %q READY %q, want %q and True: %v", row["NAME"], row["READY"], name, row)
			}
		})
	}
}

// create creates obj; its status, which the main resource ignores, is then written through
// the status subresource, so that the API server validates it too.
func create(ctx context.Context, res dynamic.ResourceInterface, obj map[string]any) error {
	status, hasStatus := obj["status"]
	u := &unstructured.Unstructured{Object: obj}
	created, err := res.Create(ctx, u, metav1.CreateOptions{FieldValidation: "Strict"})
	if err != nil || !hasStatus {
		return err
	}
	created.Object["status"] = status
	_, err = res.UpdateStatus(ctx, created, metav1.UpdateOptions{FieldValidation: "Strict"})
	return err
}

// update replaces the stored object with obj, then its status as create does.
func update(ctx context.Context, res dynamic.ResourceInterface, obj map[string]any) error {
	u := &unstructured.Unstructured{Object: obj}
	current, err := res.Get(ctx, u.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	u.SetResourceVersion(current.GetResourceVersion())
	status, hasStatus := obj["status"]
	updated, err := res.Update(ctx, u, metav1.UpdateOptions{FieldValidation: "Strict"})
	if err != nil || !hasStatus {
		return err
	}
	updated.Object["status"] = status
	_, err = res.UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldValidation: "Strict"})
	return err
}

// twinObject is a case's object under its own name, so cases can run at once.
func twinObject(t *testing.T, base, patch, name string) map[string]any {
	t.Helper()
	obj, err := v1test.Merged(base, patch)
	if err != nil {
		t.Fatal(err)
	}
	obj = deepCopy(t, obj) // integers as int64, as the dynamic client needs
	baseObj, err := v1test.FromYAML(base)
	if err != nil {
		t.Fatal(err)
	}
	rename(obj, objName(baseObj), name)
	return obj
}

// throughGoTypes decodes obj strictly into the Provisioner Go type and encodes it again, as a
// client built on the Go types sends it (the Go twin tests validate the same form).
func throughGoTypes(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var p v1alpha5.Provisioner
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		t.Fatalf("decoding the Provisioner (a mistake in the case): %v\n%s", err, data)
	}
	data, err = json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func objName(obj map[string]any) string {
	name, _, _ := unstructured.NestedString(obj, "metadata", "name")
	return name
}

// rename gives obj a name of its own, unless its case changed the base object's name (a case
// about names), so that cases can run at once.
func rename(obj map[string]any, baseName, name string) {
	if objName(obj) == baseName {
		_ = unstructured.SetNestedField(obj, name, "metadata", "name")
	}
}

func deepCopy(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

var mapKeyRE = regexp.MustCompile(`\[([^\]0-9][^\]]*)\]`)

// pathMatches reports whether the API server's error path names the Go error's path: the
// same path (map keys written .key rather than [key]), or the list or map a CEL rule sits on.
func pathMatches(want, got string) bool {
	if got == want || mapKeyRE.ReplaceAllString(want, ".$1") == got {
		return true
	}
	return got != "" && (strings.HasPrefix(want, got+".") || strings.HasPrefix(want, got+"["))
}

// causeField writes an empty cause field as field.Path does for a nil path, as the cases do.
func causeField(f string) string {
	if f == "" {
		return "<nil>"
	}
	return f
}

func printerColumns(crd apiextensionsv1.CustomResourceDefinition) []string {
	var cols []string
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			for _, c := range v.AdditionalPrinterColumns {
				cols = append(cols, c.Name)
			}
		}
	}
	return cols
}

func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	c := suite.Require(t)
	out, err := exec.Command(c.Kubectl(), append([]string{"--kubeconfig", c.Kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var headerRE = regexp.MustCompile(`\S+`)

// kubectlRow is the one row kubectl get -o wide prints for an object, by column header.
func kubectlRow(t *testing.T, crd apiextensionsv1.CustomResourceDefinition, name string) map[string]string {
	t.Helper()
	out := kubectl(t, "get", crd.Name, name, "-o", "wide")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("kubectl get %s %s -o wide printed %d lines, want a header and a row:\n%s", crd.Name, name, len(lines), out)
	}
	// kubectl aligns each cell under its header; empty cells are blank.
	starts := headerRE.FindAllStringIndex(lines[0], -1)
	row := map[string]string{}
	for i, h := range starts {
		end := len(lines[1])
		if i+1 < len(starts) {
			end = min(starts[i+1][0], end)
		}
		cell := ""
		if h[0] < end {
			cell = strings.TrimSpace(lines[1][h[0]:end])
		}
		row[lines[0][h[0]:h[1]]] = cell
	}
	return row
}
