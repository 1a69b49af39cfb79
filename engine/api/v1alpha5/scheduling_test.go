package v1alpha5_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/crdtest"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestRestrictedLabelsAgreeWithScheduling keeps the Provisioner's label rules (Go and CEL) in
// step with the scheduling package, as v1's test does for the NodePool: every key scheduling
// lets a pool use is accepted as a requirement and a label, every key it refuses is rejected by
// both.
func TestRestrictedLabelsAgreeWithScheduling(t *testing.T) {
	data, err := crds.Get("tenon.dev_provisioners.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd, err := crdtest.NewValidator(data, v1alpha5.Version)
	if err != nil {
		t.Fatal(err)
	}
	keys := v1test.SampleLabelKeys()
	for _, k := range keys {
		restricted := scheduling.IsRestrictedLabel(k) != nil
		restrictedReq := scheduling.IsRestrictedRequirement(k) != nil
		t.Run(k, func(t *testing.T) {
			req := provisionerWith(func(s *v1alpha5.ProvisionerSpec) {
				s.Requirements = []v1alpha5.NodeSelectorRequirement{{Key: k, Operator: corev1.NodeSelectorOpExists}}
			})
			checkRestricted(t, crd, req, restrictedReq, "spec.requirements[0].key", "spec.requirements[0].key")
			label := provisionerWith(func(s *v1alpha5.ProvisionerSpec) { s.Labels = map[string]v1alpha5.LabelValue{k: "x"} })
			checkRestricted(t, crd, label, restricted, "spec.labels["+k+"]", "spec.labels")
		})
	}
}

func provisionerWith(mutate func(*v1alpha5.ProvisionerSpec)) *v1alpha5.Provisioner {
	p := &v1alpha5.Provisioner{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha5.SchemeGroupVersion.String(), Kind: v1alpha5.ProvisionerKind},
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec:       v1alpha5.ProvisionerSpec{ProviderRef: &v1alpha5.ProviderRef{Name: "default"}},
	}
	mutate(&p.Spec)
	return p
}

// checkRestricted checks that Go and the CRD both reject p, at goPath and crdPath, or both
// accept it.
func checkRestricted(t *testing.T, crd *crdtest.Validator, p *v1alpha5.Provisioner, restricted bool, goPath, crdPath string) {
	t.Helper()
	for side, got := range map[string]struct {
		errs field.ErrorList
		path string
	}{"Go": {p.Validate(), goPath}, "CRD": {crd.Validate(toMap(t, p), nil), crdPath}} {
		switch {
		case !restricted && len(got.errs) > 0:
			t.Errorf("%s rejects what scheduling allows:\n%v", side, got.errs.ToAggregate())
		case restricted && (len(got.errs) == 0 || got.errs[0].Field != got.path):
			t.Errorf("%s does not reject at %s what scheduling restricts; got %v", side, got.path, got.errs.ToAggregate())
		}
	}
}
