package lp

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// TestCover solves min x1 + x2 + 1.5·x3 covering demands 2 and 3, where
// x1 covers the first, x2 the second and x3 both: the optimum is x3 = 2,
// x2 = 1 (cost 4), with duals 0.5 and 1; after the demand falls to 1 and
// 1, the dual simplex restores x3 = 1.
func TestCover(t *testing.T) {
	c := NewCover([]float64{2, 3})
	c.Add(1, []int32{0}, []float64{1}, false)
	c.Add(1, []int32{1}, []float64{1}, false)
	c.Add(1.5, []int32{0, 1}, []float64{1, 1}, false)
	c.Solve(100)
	pi := make([]float64, 2)
	c.Duals(pi)
	if !near(pi[0], 0.5) || !near(pi[1], 1) {
		t.Errorf("duals %v, want [0.5 1]", pi)
	}
	x := map[int]float64{}
	for r := range c.Rows() {
		if j, v := c.Basic(r); j >= 0 {
			x[j] = v
		}
	}
	if !near(x[2], 2) || !near(x[1], 1) {
		t.Errorf("basic columns %v, want x3 = 2 and x2 = 1", x)
	}
	c.SetDemand([]float64{1, 1})
	c.DualSolve(100)
	for r := range c.Rows() {
		if j, v := c.Basic(r); j >= 0 && v < -1e-9 {
			t.Errorf("column %d at %g after the dual simplex", j, v)
		}
	}
	c.Duals(pi)
	if got := pi[0] + pi[1]; !near(got, 1.5) {
		t.Errorf("duals %v after the demand fell, want them to sum to x3's price 1.5", pi)
	}
}

// TestCoverClone checks that a clone goes on as the original would and
// that neither changes the other: after the clone, the original gets a
// column and a new demand; the clone, given the same, ends at the same
// basis and duals, and the clone's first state stays what it was.
func TestCoverClone(t *testing.T) {
	c := NewCover([]float64{2, 3})
	c.Add(1, []int32{0}, []float64{1}, false)
	c.Add(1, []int32{1}, []float64{1}, false)
	c.Solve(100)
	k := c.Clone()
	pi0 := make([]float64, 2)
	k.Duals(pi0)
	step := func(l *Cover) []float64 {
		l.Add(1.5, []int32{0, 1}, []float64{1, 1}, false)
		l.Solve(100)
		l.SetDemand([]float64{1, 1})
		l.DualSolve(100)
		pi := make([]float64, 2)
		l.Duals(pi)
		return pi
	}
	want := step(c)
	pi := make([]float64, 2)
	k.Duals(pi)
	if pi[0] != pi0[0] || pi[1] != pi0[1] {
		t.Fatalf("the original's pivots changed the clone's duals: %v, were %v", pi, pi0)
	}
	if got := step(k); got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("clone's duals %v, original's %v", got, want)
	}
	for r := range c.Rows() {
		j1, x1 := c.Basic(r)
		j2, x2 := k.Basic(r)
		if j1 != j2 || x1 != x2 {
			t.Fatalf("row %d: original has column %d at %g, clone %d at %g", r, j1, x1, j2, x2)
		}
	}
}

// TestCoveringDuals solves min x1 + 3·x2 subject to 0.5·x1 + x2 ≥ 1: x1 = 2
// is optimal, and the dual is 2.
func TestCoveringDuals(t *testing.T) {
	y := CoveringDuals([][]float64{{0.5, 1}}, []float64{1, 3})
	if len(y) != 1 || !near(y[0], 2) {
		t.Errorf("duals %v, want [2]", y)
	}
	if y := CoveringDuals([][]float64{{0, 0}}, []float64{1, 1}); y != nil {
		t.Errorf("an uncoverable row gave duals %v, want nil", y)
	}
}

// TestPacking solves max 3·a1 + 2·a2 subject to a1 + a2 ≤ 1 and 2·a1 ≤ 1:
// a1 = a2 = 0.5 (2.5), with duals 2 and 0.5.
func TestPacking(t *testing.T) {
	var p Packing
	for range 2 { // the second solve reuses the tableau
		c := p.Reset([][]float64{{1, 1}, {2, 0}}, 2)
		c[0], c[1] = 3, 2
		if v := p.Solve(); !near(v, 2.5) {
			t.Fatalf("optimum %g, want 2.5", v)
		}
		if !near(p.Dual(0), 2) || !near(p.Dual(1), 0.5) {
			t.Errorf("duals %g and %g, want 2 and 0.5", p.Dual(0), p.Dual(1))
		}
		a := make([]float64, 2)
		for r := range 2 {
			if j, v := p.Basic(r); j < 2 {
				a[j] = v
			}
		}
		if !near(a[0], 0.5) || !near(a[1], 0.5) {
			t.Errorf("solution %v, want [0.5 0.5]", a)
		}
	}
}
