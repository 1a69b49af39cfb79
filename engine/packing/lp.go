package packing

import "math"

// column is one way to buy capacity in the lower-bound LP: a node's
// allocatable (after daemonsets) at a price.
type column struct {
	alloc vec
	price float64
}

// lp is min Σ price_j·x_j subject to Σ alloc_j[d]·x_j ≥ demand[d] for each
// resource d with demand, Σ x_j ≥ minNodes, x ≥ 0: the LP relaxation of
// buying nodes for the demand. Rows are scaled so every right-hand side is 1.
type lp struct {
	rows     []int // resource of each row; -1 for the node-count row
	demand   vec
	minNodes int64
	cols     []column
}

func newLP(demand vec, cols []column, minNodes int64, ndims int) *lp {
	l := &lp{demand: demand, minNodes: minNodes, cols: cols}
	for d := range ndims {
		if demand[d] > 0 {
			l.rows = append(l.rows, d)
		}
	}
	if minNodes > 0 {
		l.rows = append(l.rows, -1)
	}
	return l
}

// coef is row i of column j, scaled.
func (l *lp) coef(i, j int) float64 {
	d := l.rows[i]
	if d < 0 {
		return 1 / float64(l.minNodes)
	}
	return float64(max(l.cols[j].alloc[d], 0)) / float64(l.demand[d])
}

// solve runs the dual simplex from the all-surplus basis, which is dual
// feasible because prices are positive. It returns the scaled duals, or
// nil when the LP is infeasible (some resource no column provides) or does
// not converge.
func (l *lp) solve() []float64 {
	m, n := len(l.rows), len(l.cols)
	if m == 0 || n == 0 {
		return nil
	}
	basis := make([]int, m)
	binv := make([][]float64, m)
	xb := make([]float64, m)
	cb := make([]float64, m)
	for i := range m {
		basis[i] = n + i
		binv[i] = make([]float64, m)
		binv[i][i] = -1
		xb[i] = -1
	}
	y := make([]float64, m)
	rho := make([]float64, m)
	w := make([]float64, m)
	for range 50 * (m + 1) {
		for k := range m {
			y[k] = 0
			for i := range m {
				y[k] += cb[i] * binv[i][k]
			}
		}
		r := -1
		for i := range m {
			if xb[i] < -1e-9 && (r < 0 || xb[i] < xb[r]) {
				r = i
			}
		}
		if r < 0 {
			return y
		}
		copy(rho, binv[r])
		q, best := -1, math.Inf(1)
		for j := range n + m {
			if isBasic(basis, j) {
				continue
			}
			var alpha, dj float64
			if j < n {
				dj = l.cols[j].price
				for k := range m {
					a := l.coef(k, j)
					alpha += rho[k] * a
					dj -= y[k] * a
				}
			} else {
				alpha, dj = -rho[j-n], y[j-n]
			}
			if alpha < -1e-12 {
				if ratio := max(dj, 0) / -alpha; ratio < best {
					q, best = j, ratio
				}
			}
		}
		if q < 0 {
			return nil
		}
		for i := range m {
			w[i] = 0
			for k := range m {
				var a float64
				if q < n {
					a = l.coef(k, q)
				} else if k == q-n {
					a = -1
				}
				w[i] += binv[i][k] * a
			}
		}
		theta := xb[r] / w[r]
		for i := range m {
			xb[i] -= theta * w[i]
		}
		xb[r] = theta
		pivot := w[r]
		for k := range m {
			binv[r][k] /= pivot
		}
		for i := range m {
			if i != r && w[i] != 0 {
				f := w[i]
				for k := range m {
					binv[i][k] -= f * binv[r][k]
				}
			}
		}
		basis[r] = q
		if q < n {
			cb[r] = l.cols[q].price
		} else {
			cb[r] = 0
		}
	}
	return nil
}

func isBasic(basis []int, j int) bool {
	for _, b := range basis {
		if b == j {
			return true
		}
	}
	return false
}

// bound turns scaled duals into a valid lower bound: negative duals are
// dropped and the rest scaled down until every column's constraint holds,
// so by weak duality the objective is a true bound despite rounding.
func (l *lp) bound(y []float64) float64 {
	if y == nil {
		return 0
	}
	f := 1.0
	for j := range l.cols {
		var v float64
		for i := range l.rows {
			v += max(y[i], 0) * l.coef(i, j)
		}
		if v > l.cols[j].price {
			f = min(f, l.cols[j].price/v)
		}
	}
	var sum float64
	for i := range l.rows {
		sum += max(y[i], 0) * f
	}
	return sum * (1 - 1e-12)
}

// fractionalBound is the weakest bound the LP must beat: for each resource,
// its demand at the cheapest price per unit, the largest over resources.
func fractionalBound(demand vec, cols []column, ndims int) float64 {
	best := 0.0
	for d := range ndims {
		if demand[d] <= 0 {
			continue
		}
		perUnit := math.Inf(1)
		for _, c := range cols {
			if c.alloc[d] > 0 {
				perUnit = min(perUnit, c.price/float64(c.alloc[d]))
			}
		}
		if !math.IsInf(perUnit, 1) {
			best = max(best, perUnit*float64(demand[d]))
		}
	}
	return best
}

// lowerBound is the larger of the LP bound and the fractional bound.
func lowerBound(demand vec, cols []column, minNodes int64, ndims int) float64 {
	l := newLP(demand, cols, minNodes, ndims)
	return max(l.bound(l.solve()), fractionalBound(demand, cols, ndims))
}

// duals returns per-resource prices for the demand: the LP's duals in
// natural units, or the fractional bound's single price when the LP fails.
func duals(demand vec, cols []column, minNodes int64, ndims int) []float64 {
	out := make([]float64, ndims)
	l := newLP(demand, cols, minNodes, ndims)
	if y := l.solve(); y != nil {
		for i, d := range l.rows {
			if d >= 0 {
				out[d] = max(y[i], 0) / float64(demand[d])
			}
		}
		return out
	}
	for d := range ndims {
		if demand[d] <= 0 {
			continue
		}
		perUnit := math.Inf(1)
		for _, c := range cols {
			if c.alloc[d] > 0 {
				perUnit = min(perUnit, c.price/float64(c.alloc[d]))
			}
		}
		if !math.IsInf(perUnit, 1) {
			out[d] = perUnit
		}
	}
	return out
}
