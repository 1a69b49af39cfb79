package catalog_test

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := catalog.New(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFilter(b *testing.B) {
	c := newCatalog(b)
	pool := scheduling.NewRequirements(
		scheduling.In(scheduling.LabelArch, "amd64", "arm64"),
		scheduling.In(scheduling.LabelCapacityType, "spot", "on-demand"),
		scheduling.In(scheduling.LabelInstanceCategory, "c", "m", "r"),
		scheduling.Gt(scheduling.LabelInstanceGeneration, 5),
		scheduling.In(scheduling.LabelTopologyZone, "us-east-1a", "us-east-1b"),
	)
	b.ReportAllocs()
	for b.Loop() {
		if len(c.Filter(pool)) == 0 {
			b.Fatal("no types")
		}
	}
}
