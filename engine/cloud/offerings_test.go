package cloud_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestCandidatesTrustTheTypesAClaimNames checks that a claim asking for an extended resource
// the catalog's type does not report (a NodeOverlay gave it, such as hugepages) launches on the
// types it names, while cpu and memory are still checked, and a claim naming no type gets no
// type without the resource.
func TestCandidatesTrustTheTypesAClaimNames(t *testing.T) {
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	claim := func(memory string, named bool) *v1.NodeClaim {
		c := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
		c.Spec.Resources.Requests = corev1.ResourceList{
			corev1.ResourceMemory: resource.MustParse(memory), "hugepages-2Mi": resource.MustParse("1Gi"),
		}
		c.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{
			{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1a"}},
			{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
		}
		if named {
			c.Spec.Requirements = append(c.Spec.Requirements, v1.NodeSelectorRequirementWithMinValues{
				Key: scheduling.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"r6i.large", "r6i.xlarge"}})
		}
		return c
	}
	for _, tc := range []struct {
		name   string
		claim  *v1.NodeClaim
		want   string
		wantOK bool
	}{
		{"named types, overlaid resource", claim("4Gi", true), "r6i.large", true},
		{"named types, memory still checked", claim("24Gi", true), "r6i.xlarge", true},
		{"named types, too much memory", claim("64Gi", true), "", false},
		{"no type named", claim("4Gi", false), "", false},
	} {
		got, err := cloud.Candidates(tc.claim, cat.InstanceTypes(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if (len(got) > 0) != tc.wantOK || tc.wantOK && got[0].InstanceType != tc.want {
			first := "none"
			if len(got) > 0 {
				first = got[0].InstanceType
			}
			t.Errorf("%s: %d candidates, first %s; want %s (%v)", tc.name, len(got), first, tc.want, tc.wantOK)
		}
	}
}
