package bound

import "github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"

// Valuation values pods by the duals of the assignment LP for a demand
// that falls as pods are placed: the first Values sets up column
// generation on the merged requests, later ones lower the counts and go on
// from the last basis and loads, so each costs little.
type Valuation struct {
	state *assignState
	// row is each request's row of the LP, left the counts per row.
	row     map[resources.Vector]int
	left    []int64
	started bool
}

// NewValuation sets up column generation on the assignment LP for items
// (merged by request) over cols, or returns nil when it cannot be set up
// (see MaxAssignItems).
func NewValuation(items []Demand, cols []Column, ndims int) *Valuation {
	merged := MergeDemand(items)
	st := newAssignState(merged, cols, 0, ndims, false)
	if st == nil {
		return nil
	}
	v := &Valuation{state: st, row: make(map[resources.Vector]int, len(merged)), left: make([]int64, len(merged))}
	for i, it := range merged {
		v.row[it.Req] = i
	}
	return v
}

// Values values one pod of each of items (whose requests must be among
// those the Valuation was set up for) by the LP's duals for that demand,
// after at most rounds rounds of column generation; nil when none was
// reached.
func (v *Valuation) Values(items []Demand, rounds int) []float64 {
	if v.started {
		clear(v.left)
		for _, it := range items {
			v.left[v.row[it.Req]] += it.Count
		}
		v.state.setDemand(v.left, valueEffort.pivots)
	}
	v.started = true
	e := valueEffort
	e.rounds = rounds
	_, _, pv := v.state.run(e)
	if pv == nil {
		return nil
	}
	values := make([]float64, len(items))
	for k, it := range items {
		values[k] = pv[v.row[it.Req]]
	}
	return values
}
