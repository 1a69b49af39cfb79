package packing

import (
	"fmt"
	"math"
	"slices"
)

// column is one way to buy capacity in the lower-bound LP: a node's
// allocatable (after daemonsets) at a price.
type column struct {
	alloc vec
	price float64
}

// demandItem is count pods of one request vector.
type demandItem struct {
	req   vec
	count int64
}

// lpRow is one covering constraint: the pods whose requests reach both
// thresholds can only use columns whose allocatable does, so those columns
// must supply their total of resource d. With zero thresholds it is the
// plain per-resource row; d < 0 is the node-count row.
type lpRow struct {
	d              int
	minCPU, minMem int64
	demand         float64
}

func (r lpRow) holdsPod(req vec) bool { return req[dimCPU] >= r.minCPU && req[dimMemory] >= r.minMem }

func (r lpRow) holdsCol(alloc vec) bool {
	return alloc[dimCPU] >= r.minCPU && alloc[dimMemory] >= r.minMem
}

// lp is min Σ price_j·x_j subject to the rows, x ≥ 0: the LP relaxation of
// buying nodes for the demand. Rows are scaled so every right-hand side is 1.
type lp struct {
	rows []lpRow
	cols []column
	a    [][]float64
}

// maxThresholds bounds the size-threshold rows per resource.
const maxThresholds = 6

// newLPOver builds the LP's rows from the thresholds all the columns
// show, but keeps only cols as columns: with cols the undominated ones the
// optimum is the same and the solve much smaller.
func newLPOver(items []demandItem, all, cols []column, minNodes int64, ndims int) *lp {
	l := &lp{cols: all}
	var total vec
	for _, it := range items {
		total = total.add(it.req.scale(it.count))
	}
	addRows := func(minCPU, minMem int64) {
		var sum vec
		for _, it := range items {
			if it.req[dimCPU] >= minCPU && it.req[dimMemory] >= minMem {
				sum = sum.add(it.req.scale(it.count))
			}
		}
		for d := range ndims {
			if sum[d] > 0 {
				l.rows = append(l.rows, lpRow{d: d, minCPU: minCPU, minMem: minMem, demand: float64(sum[d])})
			}
		}
	}
	addRows(0, 0)
	for _, th := range l.thresholds(items, dimCPU) {
		addRows(th, 0)
	}
	for _, th := range l.thresholds(items, dimMemory) {
		addRows(0, th)
	}
	if minNodes > 0 {
		l.rows = append(l.rows, lpRow{d: -1, demand: float64(minNodes)})
	}
	l.cols = cols
	l.a = make([][]float64, len(l.rows))
	for i, r := range l.rows {
		l.a[i] = make([]float64, len(cols))
		for j, c := range cols {
			switch {
			case r.d < 0:
				l.a[i][j] = 1 / r.demand
			case r.holdsCol(c.alloc):
				l.a[i][j] = float64(max(c.alloc[r.d], 0)) / r.demand
			}
		}
	}
	return l
}

