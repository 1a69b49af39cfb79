package packing

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func TestSolveEdges(t *testing.T) {
	def := snapshot(poolsOf(pool("default")), nil, nil)
	t.Run("no pods", func(t *testing.T) {
		r := solveChecked(t, def, nil)
		if len(r.Claims) != 0 || r.CostPerHour != 0 || r.LowerBoundPerHour != 0 {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("no pools", func(t *testing.T) {
		r := solveChecked(t, snapshot(nil, nil, nil), one(pod("a", "1", "1Gi")))
		if got := reasonOf(r, "a"); !strings.Contains(got, "no nodepool exists") {
			t.Errorf("reason %q", got)
		}
	})
	t.Run("duplicate pods count once", func(t *testing.T) {
		p := pod("a", "1", "1Gi")
		r := solveChecked(t, def, []*state.Pod{p, p})
		if len(r.Placements) != 1 {
			t.Errorf("%d placements", len(r.Placements))
		}
	})
	t.Run("nil snapshot", func(t *testing.T) {
		if _, err := Solve(t.Context(), nil, nil); err == nil {
			t.Error("no error")
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := Solve(ctx, def, pods(10, "p", "1", "1Gi"))
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

func TestCheckFindsViolations(t *testing.T) {
	def := snapshot(poolsOf(pool("default")), nil, nil)
	ps := pods(2, "p", "1", "1Gi")
	tests := []struct {
		name   string
		mutate func(r *Result)
		want   string
	}{
		{"missing pod", func(r *Result) { r.Placements = r.Placements[:1] }, "neither placed nor listed"},
		{"wrong price", func(r *Result) { r.Claims[0].Options[0].PricePerHour *= 2 }, "no available offering"},
		{"overcommit", func(r *Result) {
			r.Claims[0].Options[0] = InstanceOption{InstanceType: "t3a.nano", Zone: "us-east-1a", CapacityType: "on-demand", PricePerHour: 0.0047}
		}, "exceeds allocatable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustSolve(t, def, ps)
			tt.mutate(r)
			var msgs []string
			for _, v := range Check(def, ps, r) {
				msgs = append(msgs, v.String())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tt.want) {
				t.Errorf("violations %q, want one containing %q", msgs, tt.want)
			}
		})
	}
}
