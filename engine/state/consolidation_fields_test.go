package state_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestConsolidationFields covers what engine/consolidation reads beyond
// packing: a node's last pod event time from its NodeClaim, and a
// NodePool's permission to disrupt bare pods (Provisioners never have it).
func TestConsolidationFields(t *testing.T) {
	event := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	claim := &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c1"},
		Spec:       v1.NodeClaimSpec{NodeClassRef: &v1.NodeClassReference{Name: "default"}},
		Status:     v1.NodeClaimStatus{NodeName: "n1", LastPodEventTime: metav1.NewTime(event)},
	}
	objs := state.Objects{
		NodeClasses: []*v1.NodeClass{nodeClass("default")},
		NodePools: []*v1.NodePool{
			nodePool("bare", func(np *v1.NodePool) { np.Annotations = map[string]string{state.AnnotationDisruptBarePods: "true"} }),
			nodePool("plain"),
		},
		NodeClaims: []*v1.NodeClaim{claim},
		Nodes:      []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}},
	}
	snap, err := state.Build(objs)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Nodes[0].LastPodEventTime; !got.Equal(event) {
		t.Errorf("LastPodEventTime = %v, want %v", got, event)
	}
	want := map[string]bool{"bare": true, "plain": false}
	for _, p := range snap.Pools {
		if p.DisruptBarePods != want[p.Name] {
			t.Errorf("pool %s: DisruptBarePods = %v, want %v", p.Name, p.DisruptBarePods, want[p.Name])
		}
	}
}
