package bound

import (
	"math"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// Column is one way to buy capacity: a node's allocatable (after
// daemonsets) at a price.
type Column struct {
	Alloc resources.Vector
	Price float64
}

// Demand is Count pods of one request vector.
type Demand struct {
	Req   resources.Vector
	Count int64
}

// MergeDemand sums the counts of items with the same request, keeping
// the first one's place: the bounds depend only on how many pods of each
// request there are, and many classes (one per Deployment) share one.
func MergeDemand(items []Demand) []Demand {
	at := make(map[resources.Vector]int, len(items))
	var out []Demand
	for _, it := range items {
		if i, ok := at[it.Req]; ok {
			out[i].Count += it.Count
			continue
		}
		at[it.Req] = len(out)
		out = append(out, it)
	}
	return out
}

// total is the sum of every pod's request.
func total(items []Demand) resources.Vector {
	var sum resources.Vector
	for _, it := range items {
		sum = sum.Add(it.Req.Scale(it.Count))
	}
	return sum
}

// DistinctColumns keeps one column per distinct allocatable, at the lowest
// price of those with it, in the order of first occurrence. The bounds and
// the pricer read a column list only for the cheapest price per unit of a
// resource, the sizes at which fewer columns hold a pod, and the columns
// no other beats (ParetoColumns), none of which a dearer column with the
// same allocatable changes: they are the same over the distinct columns,
// a quarter as many on the embedded catalog.
func DistinctColumns(cols []Column) []Column {
	at := make(map[resources.Vector]int32, len(cols))
	var out []Column
	for _, c := range cols {
		i, ok := at[c.Alloc]
		if !ok {
			at[c.Alloc] = int32(len(out))
			out = append(out, c)
			continue
		}
		if c.Price < out[i].Price {
			out[i].Price = c.Price
		}
	}
	return out
}

// ParetoColumns drops the columns another column dominates (at least as
// much of every resource for no more money). Any LP solution can swap a
// dominated column for its dominator at no extra cost, so the optimum and
// every bound derived from the smaller LP stay valid for the full one.
func ParetoColumns(cols []Column, ndims int) []Column {
	sorted := slices.Clone(cols)
	slices.SortStableFunc(sorted, func(a, b Column) int {
		if a.Price != b.Price {
			if a.Price < b.Price {
				return -1
			}
			return 1
		}
		// Larger first on a tie, so the dominator is kept.
		for d := range ndims {
			if a.Alloc[d] != b.Alloc[d] {
				if a.Alloc[d] > b.Alloc[d] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	var kept []Column
next:
	for _, c := range sorted {
		for _, k := range kept {
			if k.Alloc.Dominates(c.Alloc, ndims) {
				continue next
			}
		}
		kept = append(kept, c)
	}
	return kept
}

// FractionalBound is the weakest bound the LPs must beat: for each
// resource, its demand at the cheapest price per unit, the largest over
// resources.
func FractionalBound(demand resources.Vector, cols []Column, ndims int) float64 {
	best := 0.0
	for d := range ndims {
		if demand[d] <= 0 {
			continue
		}
		perUnit := math.Inf(1)
		for _, c := range cols {
			if c.Alloc[d] > 0 {
				perUnit = min(perUnit, c.Price/float64(c.Alloc[d]))
			}
		}
		if !math.IsInf(perUnit, 1) {
			best = max(best, perUnit*float64(demand[d]))
		}
	}
	return best
}
