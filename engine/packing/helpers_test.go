package packing_test

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func mustSolve(t testing.TB, snap *state.Snapshot, ps []*state.Pod) *packing.Result {
	t.Helper()
	r, err := packing.Solve(t.Context(), snap, ps)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return r
}
