package state_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
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
