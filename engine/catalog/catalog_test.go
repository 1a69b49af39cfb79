package catalog_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func newCatalog(t testing.TB, opts ...catalog.Option) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(t testing.TB, c *catalog.Catalog, name string) *catalog.InstanceType {
	t.Helper()
	it, ok := c.Get(name)
	if !ok {
		t.Fatalf("%s is not in the catalog", name)
	}
	return it
}

// label returns the single value of a well-known label, or "" when the type
// has none (DoesNotExist).
func label(it *catalog.InstanceType, key string) string {
	values := it.Requirements.Get(key).Values()
	if len(values) != 1 {
		return ""
	}
	return values[0]
}

func TestSanityChecks(t *testing.T) {
	c := newCatalog(t)
	tests := []struct {
		name     string
		labels   map[string]string
		capacity map[corev1.ResourceName]string
		alloc    map[corev1.ResourceName]string
		onDemand float64
	}{
		{
			name: "m5.large",
			labels: map[string]string{
				scheduling.LabelInstanceType: "m5.large", scheduling.LabelArch: "amd64", scheduling.LabelOS: "linux",
				scheduling.LabelTopologyRegion: "us-east-1", scheduling.LabelInstanceCategory: "m",
				scheduling.LabelInstanceFamily: "m5", scheduling.LabelInstanceGeneration: "5", scheduling.LabelInstanceSize: "large",
				scheduling.LabelInstanceCPU: "2", scheduling.LabelInstanceMemory: "8192", scheduling.LabelInstanceCPUManufacturer: "intel",
				scheduling.LabelInstanceGPUCount: "0", scheduling.LabelInstanceGPUName: "", scheduling.LabelInstanceHypervisor: "nitro",
				scheduling.LabelInstanceNetworkBandwidth: "750", scheduling.LabelInstanceEBSBandwidth: "4750",
				scheduling.LabelInstanceLocalNVMe: "", scheduling.LabelInstanceEncryptionInTransit: "false",
			},
			capacity: map[corev1.ResourceName]string{"cpu": "2", "memory": "7577Mi", "pods": "29", "ephemeral-storage": "20Gi"},
			alloc:    map[corev1.ResourceName]string{"cpu": "1930m", "memory": "6903Mi", "pods": "29", "ephemeral-storage": "17Gi"},
			onDemand: 0.096,
		},
		{
			name:     "c6g.xlarge",
			labels:   map[string]string{scheduling.LabelArch: "arm64", scheduling.LabelInstanceCPU: "4", scheduling.LabelInstanceMemory: "8192", scheduling.LabelInstanceCPUManufacturer: "aws"},
			capacity: map[corev1.ResourceName]string{"cpu": "4"},
			alloc:    map[corev1.ResourceName]string{"cpu": "3920m", "memory": "6525Mi"},
			onDemand: 0.136,
		},
		{
			name: "p4d.24xlarge",
			labels: map[string]string{
				scheduling.LabelInstanceCPU: "96", scheduling.LabelInstanceGPUCount: "8", scheduling.LabelInstanceGPUName: "a100",
				scheduling.LabelInstanceGPUManufacturer: "nvidia", scheduling.LabelInstanceGPUMemory: "40960",
				scheduling.LabelInstanceNetworkBandwidth: "400000", scheduling.LabelInstanceLocalNVMe: "8000",
			},
			capacity: map[corev1.ResourceName]string{"cpu": "96", catalog.ResourceNVIDIAGPU: "8", catalog.ResourceEFA: "4"},
			alloc:    map[corev1.ResourceName]string{catalog.ResourceNVIDIAGPU: "8", "pods": "737"},
			onDemand: 21.957642,
		},
		{
			name: "inf2.xlarge",
			labels: map[string]string{
				scheduling.LabelInstanceCPU: "4", scheduling.LabelInstanceMemory: "16384", scheduling.LabelInstanceGPUCount: "0",
				scheduling.LabelInstanceAcceleratorName: "inferentia2", scheduling.LabelInstanceAcceleratorManufacturer: "aws",
				scheduling.LabelInstanceAcceleratorCount: "1", scheduling.LabelInstanceNetworkBandwidth: "2083",
			},
			capacity: map[corev1.ResourceName]string{catalog.ResourceNeuron: "1"},
			alloc:    map[corev1.ResourceName]string{catalog.ResourceNeuron: "1"},
			onDemand: 0.7582,
		},
		{
			name:     "g4ad.xlarge",
			labels:   map[string]string{scheduling.LabelInstanceGPUManufacturer: "amd"},
			capacity: map[corev1.ResourceName]string{catalog.ResourceAMDGPU: "1"},
			onDemand: 0.37853,
		},
		{
			name:     "m5.metal",
			labels:   map[string]string{scheduling.LabelInstanceHypervisor: "", scheduling.LabelInstanceSize: "metal"},
			onDemand: 4.608,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := get(t, c, tt.name)
			for key, want := range tt.labels {
				if got := label(it, key); got != want {
					t.Errorf("label %s = %q, want %q (%s)", key, got, want, it.Requirements.Get(key))
				}
			}
			checkResources(t, "capacity", it.Capacity, tt.capacity)
			checkResources(t, "allocatable", it.Allocatable, tt.alloc)
			if got := len(it.Offerings); got != 6 {
				t.Errorf("%d offerings, want 3 zones × 2 capacity types", got)
			}
			for _, o := range it.Offerings {
				if o.CapacityType == scheduling.CapacityTypeOnDemand && o.PricePerHour != tt.onDemand {
					t.Errorf("on-demand price in %s = %v, want %v", o.Zone, o.PricePerHour, tt.onDemand)
				}
			}
		})
	}
}

