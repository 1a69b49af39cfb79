package bound

import "github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"

// Pricer values pods and nodes with the aggregate LP's dual prices: a pod
// is worth the duals of the rows it belongs to times its requests.
type Pricer struct {
	rows []aggregateRow
	y    []float64
}

// NewPricer prices the demand with the aggregate LP over all columns'
// thresholds, solved over the undominated ones; when that LP has no
// solution, each resource is priced at its cheapest price per unit.
func NewPricer(items []Demand, cols, undominated []Column, ndims int) *Pricer {
	l := newAggregateLP(items, cols, undominated, 0, ndims)
	y := l.feasible(l.solve())
	if y == nil {
		sum := total(items)
		p := &Pricer{}
		for d := range ndims {
			if sum[d] > 0 {
				p.rows = append(p.rows, aggregateRow{d: d, demand: 1})
				p.y = append(p.y, FractionalBound(resources.Unit(d), cols, ndims))
			}
		}
		return p
	}
	return &Pricer{rows: l.rows, y: y}
}

// Pod is the value of one pod with requests req.
func (p *Pricer) Pod(req resources.Vector) float64 {
	var sum float64
	for i, r := range p.rows {
		if r.d >= 0 && p.y[i] != 0 && r.holdsPod(req) {
			sum += p.y[i] * float64(req[r.d]) / r.demand
		}
	}
	return sum
}

// Node is the value a node with alloc can supply at most.
func (p *Pricer) Node(alloc resources.Vector) float64 {
	var sum float64
	for i, r := range p.rows {
		if r.d >= 0 && p.y[i] != 0 && r.holdsCol(alloc) {
			sum += p.y[i] * float64(max(alloc[r.d], 0)) / r.demand
		}
	}
	return sum
}
