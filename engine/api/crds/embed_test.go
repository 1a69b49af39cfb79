package crds_test

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/crdtest"
)

// want lists the CRDs this package must embed and the names each must carry.
var want = map[string]struct {
	kind, plural, singular string
	shortNames             []string
	versions               []string
	required               bool
}{
	"tenon.dev_nodepools.yaml":    {kind: "NodePool", plural: "nodepools", singular: "nodepool", shortNames: []string{"np"}, versions: []string{"v1"}, required: true},
	"tenon.dev_nodeclasses.yaml":  {kind: "NodeClass", plural: "nodeclasses", singular: "nodeclass", shortNames: []string{"nc"}, versions: []string{"v1"}, required: true},
	"tenon.dev_nodeclaims.yaml":   {kind: "NodeClaim", plural: "nodeclaims", singular: "nodeclaim", shortNames: []string{"ncl"}, versions: []string{"v1"}, required: true},
	"tenon.dev_provisioners.yaml": {kind: "Provisioner", plural: "provisioners", singular: "provisioner", versions: []string{"v1alpha5"}},
	"tenon.dev_nodeoverlays.yaml": {kind: "NodeOverlay", plural: "nodeoverlays", singular: "nodeoverlay", shortNames: []string{"overlays"}, versions: []string{"v1"}, required: true},
}

func TestEmbeddedCRDsHaveTheExpectedNames(t *testing.T) {
	names := crds.Names()
	if len(crds.All()) != len(names) {
		t.Fatalf("All() returned %d CRDs, Names() %d", len(crds.All()), len(names))
	}
	found := map[string]bool{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("unexpected CRD file %s: add it to the table of this test", name)
			}
			found[name] = true
			data, err := crds.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.UnmarshalStrict(data, &crd); err != nil {
				t.Fatalf("%s does not parse as a CustomResourceDefinition: %v", name, err)
			}
			if crd.Kind != "CustomResourceDefinition" || crd.APIVersion != "apiextensions.k8s.io/v1" {
				t.Errorf("got %s %s, want apiextensions.k8s.io/v1 CustomResourceDefinition", crd.APIVersion, crd.Kind)
			}
			if got, want := crd.Name, w.plural+".tenon.dev"; got != want {
				t.Errorf("metadata.name = %q, want %q", got, want)
			}
			n := crd.Spec.Names
			if crd.Spec.Group != "tenon.dev" || n.Kind != w.kind || n.Plural != w.plural || n.Singular != w.singular || n.ListKind != w.kind+"List" {
				t.Errorf("names = group %q %+v, want tenon.dev kind %s plural %s singular %s", crd.Spec.Group, n, w.kind, w.plural, w.singular)
			}
			if w.shortNames != nil && !equal(n.ShortNames, w.shortNames) {
				t.Errorf("shortNames = %v, want %v", n.ShortNames, w.shortNames)
			}
			if crd.Spec.Scope != apiextensionsv1.ClusterScoped {
				t.Errorf("scope = %s, want Cluster", crd.Spec.Scope)
			}
			var versions []string
			for _, v := range crd.Spec.Versions {
				versions = append(versions, v.Name)
				if v.Subresources == nil || v.Subresources.Status == nil {
					t.Errorf("version %s has no status subresource", v.Name)
				}
				if len(v.AdditionalPrinterColumns) == 0 {
					t.Errorf("version %s has no printer columns", v.Name)
				}
			}
			if !equal(versions, w.versions) {
				t.Errorf("versions = %v, want %v", versions, w.versions)
			}
		})
	}
	for name, w := range want {
		if w.required && !found[name] {
			t.Errorf("CRD %s is not embedded; run make generate", name)
		}
	}
}

// TestEmbeddedCRDsAreAcceptedByTheAPIServer compiles every CRD as kube-apiserver does when it is
// created: CEL rules must compile and stay within the cost limits.
func TestEmbeddedCRDsAreAcceptedByTheAPIServer(t *testing.T) {
	for _, name := range crds.Names() {
		t.Run(name, func(t *testing.T) {
			data, err := crds.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(data, &crd); err != nil {
				t.Fatal(err)
			}
			for _, v := range crd.Spec.Versions {
				if _, err := crdtest.NewValidator(data, v.Name); err != nil {
					t.Errorf("version %s: %v", v.Name, err)
				}
			}
		})
	}
}

func TestGetUnknownCRD(t *testing.T) {
	if _, err := crds.Get("nope.yaml"); err == nil {
		t.Fatal("Get(nope.yaml) returned no error")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEveryFieldIsDocumented checks that every property of the tenon.dev/v1 schemas has a
// description: they are the API reference users read (kubectl explain, the Terraform docs).
func TestEveryFieldIsDocumented(t *testing.T) {
	for name, w := range want {
		if !w.required {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := crds.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(data, &crd); err != nil {
				t.Fatal(err)
			}
			for _, v := range crd.Spec.Versions {
				root := v.Schema.OpenAPIV3Schema
				for prop, s := range root.Properties {
					if prop != "metadata" {
						checkDescribed(t, v.Name+"."+prop, s)
					}
				}
			}
		})
	}
}

func checkDescribed(t *testing.T, path string, s apiextensionsv1.JSONSchemaProps) {
	t.Helper()
	if s.Description == "" {
		t.Errorf("%s has no description: add a doc comment to its Go field", path)
	}
	for prop, p := range s.Properties {
		checkDescribed(t, path+"."+prop, p)
	}
	if s.Items != nil && s.Items.Schema != nil {
		for prop, p := range s.Items.Schema.Properties {
			checkDescribed(t, path+"[]."+prop, p)
		}
	}
}
