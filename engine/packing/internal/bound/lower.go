package bound

import "github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"

// LowerBound is a proven lower bound on the cost of any set of nodes of
// cols holding items, with at least minNodes nodes: the assignment LP's
// optimum, strengthened by rounding rows (assignmentLP), when column
// generation converges; otherwise the largest of what it reached, the
// aggregate LP's bound, the coordinate ascent on the assignment LP's dual,
// and the fractional bound. The converged value is at least each of the
// others: they bound the same LP, or a weaker one. In both cases it is
// raised to the whole-pod LP's bound (whole.go) where that is higher: the
// same LP with whole pods on the types that hold a few.
func LowerBound(items []Demand, cols []Column, minNodes int64, ndims int) float64 {
	v, _ := LowerBoundConverged(items, cols, minNodes, ndims)
	return v
}

// LowerBoundConverged is LowerBound and whether column generation on the
// assignment LP converged, so the bound is that LP's optimum: then no
// bound of a looser LP (one with fewer rows or resources) can beat it.
func LowerBoundConverged(items []Demand, cols []Column, minNodes int64, ndims int) (float64, bool) {
	pareto := ParetoColumns(cols, ndims)
	alp, converged, added := assignmentRun(items, pareto, minNodes, ndims, defaultAssignEffort)
	alp = max(alp, wholeLP(items, pareto, minNodes, ndims, wholeEffort, wholeSteps, added))
	if converged {
		return alp, true
	}
	l := newAggregateLP(items, cols, pareto, minNodes, ndims)
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
	if seed[resources.CPU] == 0 && seed[resources.Memory] == 0 {
		seed[resources.CPU], seed[resources.Memory] = 1e-3, 1e-9
	}
	own, ownMu := lpStart(l, l.feasible(y), pareto, ndims)
	ab := assignmentProblem{items: items, cols: pareto, minNodes: minNodes, ndims: ndims, seed: seed}.bound(own, ownMu)
	return max(l.bound(y), FractionalBound(total(items), cols, ndims), ab, alp), false
}

// lpStart turns a dual-feasible point fy of the aggregate LP l into a
// starting point of the assignment bound: column t's price per unit of
// resource d is the sum of the duals of the d rows whose thresholds t
// reaches, and the node price is the node-count row's dual. Then
// y_t·alloc_t + μ ≤ price_t for every column (the LP's column constraint),
// and a pod that fits t reaches every threshold t does not miss, so its
// value min over t of y_t·req is at least its LP value: the assignment
// bound there is at least the LP bound. It returns nil when fy is nil.
func lpStart(l *aggregateLP, fy []float64, cols []Column, ndims int) ([][]float64, float64) {
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
			case r.holdsCol(c.Alloc):
				own[j][r.d] += fy[i] / r.demand
			}
		}
	}
	return own, mu
}
