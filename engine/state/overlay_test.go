package state_test

import (
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/overlay"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func nodeOverlay(name, adjustment string, reqs ...v1.NodeSelectorRequirementWithMinValues) *v1.NodeOverlay {
	return &v1.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeOverlaySpec{Requirements: reqs, PriceAdjustment: &adjustment}}
}

// TestBuildOverlays checks Build applies overlays per pool, prices the pool's nodes at the
// overlaid offering, reports each overlay, and rejects an invalid one naming its field.
func TestBuildOverlays(t *testing.T) {
	cat := testCatalog(t)
	m5, _ := cat.Get("m5.large")
	base := 0.0
	for _, o := range m5.Offerings {
		if o.Zone == "us-east-1a" && o.CapacityType == "on-demand" {
			base = o.PricePerHour
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{
		scheduling.LabelNodePool: "batch", scheduling.LabelInstanceType: "m5.large",
		scheduling.LabelTopologyZone: "us-east-1a", scheduling.LabelCapacityType: "on-demand",
	}}}
	snap, err := state.Build(state.Objects{
		NodePools:   []*v1.NodePool{nodePool("general"), nodePool("batch")},
		NodeClasses: []*v1.NodeClass{nodeClass("default")},
		Nodes:       []*corev1.Node{node},
		NodeOverlays: []*v1.NodeOverlay{
			nodeOverlay("batch-m5", "-50%",
				v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{"batch"}},
				v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m5"}}),
			nodeOverlay("nothing", "-1%", v1.NodeSelectorRequirementWithMinValues{Key: "example.com/team", Operator: corev1.NodeSelectorOpExists}),
		},
	}, catalogTypes(cat))
	if err != nil {
		t.Fatal(err)
	}
	price := func(pool string) float64 {
		for _, p := range snap.Pools {
			if p.Name != pool {
				continue
			}
			for _, it := range p.InstanceTypes {
				if it.Name == "m5.large" {
					for _, o := range it.Offerings {
						if o.Zone == "us-east-1a" && o.CapacityType == "on-demand" {
							return o.PricePerHour
						}
					}
				}
			}
		}
		return 0
	}
	if got := price("batch"); math.Abs(got-base/2) > 1e-9 {
		t.Errorf("batch m5.large: %v, want %v", got, base/2)
	}
	if got := price("general"); got != base {
		t.Errorf("general m5.large: %v, want the catalog's %v", got, base)
	}
	if got := snap.Nodes[0].PricePerHour; math.Abs(got-base/2) > 1e-9 {
		t.Errorf("node of pool batch: %v $/h, want the overlaid %v", got, base/2)
	}
	if len(snap.Overlays) != 2 || snap.Overlays[0].Outcome != overlay.Applied || snap.Overlays[1].Outcome != overlay.NoMatch {
		t.Errorf("overlays: %+v, want batch-m5 Applied and nothing NoMatch", snap.Overlays)
	}

	_, err = state.Build(state.Objects{NodeOverlays: []*v1.NodeOverlay{nodeOverlay("bad", "15%")}})
	if err == nil || !strings.Contains(err.Error(), "NodeOverlay bad: spec.priceAdjustment") {
		t.Errorf("an invalid overlay: %v, want an error naming NodeOverlay bad and spec.priceAdjustment", err)
	}
}
