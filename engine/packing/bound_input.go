package packing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/bound"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// boundInput is what bound.LowerBound reads of a solver's result: the demand
// on new claims (merged by request), the pools' types as columns, the
// least node count and the number of resources.
type boundInput struct {
	items    []bound.Demand
	cols     []bound.Column
	minNodes int64
	ndims    int
}

// bound is the lower bound of the input.
func (in boundInput) bound() float64 {
	return bound.LowerBound(in.items, in.cols, in.minNodes, in.ndims)
}

// equal reports whether two inputs are the same, so their bounds are.
func (in boundInput) equal(o boundInput) bool {
	return in.minNodes == o.minNodes && in.ndims == o.ndims && slices.Equal(in.items, o.items) && slices.Equal(in.cols, o.cols)
}

// boundInput collects the input of the lower bound of the cost of any
// set of new nodes for the pods Solve put on new claims.
func (s *solver) boundInput() boundInput {
	onClaim := map[string]bool{}
	for _, n := range s.claims {
		if n.dropped {
			continue
		}
		onClaim[n.name] = true
	}
	// Pods that pairwise refuse to share a node need a node each.
	cliques := map[int]int64{}
	ports := map[string]int64{}
	var items []bound.Demand
	var owners []*class
	for _, c := range s.classes {
		if c.derived {
			continue
		}
		var k int64
		for _, p := range c.pods {
			if onClaim[s.placed[p]] {
				k++
			}
		}
		if k > 0 {
			items = append(items, bound.Demand{Req: c.req, Count: k})
			owners = append(owners, c)
		}
		for _, t := range c.anti {
			if !t.soft && isHostname(s.groups.list[t.group].key) && c.matchesGroup(t.group) {
				cliques[t.group] += k
			}
		}
		for _, hp := range c.ports {
			ports[fmt.Sprintf("%s/%d", hp.EffectiveProtocol(), hp.Port)] += k
		}
	}
	// Each clique becomes a resource of its own while dimensions are free,
	// the largest first: a node has one slot of each and each member needs
	// it, so the bound knows which pods need the nodes, not only how many,
	// and that members of different cliques may share one.
	gs := slices.Sorted(maps.Keys(cliques))
	slices.SortStableFunc(gs, func(a, b int) int { return cmp.Compare(cliques[b], cliques[a]) })
	var k int64
	if len(gs) > 0 {
		k = cliques[gs[0]]
	}
	ndims := len(s.dims.names)
	var slots []int
	for _, g := range gs {
		if ndims+len(slots) < resources.MaxDims && cliques[g] > 1 {
			slots = append(slots, g)
		}
	}
	for j, g := range slots {
		for i, c := range owners {
			for _, t := range c.anti {
				if t.group == g && !t.soft && c.matchesGroup(t.group) {
					items[i].Req[ndims+j] = 1
				}
			}
		}
	}
	if len(slots) > 0 {
		// The largest clique's slots count its nodes.
		k = 0
	}
	for _, v := range ports {
		k = max(k, v)
	}
	// The pools' lower-bound columns, with the cliques' slots.
	lbs := make([][]bound.Column, len(s.pools))
	n := 0
	for i, p := range s.pools {
		lbs[i] = p.lbColumns()
		n += len(lbs[i])
	}
	var cols []bound.Column
	if n > 0 {
		cols = make([]bound.Column, 0, n)
	}
	for _, lb := range lbs {
		for _, c := range lb {
			for j := range slots {
				c.Alloc[ndims+j] = 1
			}
			cols = append(cols, c)
		}
	}
	ndims += len(slots)
	return boundInput{items: bound.MergeDemand(items), cols: cols, minNodes: k, ndims: ndims}
}