func checkResources(t *testing.T, what string, list corev1.ResourceList, want map[corev1.ResourceName]string) {
	t.Helper()
	for name, quantity := range want {
		got, ok := list[name]
		if !ok {
			t.Errorf("%s has no %s", what, name)
			continue
		}
		if got.Cmp(resource.MustParse(quantity)) != 0 {
			t.Errorf("%s %s = %s, want %s", what, name, got.String(), quantity)
		}
	}
}

func TestEveryTypeIsWellFormed(t *testing.T) {
	c := newCatalog(t)
	types := c.InstanceTypes()
	if len(types) != 1363 {
		t.Errorf("%d instance types, want 1363", len(types))
	}
	if !slices.IsSortedFunc(types, func(a, b *catalog.InstanceType) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("InstanceTypes is not sorted by name")
	}
	wellKnown := scheduling.WellKnownLabels()
	for _, it := range types {
		for _, o := range it.Offerings {
			if !(o.PricePerHour > 0) || math.IsInf(o.PricePerHour, 0) {
				t.Errorf("%s: offering %+v has price %v", it.Name, o, o.PricePerHour)
			}
		}
		for _, key := range scheduling.WellKnownLabels().UnsortedList() {
			if key == scheduling.LabelNodePool || key == scheduling.LabelHostname {
				continue
			}
			if !it.Requirements.Has(key) {
				t.Errorf("%s: no requirement on %s", it.Name, key)
			}
		}
		for _, key := range it.Requirements.Keys() {
			if !wellKnown.Has(key) {
				t.Errorf("%s: requirement on %s, which is not well known", it.Name, key)
			}
		}
		if it.Allocatable.Cpu().Cmp(*it.Capacity.Cpu()) >= 0 || it.Allocatable.Memory().Cmp(*it.Capacity.Memory()) >= 0 {
			t.Errorf("%s: allocatable %v is not below capacity %v", it.Name, it.Allocatable, it.Capacity)
		}
		if it.Allocatable.Memory().Sign() <= 0 {
			t.Errorf("%s: allocatable memory %v", it.Name, it.Allocatable.Memory())
		}
	}
}

func TestRequiredFamiliesArePriced(t *testing.T) {
	c := newCatalog(t)
	for _, family := range strings.Fields("c5 c5a c6i c6a c6g c7i c7g m5 m5a m6i m6a m6g m7i m7g r5 r5a r6i r6g r7i r7g t3 t3a t4g g5 p4d inf2") {
		t.Run(family, func(t *testing.T) {
			if got := c.Filter(scheduling.NewRequirements(scheduling.In(scheduling.LabelInstanceFamily, family))); len(got) == 0 {
				t.Errorf("no priced %s types in us-east-1", family)
			}
		})
	}
}

func TestTypesWithoutAPriceHaveNoOffering(t *testing.T) {
	east := newCatalog(t)
	gov := newCatalog(t, catalog.WithRegion("us-gov-west-1"))
	tests := []struct {
		name       string
		c          *catalog.Catalog
		offerings  int
		zoneLabels []string
	}{
		{"p5e.48xlarge", east, 0, nil},
		{"hpc6a.48xlarge", east, 0, nil},
		{"dl2q.24xlarge", east, 0, nil},
		{"hpc6a.48xlarge", gov, 3, []string{"us-gov-west-1a", "us-gov-west-1b", "us-gov-west-1c"}},
		{"p5e.48xlarge", gov, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.c.Region()+"/"+tt.name, func(t *testing.T) {
			it := get(t, tt.c, tt.name)
			if len(it.Offerings) != tt.offerings {
				t.Errorf("%d offerings, want %d: %+v", len(it.Offerings), tt.offerings, it.Offerings)
			}
			if got := it.Requirements.Get(scheduling.LabelTopologyZone).Values(); !slices.Equal(got, tt.zoneLabels) {
				t.Errorf("zones %q, want %q", got, tt.zoneLabels)
			}
			if _, ok := it.CheapestOffering(); ok != (tt.offerings > 0) {
				t.Errorf("CheapestOffering ok = %v", ok)
			}
			for _, filtered := range tt.c.Filter(nil) {
				if filtered.Name == tt.name && tt.offerings == 0 {
					t.Error("Filter returned a type without offerings")
				}
			}
		})
	}
}

