package overlay_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/overlay"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// discountScenarios is how many random workloads TestDiscountNeverRaisesCost solves twice.
const discountScenarios = 150

// TestDiscountNeverRaisesCost checks, on random pools and pending pods, that discounting some
// instance types (by family, capacity type or size, by a percentage or an amount) never makes
// the packer's plan cost more than the plan without the discount, nor leave more pods unplaced:
// the old plan is still there to take, and cheaper.
func TestDiscountNeverRaisesCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 4))
	all := statetest.Catalog().InstanceTypes()
	var bad []string
	for i := range discountScenarios {
		types := make([]*catalog.InstanceType, 0, 24)
		for _, j := range rng.Perm(len(all))[:8+rng.IntN(16)] {
			types = append(types, all[j])
		}
		spot := rng.IntN(2) == 0
		build := func(ts []*catalog.InstanceType) *state.Snapshot {
			var opts []statetest.PoolOption
			if spot {
				opts = append(opts, statetest.WithSpot())
			}
			p := statetest.Pool("default", opts...)
			p.InstanceTypes = ts
			return statetest.Snapshot([]*state.Pool{p}, nil, nil)
		}
		var pending []*state.Pod
		for k := range 1 + rng.IntN(30) {
			pending = append(pending, statetest.Pod(fmt.Sprintf("p%d", k),
				pick(rng, []string{"100m", "250m", "500m", "1", "2", "4"}),
				pick(rng, []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"})))
		}
		o := randomDiscount(rng, types)
		discounted := overlay.Apply([]overlay.Overlay{o}, []overlay.Pool{{Name: "default", Labels: map[string]string{scheduling.LabelNodePool: "default"}, Types: types}}).Types["default"]

		before, err := packing.Solve(t.Context(), build(types), pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		after, err := packing.Solve(t.Context(), build(discounted), pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if len(after.Unschedulable) > len(before.Unschedulable) ||
			after.CostPerHour > before.CostPerHour*(1+1e-9)+1e-12 {
			bad = append(bad, fmt.Sprintf("scenario %d (%d pods, %d types, overlay %v %s): %.5f $/h after the discount (%d unplaced), %.5f $/h before (%d unplaced)",
				i, len(pending), len(types), o.Requirements, o.Price.Text, after.CostPerHour, len(after.Unschedulable), before.CostPerHour, len(before.Unschedulable)))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d discounts raised the plan's cost:\n%s", len(bad), discountScenarios, strings.Join(bad, "\n"))
	}
}

// randomDiscount selects the types of one family, one size or one capacity type among types,
// or all of them, and lowers their price by a percentage or an amount.
func randomDiscount(rng *rand.Rand, types []*catalog.InstanceType) overlay.Overlay {
	it := types[rng.IntN(len(types))]
	labels := it.Requirements.Labels()
	var reqs []v1.NodeSelectorRequirementWithMinValues
	switch rng.IntN(4) {
	case 0:
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{labels[scheduling.LabelInstanceFamily]}})
	case 1:
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelInstanceSize, Operator: corev1.NodeSelectorOpIn, Values: []string{labels[scheduling.LabelInstanceSize]}})
	case 2:
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{scheduling.CapacityTypeOnDemand}})
	}
	adjustment := fmt.Sprintf("-%d%%", 5+rng.IntN(90))
	if rng.IntN(3) == 0 {
		adjustment = fmt.Sprintf("-0.%03d", 1+rng.IntN(200))
	}
	return apiOverlay("discount", 0, v1.NodeOverlaySpec{Requirements: reqs, PriceAdjustment: &adjustment})
}

func pick[T any](rng *rand.Rand, items []T) T { return items[rng.IntN(len(items))] }
