package catalog_test

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func TestExotic(t *testing.T) {
	c, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"m5.large", ""},
		{"t3a.medium", ""},
		{"r7i.8xlarge", ""},
		{"c5.metal", catalog.ExoticMetal},
		{"m7i.metal-24xl", catalog.ExoticMetal},
		{"g4dn.xlarge", catalog.ExoticGPU},
		{"g4dn.metal", catalog.ExoticGPU},  // GPU first: a pod asking for its GPU may have it
		{"g6f.2xlarge", catalog.ExoticGPU}, // a fractional GPU the data counts as 0
		{"p5.48xlarge", catalog.ExoticGPU},
		{"inf1.6xlarge", catalog.ExoticAccelerator},
		{"trn1.2xlarge", catalog.ExoticAccelerator},
		{"dl2q.24xlarge", catalog.ExoticAccelerator},
		{"f2.6xlarge", catalog.ExoticAccelerator}, // FPGA, uncounted in the data
		{"vt1.3xlarge", catalog.ExoticAccelerator},
	} {
		it, ok := c.Get(tc.name)
		if !ok {
			t.Fatalf("no %s in the catalog", tc.name)
		}
		if got := it.Exotic(); got != tc.want {
			t.Errorf("%s: Exotic() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNamesExotic(t *testing.T) {
	c, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	req := func(rs ...scheduling.Requirement) scheduling.Requirements { return scheduling.NewRequirements(rs...) }
	for _, tc := range []struct {
		desc string
		typ  string
		reqs scheduling.Requirements
		want bool
	}{
		{"no requirements", "inf1.6xlarge", nil, false},
		{"type by name", "inf1.6xlarge", req(scheduling.In(scheduling.LabelInstanceType, "inf1.6xlarge", "m5.large")), true},
		{"another type by name", "inf1.6xlarge", req(scheduling.In(scheduling.LabelInstanceType, "inf1.xlarge")), false},
		{"family", "inf1.6xlarge", req(scheduling.In(scheduling.LabelInstanceFamily, "inf1")), true},
		{"category among others", "g4dn.xlarge", req(scheduling.In(scheduling.LabelInstanceCategory, "c", "g", "m")), true},
		{"category NotIn is no naming", "g4dn.xlarge", req(scheduling.NotIn(scheduling.LabelInstanceCategory, "t")), false},
		{"gpu count above 0", "g4dn.xlarge", req(scheduling.Gt(scheduling.LabelInstanceGPUCount, 0)), true},
		{"gpu count Exists allows 0", "g4dn.xlarge", req(scheduling.Exists(scheduling.LabelInstanceGPUCount)), false},
		{"gpu name", "g4dn.xlarge", req(scheduling.In(scheduling.LabelInstanceGPUName, "t4")), true},
		{"accelerator name", "inf1.6xlarge", req(scheduling.In(scheduling.LabelInstanceAcceleratorName, "inferentia")), true},
		{"accelerator label on a GPU", "g4dn.xlarge", req(scheduling.Gt(scheduling.LabelInstanceAcceleratorCount, 0)), false},
		{"cpu bounds name nothing", "inf1.6xlarge", req(scheduling.Gt(scheduling.LabelInstanceCPU, 16)), false},
		{"metal by size", "c5.metal", req(scheduling.In(scheduling.LabelInstanceSize, "metal")), true},
		{"metal not by family", "c5.metal", req(scheduling.In(scheduling.LabelInstanceFamily, "c5")), false},
		{"ordinary type", "m5.large", req(scheduling.In(scheduling.LabelInstanceType, "m5.large")), false},
	} {
		it, ok := c.Get(tc.typ)
		if !ok {
			t.Fatalf("no %s", tc.typ)
		}
		if got := it.NamesExotic(tc.reqs); got != tc.want {
			t.Errorf("%s: NamesExotic(%s) on %s = %v, want %v", tc.desc, tc.reqs, tc.typ, got, tc.want)
		}
	}
}
