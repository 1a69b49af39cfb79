package scheduling_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func TestRequirementsAddIntersectsInPlace(t *testing.T) {
	r := scheduling.NewRequirements(scheduling.In(scheduling.LabelArch, "amd64", "arm64"))
	r.Add(scheduling.NotIn(scheduling.LabelArch, "arm64"), scheduling.Exists("example.com/team"))
	if want := "example.com/team Exists, kubernetes.io/arch In [amd64]"; r.String() != want {
		t.Errorf("got %q, want %q", r, want)
	}
}

func TestRequirementsIntersectionLeavesInputs(t *testing.T) {
	a := scheduling.NewRequirements(scheduling.In(scheduling.LabelTopologyZone, "z1", "z2"))
	b := scheduling.NewRequirements(scheduling.In(scheduling.LabelTopologyZone, "z2", "z3"), scheduling.Gt(scheduling.LabelInstanceCPU, 2))
	got := a.Intersection(b)
	if want := "tenon.dev/instance-cpu Gt 2, topology.kubernetes.io/zone In [z2]"; got.String() != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if want := "topology.kubernetes.io/zone In [z1 z2]"; a.String() != want {
		t.Errorf("input changed to %q", a)
	}
	var nilReqs scheduling.Requirements
	if got := nilReqs.Intersection(b); got.String() != b.String() {
		t.Errorf("nil ∩ b = %q, want %q", got, b)
	}
}

func TestRequirementsAccessors(t *testing.T) {
	r := scheduling.RequirementsFromLabels(map[string]string{
		scheduling.LabelArch: "amd64",
		"example.com/team":   "ml",
	})
	r.Add(scheduling.In(scheduling.LabelCapacityType, "spot", "on-demand"), scheduling.Gt(scheduling.LabelInstanceCPU, 3))

	if got, want := r.Keys(), []string{"example.com/team", scheduling.LabelArch, scheduling.LabelCapacityType, scheduling.LabelInstanceCPU}; !slices.Equal(got, want) {
		t.Errorf("Keys() = %q, want %q", got, want)
	}
	wantLabels := map[string]string{scheduling.LabelArch: "amd64", "example.com/team": "ml"}
	if got := r.Labels(); !maps.Equal(got, wantLabels) {
		t.Errorf("Labels() = %v, want %v", got, wantLabels)
	}
	if !r.Has(scheduling.LabelArch) || r.Has(scheduling.LabelOS) {
		t.Error("Has is wrong")
	}
	if got := r.Get(scheduling.LabelOS); got.String() != "kubernetes.io/os Exists" {
		t.Errorf("Get(undefined) = %s, want Exists", got)
	}
	clone := r.Clone()
	clone.Add(scheduling.DoesNotExist(scheduling.LabelArch))
	if r.Get(scheduling.LabelArch).Len() != 1 {
		t.Error("Clone shares state with the original")
	}
	back, err := scheduling.RequirementsFromSpecs(r.Specs()...)
	if err != nil || back.String() != r.String() {
		t.Errorf("Specs round trip = %v, %v; want %v", back, err, r)
	}
}
