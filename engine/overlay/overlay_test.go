package overlay_test

import (
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/overlay"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

func ptr[T any](v T) *T { return &v }

func TestPriceChange(t *testing.T) {
	for _, tc := range []struct {
		price, adjustment *string
		in, want          float64
		discount          bool
	}{
		{price: ptr("0.042"), in: 0.1, want: 0.042},
		{price: ptr("0"), in: 0.1, want: overlay.MinPricePerHour},
		{adjustment: ptr("-20%"), in: 0.1, want: 0.08, discount: true},
		{adjustment: ptr("-100%"), in: 0.1, want: overlay.MinPricePerHour, discount: true},
		{adjustment: ptr("+10%"), in: 0.1, want: 0.11},
		{adjustment: ptr("-0.01"), in: 0.1, want: 0.09, discount: true},
		{adjustment: ptr("+.005"), in: 0.1, want: 0.105},
		{adjustment: ptr("-1"), in: 0.1, want: overlay.MinPricePerHour, discount: true},
	} {
		change, err := overlay.ParsePrice(tc.price, tc.adjustment)
		if err != nil {
			t.Fatal(err)
		}
		if got := change.Apply(tc.in); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s %s of %v = %v, want %v", change.Field, change.Text, tc.in, got, tc.want)
		}
		if change.Discount() != tc.discount {
			t.Errorf("%s: Discount() = %v, want %v", change.Text, change.Discount(), tc.discount)
		}
	}
	for _, bad := range []struct{ price, adjustment *string }{
		{price: ptr("-1")}, {adjustment: ptr("10%")}, {adjustment: ptr("-101%")}, {price: ptr("1"), adjustment: ptr("+1")},
	} {
		if _, err := overlay.ParsePrice(bad.price, bad.adjustment); err == nil {
			t.Errorf("ParsePrice(%v, %v) accepted a bad value", deref(bad.price), deref(bad.adjustment))
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// apiOverlay builds a NodeOverlay from requirements written key=value (In) or key!=value (NotIn).
func apiOverlay(name string, weight int32, spec v1.NodeOverlaySpec, reqs ...string) overlay.Overlay {
	for _, r := range reqs {
		op, sep := corev1.NodeSelectorOpIn, "="
		if strings.Contains(r, "!=") {
			op, sep = corev1.NodeSelectorOpNotIn, "!="
		}
		k, v, _ := strings.Cut(r, sep)
		spec.Requirements = append(spec.Requirements, v1.NodeSelectorRequirementWithMinValues{Key: k, Operator: op, Values: []string{v}})
	}
	if weight > 0 {
		spec.Weight = &weight
	}
	o := &v1.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	if errs := o.Validate(); len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	out, err := overlay.FromAPI(o)
	if err != nil {
		panic(err)
	}
	return out
}

func types(names ...string) []*catalog.InstanceType {
	out := make([]*catalog.InstanceType, 0, len(names))
	for _, n := range names {
		it, ok := statetest.Catalog().Get(n)
		if !ok {
			panic("no instance type " + n)
		}
		out = append(out, it)
	}
	return out
}

func pools() []overlay.Pool {
	return []overlay.Pool{
		{Name: "general", Labels: map[string]string{scheduling.LabelNodePool: "general", "example.com/team": "web"}, Types: types("m5.large", "c5.large")},
		{Name: "batch", Labels: map[string]string{scheduling.LabelNodePool: "batch"}, Types: types("m5.large", "c5.large")},
	}
}

// price returns the price of typ's offering in zone and capacity type in pool.
func price(t *testing.T, res overlay.Result, pool, typ, zone, capacityType string) float64 {
	t.Helper()
	for _, it := range res.Types[pool] {
		if it.Name != typ {
			continue
		}
		for _, o := range it.Offerings {
			if o.Zone == zone && o.CapacityType == capacityType {
				return o.PricePerHour
			}
		}
	}
	t.Fatalf("no offering %s %s %s in pool %s", typ, zone, capacityType, pool)
	return 0
}

func basePrice(t *testing.T, typ, zone, capacityType string) float64 {
	t.Helper()
	return price(t, overlay.Apply(nil, pools()), "general", typ, zone, capacityType)
}

const zone = "us-east-1a"

func TestApply(t *testing.T) {
	od, spot := scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot
	m5 := basePrice(t, "m5.large", zone, od)
	m5spot := basePrice(t, "m5.large", zone, spot)
	c5 := basePrice(t, "c5.large", zone, od)
	discount := func(p string) v1.NodeOverlaySpec { return v1.NodeOverlaySpec{PriceAdjustment: ptr(p)} }
	fixed := func(p string) v1.NodeOverlaySpec { return v1.NodeOverlaySpec{Price: ptr(p)} }
	type want struct {
		pool, typ, capacityType string
		price                   float64
	}
	for _, tc := range []struct {
		name     string
		overlays []overlay.Overlay
		prices   []want
		outcomes map[string]overlay.Outcome
		message  map[string]string
	}{
		{
			name:     "a family discount changes only that family, in every pool",
			overlays: []overlay.Overlay{apiOverlay("m5", 0, discount("-50%"), "tenon.dev/instance-family=m5")},
			prices:   []want{{"general", "m5.large", od, m5 / 2}, {"batch", "m5.large", od, m5 / 2}, {"general", "c5.large", od, c5}},
			outcomes: map[string]overlay.Outcome{"m5": overlay.Applied},
			message:  map[string]string{"m5": "changes instance types: 1 in NodePool batch, 1 in NodePool general"},
		},
		{
			name:     "Karpenter's label keys select as Tenon's",
			overlays: []overlay.Overlay{apiOverlay("m5", 0, discount("-50%"), "karpenter.k8s.aws/instance-family=m5", "karpenter.sh/capacity-type=spot")},
			prices:   []want{{"general", "m5.large", spot, m5spot / 2}, {"general", "m5.large", od, m5}},
		},
		{
			name:     "a pool's template label selects that pool only",
			overlays: []overlay.Overlay{apiOverlay("web", 0, fixed("0.01"), "example.com/team=web")},
			prices:   []want{{"general", "c5.large", od, 0.01}, {"batch", "c5.large", od, c5}},
		},
		{
			name:     "the nodepool label selects a pool",
			overlays: []overlay.Overlay{apiOverlay("batch", 0, discount("+0.01"), "tenon.dev/nodepool=batch")},
			prices:   []want{{"batch", "m5.large", od, m5 + 0.01}, {"general", "m5.large", od, m5}},
		},
		{
			name: "the higher weight wins whatever the names",
			overlays: []overlay.Overlay{
				apiOverlay("a-high", 20, discount("-50%"), "tenon.dev/instance-family=m5"),
				apiOverlay("z-low", 10, discount("-10%")),
			},
			prices:   []want{{"general", "m5.large", od, m5 / 2}, {"general", "c5.large", od, c5 * 0.9}},
			outcomes: map[string]overlay.Outcome{"a-high": overlay.Applied, "z-low": overlay.Applied},
			message:  map[string]string{"z-low": "2 more it selects are set by overlays of higher weight"},
		},
		{
			name: "the same weight on the same offering is a conflict: the later name applies, the other nowhere",
			overlays: []overlay.Overlay{
				apiOverlay("alpha", 5, discount("-10%")),
				apiOverlay("beta", 5, discount("-50%"), "tenon.dev/instance-family=m5"),
			},
			prices:   []want{{"general", "m5.large", od, m5 / 2}, {"general", "c5.large", od, c5}},
			outcomes: map[string]overlay.Outcome{"alpha": overlay.Conflict, "beta": overlay.Applied},
			message:  map[string]string{"alpha": "conflicts with NodeOverlay beta (weight 5): both set the price of m5.large"},
		},
		{
			name: "the same weight on disjoint offerings is no conflict",
			overlays: []overlay.Overlay{
				apiOverlay("spot", 5, discount("-10%"), "tenon.dev/capacity-type=spot"),
				apiOverlay("od", 5, discount("-50%"), "tenon.dev/capacity-type=on-demand"),
			},
			prices:   []want{{"general", "m5.large", od, m5 / 2}, {"general", "m5.large", spot, m5spot * 0.9}},
			outcomes: map[string]overlay.Outcome{"spot": overlay.Applied, "od": overlay.Applied},
		},
		{
			name:     "an overlay selecting nothing says so",
			overlays: []overlay.Overlay{apiOverlay("none", 0, discount("-10%"), "tenon.dev/instance-family=x99")},
			prices:   []want{{"general", "m5.large", od, m5}},
			outcomes: map[string]overlay.Outcome{"none": overlay.NoMatch},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := overlay.Apply(tc.overlays, pools())
			for _, w := range tc.prices {
				if got := price(t, res, w.pool, w.typ, zone, w.capacityType); math.Abs(got-w.price) > 1e-9 {
					t.Errorf("%s %s %s: price %v, want %v", w.pool, w.typ, w.capacityType, got, w.price)
				}
			}
			for _, st := range res.Statuses {
				if want, ok := tc.outcomes[st.Name]; ok && st.Outcome != want {
					t.Errorf("overlay %s: %s (%s), want %s", st.Name, st.Outcome, st.Message, want)
				}
				if want, ok := tc.message[st.Name]; ok && !strings.Contains(st.Message, want) {
					t.Errorf("overlay %s: message %q, want it to say %q", st.Name, st.Message, want)
				}
			}
		})
	}
}

func TestApplyCapacity(t *testing.T) {
	base := types("m5.large")[0]
	hp := resource.MustParse("1Gi")
	overlays := []overlay.Overlay{
		apiOverlay("hugepages", 10, v1.NodeOverlaySpec{Capacity: corev1.ResourceList{"hugepages-2Mi": hp}}, "tenon.dev/instance-family=m5"),
		apiOverlay("fpga", 10, v1.NodeOverlaySpec{Capacity: corev1.ResourceList{"example.com/fpga": resource.MustParse("2")}}),
		apiOverlay("fpga-low", 1, v1.NodeOverlaySpec{Capacity: corev1.ResourceList{"example.com/fpga": resource.MustParse("8")}}),
	}
	res := overlay.Apply(overlays, pools())
	var got *catalog.InstanceType
	for _, it := range res.Types["general"] {
		if it.Name == "m5.large" {
			got = it
		}
	}
	if q := got.Allocatable["hugepages-2Mi"]; q.Cmp(hp) != 0 {
		t.Errorf("allocatable hugepages-2Mi = %s, want 1Gi", q.String())
	}
	if q := got.Capacity["example.com/fpga"]; q.Value() != 2 {
		t.Errorf("capacity example.com/fpga = %s, want 2 (weight 10 beats weight 1)", q.String())
	}
	wantMem := base.Allocatable.Memory().DeepCopy()
	wantMem.Sub(hp)
	if got.Allocatable.Memory().Cmp(wantMem) != 0 {
		t.Errorf("allocatable memory %s, want %s: hugepages come out of memory", got.Allocatable.Memory(), &wantMem)
	}
	if _, ok := base.Allocatable["hugepages-2Mi"]; ok {
		t.Error("Apply changed the catalog's instance type")
	}
	for _, st := range res.Statuses {
		if st.Outcome != overlay.Applied {
			t.Errorf("overlay %s: %s (%s)", st.Name, st.Outcome, st.Message)
		}
	}
	// Two overlays of one weight adding the same resource conflict, naming it.
	res = overlay.Apply([]overlay.Overlay{
		apiOverlay("a", 3, v1.NodeOverlaySpec{Capacity: corev1.ResourceList{"example.com/fpga": resource.MustParse("1")}}),
		apiOverlay("b", 3, v1.NodeOverlaySpec{Capacity: corev1.ResourceList{"example.com/fpga": resource.MustParse("2")}}),
	}, pools())
	if st := res.Statuses[0]; st.Outcome != overlay.Conflict || !strings.Contains(st.Message, "both set capacity example.com/fpga") {
		t.Errorf("overlay a: %s %q, want a conflict on example.com/fpga", st.Outcome, st.Message)
	}
}
