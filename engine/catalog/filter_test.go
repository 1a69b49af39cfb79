package catalog_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func TestFilter(t *testing.T) {
	c := newCatalog(t)
	priced := len(c.Filter(nil))
	tests := []struct {
		name string
		reqs scheduling.Requirements
		// check is called for every result; it returns a complaint or "".
		check    func(it *catalog.InstanceType) string
		min, max int
	}{
		{"nothing required", nil, nil, 1345, 1345},
		{"arch arm64", scheduling.NewRequirements(scheduling.In(scheduling.LabelArch, scheduling.ArchARM64)),
			labelIs(scheduling.LabelArch, "arm64"), 300, 396},
		{"one zone", scheduling.NewRequirements(scheduling.In(scheduling.LabelTopologyZone, "us-east-1a")),
			func(it *catalog.InstanceType) string {
				for _, o := range it.Offerings {
					if o.Zone != "us-east-1a" {
						return "offering in " + o.Zone
					}
				}
				if got := it.Requirements.Get(scheduling.LabelTopologyZone).String(); got != "topology.kubernetes.io/zone In [us-east-1a]" {
					return "zone requirement not narrowed: " + got
				}
				return ""
			}, 1345, 1345},
		{"zone outside the catalog", scheduling.NewRequirements(scheduling.In(scheduling.LabelTopologyZone, "us-west-2a")), nil, 0, 0},
		{"spot only", scheduling.NewRequirements(scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeSpot)),
			func(it *catalog.InstanceType) string {
				for _, o := range it.Offerings {
					if o.CapacityType != scheduling.CapacityTypeSpot {
						return "offering " + o.CapacityType
					}
				}
				if len(it.Offerings) != 3 {
					return "want 3 spot offerings, got " + strconv.Itoa(len(it.Offerings))
				}
				return ""
			}, 883, 883},
		{"on-demand, NotIn spot", scheduling.NewRequirements(scheduling.NotIn(scheduling.LabelCapacityType, scheduling.CapacityTypeSpot)),
			func(it *catalog.InstanceType) string {
				if got := it.Requirements.Get(scheduling.LabelCapacityType).Values(); len(got) != 1 || got[0] != "on-demand" {
					return "capacity types " + strings.Join(got, ",")
				}
				return ""
			}, 1345, 1345},
		{"instance family m5", scheduling.NewRequirements(scheduling.In(scheduling.LabelInstanceFamily, "m5")),
			func(it *catalog.InstanceType) string {
				if !strings.HasPrefix(it.Name, "m5.") {
					return "not an m5"
				}
				return ""
			}, 9, 9},
		{"more than 64 vCPUs", scheduling.NewRequirements(scheduling.Gt(scheduling.LabelInstanceCPU, 64)),
			func(it *catalog.InstanceType) string {
				if it.Capacity.Cpu().Value() <= 64 {
					return "has " + it.Capacity.Cpu().String() + " vCPUs"
				}
				return ""
			}, 100, priced},
		{"GPUs", scheduling.NewRequirements(scheduling.Gt(scheduling.LabelInstanceGPUCount, 0)),
			func(it *catalog.InstanceType) string {
				if label(it, scheduling.LabelInstanceGPUName) == "" {
					return "no GPU name"
				}
				return ""
			}, 50, 200},
		{"no GPUs", scheduling.NewRequirements(scheduling.Lt(scheduling.LabelInstanceGPUCount, 1), scheduling.DoesNotExist(scheduling.LabelInstanceGPUName)),
			labelIs(scheduling.LabelInstanceGPUCount, "0"), 1000, priced},
		{"local NVMe over 1 TiB", scheduling.NewRequirements(scheduling.Gte(scheduling.LabelInstanceLocalNVMe, 1024)),
			func(it *catalog.InstanceType) string {
				if n, _ := strconv.Atoi(label(it, scheduling.LabelInstanceLocalNVMe)); n < 1024 {
					return "local NVMe " + label(it, scheduling.LabelInstanceLocalNVMe)
				}
				return ""
			}, 50, 500},
		{"a pool's typical requirements plus a custom label", scheduling.NewRequirements(
			scheduling.In(scheduling.LabelArch, "amd64"),
			scheduling.In(scheduling.LabelCapacityType, "spot", "on-demand"),
			scheduling.In(scheduling.LabelInstanceCategory, "c", "m", "r"),
			scheduling.Gt(scheduling.LabelInstanceGeneration, 5),
			scheduling.NotIn(scheduling.LabelInstanceSize, "metal", "nano", "micro"),
			scheduling.In("example.com/team", "ml"),
		), func(it *catalog.InstanceType) string {
			if g, _ := strconv.Atoi(label(it, scheduling.LabelInstanceGeneration)); g <= 5 {
				return "generation " + label(it, scheduling.LabelInstanceGeneration)
			}
			if strings.Contains(it.Name, "metal") && label(it, scheduling.LabelInstanceSize) == "metal" {
				return "metal"
			}
			return ""
		}, 100, 600},
		{"impossible", scheduling.NewRequirements(scheduling.In(scheduling.LabelArch, "amd64"), scheduling.In(scheduling.LabelInstanceFamily, "c6g")), nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.Filter(tt.reqs)
			if len(got) < tt.min || len(got) > tt.max {
				t.Errorf("%d types, want %d to %d", len(got), tt.min, tt.max)
			}
			for _, it := range got {
				if len(it.Offerings) == 0 {
					t.Errorf("%s has no offerings", it.Name)
				}
				if err := it.Requirements.Intersects(tt.reqs); err != nil {
					t.Errorf("%s does not intersect: %v", it.Name, err)
				}
				if tt.check != nil {
					if complaint := tt.check(it); complaint != "" {
						t.Errorf("%s: %s", it.Name, complaint)
					}
				}
			}
		})
	}
}

func TestFilterDoesNotChangeTheCatalog(t *testing.T) {
	c := newCatalog(t)
	c.Filter(scheduling.NewRequirements(scheduling.In(scheduling.LabelTopologyZone, "us-east-1a"), scheduling.In(scheduling.LabelCapacityType, "spot")))
	m5 := get(t, c, "m5.large")
	if len(m5.Offerings) != 6 || len(m5.Requirements.Get(scheduling.LabelTopologyZone).Values()) != 3 {
		t.Errorf("Filter changed the catalog's m5.large: %+v, %s", m5.Offerings, m5.Requirements.Get(scheduling.LabelTopologyZone))
	}
}

func labelIs(key, want string) func(*catalog.InstanceType) string {
	return func(it *catalog.InstanceType) string {
		if got := label(it, key); got != want {
			return key + " = " + got
		}
		return ""
	}
}
