package catalog

import (
	"fmt"
	"testing"
)

// TestOverheadFormulaMatchesKarpenter checks the fallback formula against the
// figures Karpenter publishes for every type that has them. CPU, pods and
// ephemeral storage match exactly. Memory matches exactly for amd64; for
// arm64 the published figure is a constant 59 MiB lower, an extra reservation
// the formula does not model, so the tolerance there is 59 MiB (0.2% to 4%
// of allocatable memory, the most on the smallest types).
func TestOverheadFormulaMatchesKarpenter(t *testing.T) {
	records, err := decodeRecords()
	if err != nil {
		t.Fatal(err)
	}
	const arm64MemoryToleranceMiB = 59
	checked := 0
	for _, rec := range records {
		want := rec.KarpenterAllocatable
		if want == nil {
			continue
		}
		checked++
		got := overheadAllocatable(rec.VCPU, rec.MemoryMiB, rec.MaxPods)
		if got.CPUMillicores != want.CPUMillicores || got.Pods != want.Pods || got.EphemeralStorageGiB != want.EphemeralStorageGiB {
			t.Errorf("%s: formula %+v, Karpenter %+v", rec.Name, got, *want)
		}
		tolerance := int64(0)
		if rec.Arch == "arm64" {
			tolerance = arm64MemoryToleranceMiB
		}
		if diff := got.MemoryMiB - want.MemoryMiB; diff < 0 || diff > tolerance {
			t.Errorf("%s (%s): formula memory %d MiB, Karpenter %d MiB (diff %d, tolerance %d)",
				rec.Name, rec.Arch, got.MemoryMiB, want.MemoryMiB, diff, tolerance)
		}
	}
	if checked < 1000 {
		t.Errorf("only %d types have karpenter_allocatable", checked)
	}
}

func TestKubeReservedMillicores(t *testing.T) {
	tests := []struct{ millicores, want int64 }{
		{0, 0},
		{500, 30},
		{1000, 60},
		{2000, 70},
		{4000, 80},
		{8000, 90},
		{96000, 310},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.millicores), func(t *testing.T) {
			if got := kubeReservedMillicores(tt.millicores); got != tt.want {
				t.Errorf("kubeReservedMillicores(%d) = %d, want %d", tt.millicores, got, tt.want)
			}
		})
	}
}

func TestAllocatableFallsBackToTheFormula(t *testing.T) {
	rec := record{Name: "x.large", VCPU: 2, MemoryMiB: 8192, MaxPods: 29}
	got := allocatable(rec)
	if got.Cpu().MilliValue() != 1930 || got.Memory().Value() != 6903*1024*1024 || got.Pods().Value() != 29 ||
		got.StorageEphemeral().Value() != 17*1024*1024*1024 {
		t.Errorf("allocatable without karpenter_allocatable = %v, want m5.large's figures", got)
	}
}
