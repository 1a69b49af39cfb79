package state_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestIgnoreKarpenterAnnotations: only a NodePool whose
// disruption.karpenterAnnotations is Ignore stops honouring Karpenter's
// annotations; Honor, no disruption block and Provisioners honour them.
func TestIgnoreKarpenterAnnotations(t *testing.T) {
	with := func(v v1.KarpenterAnnotations) func(*v1.NodePool) {
		return func(np *v1.NodePool) {
			np.Spec.Disruption = &v1.Disruption{ConsolidateAfter: "0s", KarpenterAnnotations: v}
		}
	}
	objs := state.Objects{
		NodeClasses: []*v1.NodeClass{nodeClass("default")},
		NodePools:   []*v1.NodePool{nodePool("ignore", with(v1.KarpenterAnnotationsIgnore)), nodePool("honor", with(v1.KarpenterAnnotationsHonor)), nodePool("unset", with("")), nodePool("plain")},
		Provisioners: []*v1alpha5.Provisioner{{ObjectMeta: metav1.ObjectMeta{Name: "prov"},
			Spec: v1alpha5.ProvisionerSpec{ProviderRef: &v1alpha5.ProviderRef{Name: "default"}}}},
	}
	snap, err := state.Build(objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Pools) != 5 {
		t.Fatalf("%d pools, want 5", len(snap.Pools))
	}
	for _, p := range snap.Pools {
		if want := p.Name == "ignore"; p.IgnoreKarpenterAnnotations != want {
			t.Errorf("pool %s: IgnoreKarpenterAnnotations = %v, want %v", p.Name, p.IgnoreKarpenterAnnotations, want)
		}
	}
}

// TestKarpenterRequirementAliases: a pool's requirements on Karpenter's
// aliases (which the API accepts) are read as requirements on Tenon's labels.
func TestKarpenterRequirementAliases(t *testing.T) {
	np := nodePool("migrated", func(np *v1.NodePool) {
		np.Spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{
			{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}},
			{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5", "c5"}},
		}
	})
	if errs := np.Validate(); len(errs) > 0 {
		t.Fatalf("the API refuses requirements on Karpenter's aliases: %v", errs)
	}
	snap, err := state.Build(state.Objects{NodeClasses: []*v1.NodeClass{nodeClass("default")}, NodePools: []*v1.NodePool{np}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := snap.Pools[0].Requirements
	for key, want := range map[string][]string{scheduling.LabelCapacityType: {"spot"}, scheduling.LabelInstanceFamily: {"c5", "m5"}} {
		if got := reqs.Get(key).Values(); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v (requirements %s)", key, got, want, reqs)
		}
	}
	for _, key := range []string{"karpenter.sh/capacity-type", "karpenter.k8s.aws/instance-family"} {
		if reqs.Has(key) {
			t.Errorf("the pool still requires %s itself: %s", key, reqs)
		}
	}
}