// thresholds picks request sizes on resource d at which the set of columns
// able to hold the pods shrinks: distinct sizes, the largest first, at most
// maxThresholds, each one excluding more columns than the one before.
func (l *lp) thresholds(items []demandItem, d int) []int64 {
	var sizes []int64
	for _, it := range items {
		if it.req[d] > 0 {
			sizes = append(sizes, it.req[d])
		}
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	var out []int64
	prev := -1
	for i := len(sizes) - 1; i >= 0 && len(out) < maxThresholds; i-- {
		n := 0
		for _, c := range l.cols {
			if c.alloc[d] >= sizes[i] {
				n++
			}
		}
		if n != prev {
			out = append(out, sizes[i])
			prev = n
		}
	}
	return out
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
	basic := make([]bool, n+m)
	binv := make([][]float64, m)
	xb := make([]float64, m)
	cb := make([]float64, m)
	for i := range m {
		basis[i] = n + i
		basic[n+i] = true
		binv[i] = make([]float64, m)
		binv[i][i] = -1
		xb[i] = -1
	}
	y := make([]float64, m)
	rho := make([]float64, m)
	w := make([]float64, m)
	for range 20 * (m + 10) {
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
			if basic[j] {
				continue
			}
			var alpha, dj float64
			if j < n {
				dj = l.cols[j].price
				for k := range m {
					if a := l.a[k][j]; a != 0 {
						alpha += rho[k] * a
						dj -= y[k] * a
					}
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
					a = l.a[k][q]
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
		basic[basis[r]] = false
		basic[q] = true
		basis[r] = q
		if q < n {
			cb[r] = l.cols[q].price
		} else {
			cb[r] = 0
		}
	}
	return nil
}

// feasible clips y to a dual-feasible point: negative duals are dropped and
// the rest scaled down until every column's constraint holds.
func (l *lp) feasible(y []float64) []float64 {
	if y == nil {
		return nil
	}
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = max(v, 0)
	}
	f := 1.0
	for j := range l.cols {
		var v float64
		for i := range l.rows {
			v += out[i] * l.a[i][j]
		}
		if v > l.cols[j].price {
			f = min(f, l.cols[j].price/v)
		}
	}
	for i := range out {
		out[i] *= f * (1 - 1e-12)
	}
	return out
}

// bound is the objective of a dual-feasible y: by weak duality a true lower
// bound despite rounding.
func (l *lp) bound(y []float64) float64 {
	var sum float64
	for _, v := range l.feasible(y) {
		sum += v
	}
	return sum
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

// lowerBound is the assignment LP's optimum, strengthened by rounding rows
// (assignmentLP), when column generation converges; otherwise the largest
// of what it reached, the aggregate LP's bound, the coordinate ascent on
// the assignment LP's dual, and the fractional bound. The converged value
// is at least each of the others: they bound the same LP, or a weaker one.
func lowerBound(items []demandItem, cols []column, minNodes int64, ndims int) float64 {
	pareto := paretoColumns(cols, ndims)
	alp, converged := assignmentLP(items, pareto, minNodes, ndims, defaultAssignEffort)
	if converged {
		return alp
	}
	l := newLPOver(items, cols, pareto, minNodes, ndims)
	var total vec
	for _, it := range items {
		total = total.add(it.req.scale(it.count))
	}
	y := l.solve()
	// Per-resource prices from the aggregate LP seed the assignment bound.
	seed := make([]float64, ndims)
	if fy := l.feasible(y); fy != nil {
		for i, r := range l.rows {
			if r.d >= 0 && r.minCPU == 0 && r.minMem == 0 {
				seed[r.d] = fy[i] / r.demand
			}
		}
	}
	if seed[dimCPU] == 0 && seed[dimMemory] == 0 {
		seed[dimCPU], seed[dimMemory] = 1e-3, 1e-9
	}
	own, ownMu := lpStart(l, l.feasible(y), pareto, ndims)
	ab := assignmentBound(items, pareto, minNodes, ndims, seed, own, ownMu)
	if debugBounds {
		fmt.Printf("bounds lp=%.3f frac=%.3f assign=%.3f column generation=%.3f\n", l.bound(y), fractionalBound(total, cols, ndims), ab, alp)
	}
	return max(l.bound(y), fractionalBound(total, cols, ndims), ab, alp)
}

// lpStart turns a dual-feasible point fy of the aggregate LP l into a
// starting point of the assignment bound: column t's price per unit of
// resource d is the sum of the duals of the d rows whose thresholds t
// reaches, and the node price is the node-count row's dual. Then
// y_t·alloc_t + μ ≤ price_t for every column (the LP's column constraint),
// and a pod that fits t reaches every threshold t does not miss, so its
// value min over t of y_t·req is at least its LP value: the assignment
// bound there is at least the LP bound. It returns nil when fy is nil.
func lpStart(l *lp, fy []float64, cols []column, ndims int) ([][]float64, float64) {
	if fy == nil {
		return nil, 0
	}
	var mu float64
	own := make([][]float64, len(cols))
	for j, c := range cols {
		own[j] = make([]float64, ndims)
		for i, r := range l.rows {
			switch {
			case r.d < 0:
				if j == 0 {
					mu += fy[i] / r.demand
				}
			case r.holdsCol(c.alloc):
				own[j][r.d] += fy[i] / r.demand
			}
		}
	}
	return own, mu
}

// pricer values pods and nodes with an LP's dual prices: a pod is worth
// the duals of the rows it belongs to times its requests.
type pricer struct {
	rows []lpRow
	y    []float64
}

// newPricer prices the demand with the LP over all columns' thresholds,
// solved over the undominated ones.
func newPricer(items []demandItem, cols, undominated []column, ndims int) *pricer {
	l := newLPOver(items, cols, undominated, 0, ndims)
	y := l.feasible(l.solve())
	if y == nil {
		// Fall back to the cheapest price per unit of each resource.
		var total vec
		for _, it := range items {
			total = total.add(it.req.scale(it.count))
		}
		p := &pricer{}
		for d := range ndims {
			if total[d] > 0 {
				p.rows = append(p.rows, lpRow{d: d, demand: 1})
				p.y = append(p.y, fractionalBound(unit(d), cols, ndims))
			}
		}
		return p
	}
	return &pricer{rows: l.rows, y: y}
}

func unit(d int) vec {
	var v vec
	v[d] = 1
	return v
}

// pod is the value of one pod with requests req.
func (p *pricer) pod(req vec) float64 {
	var sum float64
	for i, r := range p.rows {
		if r.d >= 0 && p.y[i] != 0 && r.holdsPod(req) {
			sum += p.y[i] * float64(req[r.d]) / r.demand
		}
	}
	return sum
}

// node is the value a node with alloc can supply at most.
func (p *pricer) node(alloc vec) float64 {
	var sum float64
	for i, r := range p.rows {
		if r.d >= 0 && p.y[i] != 0 && r.holdsCol(alloc) {
			sum += p.y[i] * float64(max(alloc[r.d], 0)) / r.demand
		}
	}
	return sum
}

var debugBounds = false

// paretoColumns drops the columns another column dominates (at least as
// much of every resource for no more money). Any LP solution can swap a
// dominated column for its dominator at no extra cost, so the optimum and
// every bound derived from the smaller LP stay valid for the full one.
func paretoColumns(cols []column, ndims int) []column {
	sorted := slices.Clone(cols)
	slices.SortStableFunc(sorted, func(a, b column) int {
		if a.price != b.price {
			if a.price < b.price {
				return -1
			}
			return 1
		}
		// Larger first on a tie, so the dominator is kept.
		for d := range ndims {
			if a.alloc[d] != b.alloc[d] {
				if a.alloc[d] > b.alloc[d] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	var kept []column
next:
	for _, c := range sorted {
		for _, k := range kept {
			if dominates(k.alloc, c.alloc, ndims) {
				continue next
			}
		}
		kept = append(kept, c)
	}
	return kept
}

func dominates(a, b vec, ndims int) bool {
	for d := range ndims {
		if a[d] < b[d] {
			return false
		}
	}
	return true
}
