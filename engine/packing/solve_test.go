package packing_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

func TestSolveEdges(t *testing.T) {
	def := statetest.Snapshot(statetest.Pools(statetest.Pool("default")), nil, nil)
	t.Run("no pods", func(t *testing.T) {
		r := solveChecked(t, def, nil)
		if len(r.Claims) != 0 || r.CostPerHour != 0 || r.LowerBoundPerHour != 0 {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("no pools", func(t *testing.T) {
		r := solveChecked(t, statetest.Snapshot(nil, nil, nil), one(statetest.Pod("a", "1", "1Gi")))
		if got := reasonOf(r, "a"); !strings.Contains(got, "no nodepool exists") {
			t.Errorf("reason %q", got)
		}
	})
	t.Run("duplicate pods count once", func(t *testing.T) {
		p := statetest.Pod("a", "1", "1Gi")
		r := solveChecked(t, def, []*state.Pod{p, p})
		if len(r.Placements) != 1 {
			t.Errorf("%d placements", len(r.Placements))
		}
	})
	t.Run("nil snapshot", func(t *testing.T) {
		if _, err := packing.Solve(t.Context(), nil, nil); err == nil {
			t.Error("no error")
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := packing.Solve(ctx, def, statetest.Pods(10, "p", "1", "1Gi"))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	})
	t.Run("lower bound at most the cost", func(t *testing.T) {
		r := solveChecked(t, def, unconstrainedPods(300, 3))
		if r.LowerBoundPerHour <= 0 || r.LowerBoundPerHour > r.CostPerHour {
			t.Errorf("bound %.3f, cost %.3f", r.LowerBoundPerHour, r.CostPerHour)
		}
	})
}
