package bound

import (
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/lp"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// aggregateRow is one covering constraint of the aggregate LP: the pods
// whose requests reach both thresholds can only use columns whose
// allocatable does, so those columns must supply their total of resource
// d. With zero thresholds it is the plain per-resource row; d < 0 is the
// node-count row.
type aggregateRow struct {
	d              int
	minCPU, minMem int64
	demand         float64
}

func (r aggregateRow) holdsPod(req resources.Vector) bool {
	return req[resources.CPU] >= r.minCPU && req[resources.Memory] >= r.minMem
}

func (r aggregateRow) holdsCol(alloc resources.Vector) bool {
	return alloc[resources.CPU] >= r.minCPU && alloc[resources.Memory] >= r.minMem
}

// aggregateLP is min Σ price_j·x_j subject to the rows, x ≥ 0: the LP
// relaxation of buying nodes for the demand, per resource and size
// threshold. Rows are scaled so every right-hand side is 1.
type aggregateLP struct {
	rows []aggregateRow
	cols []Column
	a    [][]float64
}

// maxThresholds bounds the size-threshold rows per resource.
const maxThresholds = 6

// newAggregateLP builds the LP's rows from the thresholds all the columns
// show, but keeps only cols as columns: with cols the undominated ones the
// optimum is the same and the solve much smaller.
func newAggregateLP(items []Demand, all, cols []Column, minNodes int64, ndims int) *aggregateLP {
	l := &aggregateLP{cols: all}
	addRows := func(minCPU, minMem int64) {
		var sum resources.Vector
		for _, it := range items {
			if it.Req[resources.CPU] >= minCPU && it.Req[resources.Memory] >= minMem {
				sum = sum.Add(it.Req.Scale(it.Count))
			}
		}
		for d := range ndims {
			if sum[d] > 0 {
				l.rows = append(l.rows, aggregateRow{d: d, minCPU: minCPU, minMem: minMem, demand: float64(sum[d])})
			}
		}
	}
	addRows(0, 0)
	for _, th := range l.thresholds(items, resources.CPU) {
		addRows(th, 0)
	}
	for _, th := range l.thresholds(items, resources.Memory) {
		addRows(0, th)
	}
	if minNodes > 0 {
		l.rows = append(l.rows, aggregateRow{d: -1, demand: float64(minNodes)})
	}
	l.cols = cols
	l.a = make([][]float64, len(l.rows))
	// The rows share one array.
	flat := make([]float64, len(l.rows)*len(cols))
	for i, r := range l.rows {
		l.a[i] = flat[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		for j, c := range cols {
			switch {
			case r.d < 0:
				l.a[i][j] = 1 / r.demand
			case r.holdsCol(c.Alloc):
				l.a[i][j] = float64(max(c.Alloc[r.d], 0)) / r.demand
			}
		}
	}
	return l
}

// thresholds picks request sizes on resource d at which the set of columns
// able to hold the pods shrinks: distinct sizes, the largest first, at most
// maxThresholds, each one excluding more columns than the one before.
func (l *aggregateLP) thresholds(items []Demand, d int) []int64 {
	var sizes []int64
	for _, it := range items {
		if it.Req[d] > 0 {
			sizes = append(sizes, it.Req[d])
		}
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	var out []int64
	prev := -1
	for i := len(sizes) - 1; i >= 0 && len(out) < maxThresholds; i-- {
		n := 0
		for _, c := range l.cols {
			if c.Alloc[d] >= sizes[i] {
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

// solve returns the LP's scaled duals, or nil when it is infeasible (some
// resource no column provides) or does not converge.
func (l *aggregateLP) solve() []float64 {
	cost := make([]float64, len(l.cols))
	for j, c := range l.cols {
		cost[j] = c.Price
	}
	return lp.CoveringDuals(l.a, cost)
}

// feasible clips y to a dual-feasible point: negative duals are dropped and
// the rest scaled down until every column's constraint holds.
func (l *aggregateLP) feasible(y []float64) []float64 {
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
		if v > l.cols[j].Price {
			f = min(f, l.cols[j].Price/v)
		}
	}
	for i := range out {
		out[i] *= f * (1 - 1e-12)
	}
	return out
}

// bound is the objective of a dual-feasible y: by weak duality a true lower
// bound despite rounding.
func (l *aggregateLP) bound(y []float64) float64 {
	var sum float64
	for _, v := range l.feasible(y) {
		sum += v
	}
	return sum
}
