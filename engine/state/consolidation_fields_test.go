package state_test

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
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

// TestSavingsThresholds covers a NodePool's and a Provisioner's
// consolidation savings thresholds reaching Pool.Disruption, parsed, and
// absent ones staying nil (the planner's defaults).
func TestSavingsThresholds(t *testing.T) {
	perHour, percent, perPod, enabled := "0.25", int32(30), "0.001", true
	set := nodePool("set", func(np *v1.NodePool) {
		np.Spec.Disruption = &v1.Disruption{ConsolidateAfter: "0s", MinSavingsPerHour: &perHour, MinSavingsPercent: &percent, MinSavingsPerPod: &perPod}
	})
	prov := &v1alpha5.Provisioner{
		ObjectMeta: metav1.ObjectMeta{Name: "prov"},
		Spec: v1alpha5.ProvisionerSpec{
			ProviderRef:   &v1alpha5.ProviderRef{Name: "default"},
			Consolidation: &v1alpha5.Consolidation{Enabled: &enabled, MinSavingsPercent: &percent},
		},
	}
	snap, err := state.Build(state.Objects{
		NodeClasses: []*v1.NodeClass{nodeClass("default")}, NodePools: []*v1.NodePool{set, nodePool("unset")},
		Provisioners: []*v1alpha5.Provisioner{prov},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	}
	want := map[string]string{"set": "0.25 30 0.001", "unset": "nil nil nil", "prov": "nil 30 nil"}
	for _, p := range snap.Pools {
		d := p.Disruption
		if got := f(d.MinSavingsPerHour) + " " + f(d.MinSavingsPercent) + " " + f(d.MinSavingsPerPod); got != want[p.Name] {
			t.Errorf("pool %s: thresholds %s, want %s", p.Name, got, want[p.Name])
		}
	}
}
