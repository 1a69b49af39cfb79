package lp

import "math"

// CoveringDuals solves min cost·x subject to a·x ≥ 1, x ≥ 0 (a has one
// row per constraint, scaled so every right-hand side is 1, and cost is
// positive) by the dual simplex from the all-surplus basis, which is dual
// feasible because the costs are positive. It returns the optimal duals,
// or nil when the LP is infeasible (some row no column covers) or does not
// converge within 20·(rows+10) pivots.
func CoveringDuals(a [][]float64, cost []float64) []float64 {
	m, n := len(a), len(cost)
	if m == 0 || n == 0 {
		return nil
	}
	var d dualTableau
	d.init(m, n)
	for range 20 * (m + 10) {
		d.duals()
		r := d.leavingRow()
		if r < 0 {
			return d.y
		}
		q := d.enteringColumn(a, cost, r)
		if q < 0 {
			return nil
		}
		d.pivot(a, cost, r, q)
	}
	return nil
}

// dualTableau is CoveringDuals' state: the basis (columns n to n+m-1 are
// the surpluses), its inverse, the basic values and costs, the duals, and
// scratch for row r of the inverse and the entering column.
type dualTableau struct {
	m, n   int
	basis  []int
	basic  []bool
	binv   [][]float64
	xb, cb []float64
	y      []float64
	rho, w []float64
}

// init sets up the all-surplus basis for m rows and n columns.
func (d *dualTableau) init(m, n int) {
	*d = dualTableau{
		m: m, n: n, basis: make([]int, m), basic: make([]bool, n+m), binv: make([][]float64, m),
		xb: make([]float64, m), cb: make([]float64, m), y: make([]float64, m), rho: make([]float64, m), w: make([]float64, m),
	}
	for i := range m {
		d.basis[i] = n + i
		d.basic[n+i] = true
		d.binv[i] = make([]float64, m)
		d.binv[i][i] = -1
		d.xb[i] = -1
	}
}

// duals sets y to c_B·B⁻¹.
func (d *dualTableau) duals() {
	for k := range d.m {
		d.y[k] = 0
		for i := range d.m {
			d.y[k] += d.cb[i] * d.binv[i][k]
		}
	}
}

// leavingRow is the row with the most negative basic value, or -1 when
// the basis is feasible (and so optimal).
func (d *dualTableau) leavingRow() int {
	r := -1
	for i := range d.m {
		if d.xb[i] < -1e-9 && (r < 0 || d.xb[i] < d.xb[r]) {
			r = i
		}
	}
	return r
}

// enteringColumn is the column of the dual ratio test on row r, or -1.
func (d *dualTableau) enteringColumn(a [][]float64, cost []float64, r int) int {
	m, n := d.m, d.n
	copy(d.rho, d.binv[r])
	q, best := -1, math.Inf(1)
	for j := range n + m {
		if d.basic[j] {
			continue
		}
		var alpha, dj float64
		if j < n {
			dj = cost[j]
			for k := range m {
				if v := a[k][j]; v != 0 {
					alpha += d.rho[k] * v
					dj -= d.y[k] * v
				}
			}
		} else {
			alpha, dj = -d.rho[j-n], d.y[j-n]
		}
		if alpha < -1e-12 {
			if ratio := max(dj, 0) / -alpha; ratio < best {
				q, best = j, ratio
			}
		}
	}
	return q
}

// pivot brings column q into the basis in row r.
func (d *dualTableau) pivot(a [][]float64, cost []float64, r, q int) {
	m, n := d.m, d.n
	for i := range m {
		d.w[i] = 0
		for k := range m {
			var v float64
			if q < n {
				v = a[k][q]
			} else if k == q-n {
				v = -1
			}
			d.w[i] += d.binv[i][k] * v
		}
	}
	theta := d.xb[r] / d.w[r]
	for i := range m {
		d.xb[i] -= theta * d.w[i]
	}
	d.xb[r] = theta
	pivot := d.w[r]
	for k := range m {
		d.binv[r][k] /= pivot
	}
	for i := range m {
		if i != r && d.w[i] != 0 {
			f := d.w[i]
			for k := range m {
				d.binv[i][k] -= f * d.binv[r][k]
			}
		}
	}
	d.basic[d.basis[r]] = false
	d.basic[q] = true
	d.basis[r] = q
	if q < n {
		d.cb[r] = cost[q]
	} else {
		d.cb[r] = 0
	}
}
