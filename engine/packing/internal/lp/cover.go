package lp

import (
	"math"
	"slices"
)

// Cover is the covering LP
//
//	min Σ_j c_j·x_j  subject to  Σ_j a_ij·x_j ≥ d_i,  x ≥ 0,
//
// solved by a revised simplex that keeps the dense basis inverse (one row
// per demand: a few dozen) and sparse columns, and goes on from the last
// basis when columns are added. Each row starts with an artificial
// variable dearer per unit than any column covering the row, and has a
// surplus: columns 0 to m-1 are the artificials, m to 2m-1 the surpluses,
// and the columns added follow. Column generation uses only its duals
// (and plans its basic columns), so stopping at a pivot budget is
// harmless.
type Cover struct {
	m int
	// pivots counts the primal pivots so far.
	pivots int
	cost   []float64
	idx    [][]int32 // column j's non-zero rows; artificials and surpluses have one
	val    [][]float64
	basic  []bool
	basis  []int
	binv   [][]float64
	xB     []float64
	u, pi  []float64
}

// NewCover returns the LP for demands d with no column added yet.
func NewCover(d []float64) *Cover {
	m := len(d)
	l := &Cover{m: m, basis: make([]int, m), binv: make([][]float64, m), xB: make([]float64, m), u: make([]float64, m), pi: make([]float64, m)}
	for i := range m {
		l.cost = append(l.cost, 0)
		l.idx = append(l.idx, []int32{int32(i)})
		l.val = append(l.val, []float64{1})
		l.basic = append(l.basic, true)
		l.binv[i] = make([]float64, m)
		l.binv[i][i] = 1
		l.basis[i] = i
		l.xB[i] = d[i]
	}
	for i := range m {
		l.cost = append(l.cost, 0)
		l.idx = append(l.idx, []int32{int32(i)})
		l.val = append(l.val, []float64{-1})
		l.basic = append(l.basic, false)
	}
	return l
}

// Rows is the number of demand rows.
func (l *Cover) Rows() int { return l.m }

// Pivots is the number of primal pivots Solve made so far.
func (l *Cover) Pivots() int { return l.pivots }

// Basic returns the column basic in row r as an index among the added
// columns (-1 for an artificial or a surplus) and its value.
func (l *Cover) Basic(r int) (int, float64) {
	return l.basis[r] - 2*l.m, l.xB[r]
}

// Add appends a column at price with the given non-zeros, plus a 1 in the
// last row when node is set (the node-count row of the assignment LP),
// and keeps every row's artificial dearer per unit than the column.
func (l *Cover) Add(price float64, idx []int32, val []float64, node bool) {
	if node {
		idx = append(idx[:len(idx):len(idx)], int32(l.m-1))
		val = append(val[:len(val):len(val)], 1)
	}
	l.cost = append(l.cost, price)
	l.idx = append(l.idx, idx)
	l.val = append(l.val, val)
	l.basic = append(l.basic, false)
	for k, i := range idx {
		if v := val[k]; v > 0 {
			l.cost[i] = max(l.cost[i], 1e3*price/v+1)
		}
	}
	// An artificial's cost may have risen while it is basic.
}

// Duals sets pi to c_B·B⁻¹.
func (l *Cover) Duals(pi []float64) {
	clear(pi)
	for r := range l.m {
		cb := l.cost[l.basis[r]]
		if cb == 0 {
			continue
		}
		for i, v := range l.binv[r] {
			pi[i] += cb * v
		}
	}
}

// Solve pivots (Dantzig's rule on reduced cost per dollar, lowest index on
// ties) until no column prices out or the budget is spent.
func (l *Cover) Solve(pivots int) {
	const eps = 1e-9
	for range pivots {
		l.pivots++
		l.Duals(l.pi)
		enter := l.entering(eps)
		if enter < 0 {
			return
		}
		l.column(enter)
		leave := l.leaving(eps)
		if leave < 0 {
			return // unbounded: impossible with positive prices
		}
		l.pivot(enter, leave)
	}
}

// entering is the non-basic column with the most negative reduced cost
// per dollar below -eps, or -1.
func (l *Cover) entering(eps float64) int {
	enter, best := -1, -eps
	// Where rc ≥ lim·s (s = max(1, |c|) > 0), rc/s ≥ best (lim, best
	// moved toward zero by a margin far wider than two roundings, and
	// best < 0): the rounded quotient, monotone, is not below best, and
	// the column cannot enter. The product is cheaper than the quotient,
	// which most columns then skip.
	lim := best * (1 - 1e-12)
	pi, basic, idx, val := l.pi, l.basic, l.idx, l.val
	for j, c := range l.cost {
		if basic[j] {
			continue
		}
		rc := c
		vj := val[j]
		for k, i := range idx[j] {
			rc -= pi[i] * vj[k]
		}
		s := max(1, math.Abs(c))
		if rc >= lim*s {
			continue
		}
		if rc /= s; rc < best {
			enter, best = j, rc
			lim = best * (1 - 1e-12)
		}
	}
	return enter
}