func TestGovCloud(t *testing.T) {
	c := newCatalog(t, catalog.WithRegion("us-gov-west-1"))
	if got, want := c.Zones(), []string{"us-gov-west-1a", "us-gov-west-1b", "us-gov-west-1c"}; !slices.Equal(got, want) {
		t.Errorf("zones %q, want %q", got, want)
	}
	m5 := get(t, c, "m5.large")
	if cheapest, ok := m5.CheapestOffering(); !ok || cheapest.PricePerHour != 0.121 || cheapest.CapacityType != scheduling.CapacityTypeOnDemand {
		t.Errorf("m5.large cheapest = %+v, %v; want on-demand at 0.121", cheapest, ok)
	}
	if label(m5, scheduling.LabelTopologyRegion) != "us-gov-west-1" {
		t.Errorf("region label = %s", m5.Requirements.Get(scheduling.LabelTopologyRegion))
	}
	if got := c.Filter(scheduling.NewRequirements(scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeSpot))); len(got) != 0 {
		t.Errorf("%d types offer spot in GovCloud, which has no spot prices in the data", len(got))
	}
	if got := c.Filter(nil); len(got) != 750 {
		t.Errorf("%d priced types in us-gov-west-1, want 750", len(got))
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name    string
		opts    []catalog.Option
		wantErr string
	}{
		{"unknown region", []catalog.Option{catalog.WithRegion("eu-west-1")},
			"region eu-west-1 has no prices in the embedded catalog; use one of us-east-1, us-gov-east-1, us-gov-west-1"},
		{"empty region", []catalog.Option{catalog.WithRegion("")},
			"empty region: pass WithRegion a region such as us-east-1, or leave it out for us-east-1"},
		{"no zones", []catalog.Option{catalog.WithZones()},
			"no zones: pass WithZones at least one zone, or leave it out for us-east-1a, us-east-1b and us-east-1c"},
		{"zone in another region", []catalog.Option{catalog.WithZones("us-east-1a", "us-west-2a")},
			`zone "us-west-2a" is not in region us-east-1; use zones such as us-east-1a, or choose the zone's region with WithRegion`},
		{"region as zone", []catalog.Option{catalog.WithZones("us-east-1")},
			`zone "us-east-1" is not in region us-east-1; use zones such as us-east-1a, or choose the zone's region with WithRegion`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.New(tt.opts...)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestWithZones(t *testing.T) {
	c := newCatalog(t, catalog.WithZones("us-east-1f", "us-east-1-bos-1a", "us-east-1f"))
	if got, want := c.Zones(), []string{"us-east-1-bos-1a", "us-east-1f"}; !slices.Equal(got, want) {
		t.Errorf("zones %q, want %q", got, want)
	}
	m5 := get(t, c, "m5.large")
	var got []string
	for _, o := range m5.Offerings {
		got = append(got, o.Zone+"/"+o.CapacityType)
	}
	want := []string{"us-east-1-bos-1a/on-demand", "us-east-1-bos-1a/spot", "us-east-1f/on-demand", "us-east-1f/spot"}
	if !slices.Equal(got, want) {
		t.Errorf("offerings %q, want %q", got, want)
	}
}

func TestCheapestOffering(t *testing.T) {
	c := newCatalog(t)
	m5 := get(t, c, "m5.large")
	got, ok := m5.CheapestOffering()
	want := catalog.Offering{Zone: "us-east-1a", CapacityType: scheduling.CapacityTypeSpot, PricePerHour: 0.03264, Available: true}
	if !ok || got != want {
		t.Errorf("CheapestOffering() = %+v, %v; want %+v", got, ok, want)
	}
	unavailable := *m5
	unavailable.Offerings = slices.Clone(m5.Offerings)
	for i := range unavailable.Offerings {
		unavailable.Offerings[i].Available = unavailable.Offerings[i].CapacityType != scheduling.CapacityTypeSpot
	}
	if got, _ := unavailable.CheapestOffering(); got.CapacityType != scheduling.CapacityTypeOnDemand {
		t.Errorf("CheapestOffering picked an unavailable offering: %+v", got)
	}
}

func TestNewIsDeterministic(t *testing.T) {
	a, b := newCatalog(t), newCatalog(t)
	ta, tb := a.InstanceTypes(), b.InstanceTypes()
	for i := range ta {
		if ta[i].Name != tb[i].Name || !slices.Equal(ta[i].Offerings, tb[i].Offerings) ||
			ta[i].Requirements.String() != tb[i].Requirements.String() {
			t.Fatalf("type %d differs between two catalogs: %s vs %s", i, ta[i].Name, tb[i].Name)
		}
	}
}