// column sets l.u to B⁻¹ times column j.
func (l *Cover) column(j int) {
	idx, val := l.idx[j], l.val[j]
	for r, row := range l.binv {
		var s float64
		for k, i := range idx {
			s += row[i] * val[k]
		}
		l.u[r] = s
	}
}

// leaving is the row of the ratio test on l.u (the lowest basic index on
// ties), or -1.
func (l *Cover) leaving(eps float64) int {
	leave, ratio := -1, math.Inf(1)
	for r := range l.m {
		if l.u[r] > eps {
			q := l.xB[r] / l.u[r]
			if q < ratio-1e-12 || (q <= ratio+1e-12 && leave >= 0 && l.basis[r] < l.basis[leave]) {
				leave, ratio = r, q
			}
		}
	}
	return leave
}

// pivot brings column enter into the basis in row leave, l.u holding
// B⁻¹ times the column.
func (l *Cover) pivot(enter, leave int) {
	piv := l.u[leave]
	row := l.binv[leave]
	for i := range row {
		row[i] /= piv
	}
	l.xB[leave] /= piv
	for r := range l.m {
		f := l.u[r]
		if r == leave || f == 0 {
			continue
		}
		br := l.binv[r][:len(row)]
		for i, v := range row {
			br[i] -= f * v
		}
		if l.xB[r] -= f * l.xB[leave]; l.xB[r] < 0 && l.xB[r] > -1e-9 {
			l.xB[r] = 0
		}
	}
	l.basic[l.basis[leave]] = false
	l.basic[enter] = true
	l.basis[leave] = enter
}

// SetDemand recomputes the basic values for new right-hand sides d; some
// may turn negative, for DualSolve to repair.
func (l *Cover) SetDemand(d []float64) {
	for r := range l.m {
		var s float64
		for i, v := range l.binv[r] {
			s += v * d[i]
		}
		l.xB[r] = s
	}
}

// DualSolve pivots by the dual simplex (most negative basic value leaves;
// the entering column keeps reduced costs non-negative) until the basis is
// feasible or the budget is spent. The duals stay feasible throughout, so
// they change only as much as the new demand needs.
func (l *Cover) DualSolve(pivots int) {
	const eps = 1e-9
	for range pivots {
		leave := -1
		for r := range l.m {
			if l.xB[r] < -eps && (leave < 0 || l.xB[r] < l.xB[leave]) {
				leave = r
			}
		}
		if leave < 0 {
			return
		}
		l.Duals(l.pi)
		enter := l.dualEntering(l.binv[leave], eps)
		if enter < 0 {
			return // infeasible: impossible, artificials cover every row
		}
		l.column(enter)
		l.pivot(enter, leave)
	}
}

// dualEntering is the column of the dual ratio test on row rho of B⁻¹,
// or -1.
func (l *Cover) dualEntering(rho []float64, eps float64) int {
	enter, best := -1, math.Inf(1)
	pi, basic, idx, val := l.pi, l.basic, l.idx, l.val
	for j, c := range l.cost {
		if basic[j] {
			continue
		}
		var alpha float64
		rc := c
		vj := val[j]
		for k, i := range idx[j] {
			alpha += rho[i] * vj[k]
			rc -= pi[i] * vj[k]
		}
		if alpha < -eps {
			if q := max(rc, 0) / -alpha; q < best {
				enter, best = j, q
			}
		}
	}
	return enter
}

// Clone returns a copy of the LP that goes on independently: its
// columns' non-zeros, never changed once added, are shared.
func (l *Cover) Clone() *Cover {
	c := &Cover{
		m: l.m, pivots: l.pivots,
		cost: slices.Clone(l.cost), idx: slices.Clone(l.idx), val: slices.Clone(l.val),
		basic: slices.Clone(l.basic), basis: slices.Clone(l.basis), binv: make([][]float64, len(l.binv)),
		xB: slices.Clone(l.xB), u: make([]float64, len(l.u)), pi: make([]float64, len(l.pi)),
	}
	for r, row := range l.binv {
		c.binv[r] = slices.Clone(row)
	}
	return c
}
