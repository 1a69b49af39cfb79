package packing

import (
	"math"
	"slices"
)

// assignmentBound is a lower bound from the LP in which each pod's whole
// request must go to one node type it fits (unlike the per-resource rows,
// which let a pod's cpu sit on one node and its memory on another). Its
// dual gives each type t resource prices y_t with y_t·alloc_t + μ ≤ p_t, and
// each class the value π_i = min over the types it fits of y_t·req_i; then
// Σ n_i π_i + μ·minNodes is a valid bound for any such choice (weak
// duality). The prices are improved by coordinate ascent, type by type,
// over a few directions per type; every step keeps them dual feasible.
//
// own, when not nil, gives each column a starting price vector of its own
// (see lpStart) and ownMu the node price that goes with it: starting there
// the bound is at least the aggregate LP's, and the ascent only raises it.
func assignmentBound(items []demandItem, cols []column, minNodes int64, ndims int, seed []float64, own [][]float64, ownMu float64) float64 {
	best, _ := assignmentValues(items, cols, minNodes, ndims, seed, fullEffort)
	if own != nil {
		b, _ := assignmentBoundAt(items, cols, minNodes, ndims, seed, own, ownMu, fullEffort)
		best = max(best, b)
	}
	return best
}

// effort is how hard the coordinate ascent of the assignment bound tries:
// grid steps per price direction and passes over the types.
type effort struct{ steps, passes int }

var (
	// fullEffort is for the reported bound.
	fullEffort = effort{steps: 8, passes: 3}
	// quickEffort is for valuing pods while packing, many times per solve.
	quickEffort = effort{steps: 4, passes: 1}
)

// assignmentValues is assignmentBound with the value π_i it gives one pod
// of each item: what the pod costs at least wherever it goes.
func assignmentValues(items []demandItem, cols []column, minNodes int64, ndims int, seed []float64, e effort) (float64, []float64) {
	if len(items) == 0 || len(cols) == 0 {
		return 0, nil
	}
	pmin := math.Inf(1)
	for _, c := range cols {
		pmin = min(pmin, c.price)
	}
	best := 0.0
	var values []float64
	mus := []float64{0}
	if minNodes > 0 {
		mus = append(mus, 0.5*pmin, 0.9*pmin, 0.99*pmin)
	}
	for _, mu := range mus {
		if b, v := assignmentBoundAt(items, cols, minNodes, ndims, seed, nil, mu, e); b > best || values == nil {
			best, values = b, v
		}
	}
	return best, values
}

func assignmentBoundAt(items []demandItem, cols []column, minNodes int64, ndims int, seed []float64, own [][]float64, mu float64, e effort) (float64, []float64) {
	nT, nI := len(cols), len(items)
	dirs := directions(ndims, seed, e.steps)
	// val[t][i] under the current direction of t; +Inf where i does not fit t.
	// Direction -1 is the column's own starting vector, when given.
	cur := make([]int, nT)
	if own != nil {
		for t := range cur {
			cur[t] = -1
		}
	}
	fits := make([][]bool, nT)
	for t, c := range cols {
		fits[t] = make([]bool, nI)
		for i, it := range items {
			fits[t][i] = it.req.fits(c.alloc)
		}
	}
	value := func(t, dir, i int) float64 {
		c := cols[t]
		var y []float64
		if dir < 0 {
			y = own[t]
		} else {
			y = dirs[dir]
		}
		var norm, v float64
		for d := range ndims {
			if y[d] != 0 {
				norm += y[d] * float64(max(c.alloc[d], 0))
				v += y[d] * float64(items[i].req[d])
			}
		}
		if norm <= 0 {
			return 0
		}
		return (c.price - mu) * v / norm
	}
	// Each type starts with its own vector, else the seed direction (index 0).
	m1 := make([]float64, nI)
	m2 := make([]float64, nI)
	arg := make([]int, nI)
	recompute := func() {
		for i := range nI {
			m1[i], m2[i], arg[i] = math.Inf(1), math.Inf(1), -1
		}
		for t := range nT {
			for i := range nI {
				if !fits[t][i] {
					continue
				}
				v := value(t, cur[t], i)
				switch {
				case v < m1[i]:
					m1[i], m2[i], arg[i] = v, m1[i], t
				case v < m2[i]:
					m2[i] = v
				}
			}
		}
	}
	recompute()
	// Only types that are some class's cheapest or runner-up can raise the
	// bound by changing direction; the rest keep the seed direction.
	for range e.passes {
		touched := map[int]bool{}
		for i := range nI {
			if arg[i] >= 0 {
				touched[arg[i]] = true
			}
		}
		order := make([]int, 0, len(touched))
		for t := range touched {
			order = append(order, t)
		}
		slices.Sort(order)
		for _, t := range order {
			gainOf := func(dir int) float64 {
				var gain float64
				for i := range nI {
					if !fits[t][i] {
						continue
					}
					other := m1[i]
					if arg[i] == t {
						other = m2[i]
					}
					old := min(other, value(t, cur[t], i))
					gain += float64(items[i].count) * (min(other, value(t, dir, i)) - old)
				}
				return gain
			}
			bestDir, bestGain := cur[t], 0.0
			for dir := range dirs {
				if gain := gainOf(dir); gain > bestGain+1e-12 {
					bestDir, bestGain = dir, gain
				}
			}
			if bestDir != cur[t] {
				cur[t] = bestDir
				recompute()
			}
		}
	}
	// With own vectors, ties between types stall the ascent above (raising
	// one type's prices gains nothing while another type is as cheap), so
	// also scale one resource's price on every type at once.
	if own != nil {
		total := func() float64 {
			var sum float64
			for i, it := range items {
				sum += float64(it.count) * m1[i]
			}
			return sum
		}
		best := total()
		for range 1 {
			for d := range ndims {
				for _, f := range []float64{0.8, 1.25} {
					savedOwn, savedCur := slices.Clone(own), slices.Clone(cur)
					for t := range nT {
						base := own[t]
						if cur[t] >= 0 {
							base = dirs[cur[t]]
						}
						v := slices.Clone(base)
						v[d] *= f
						own[t], cur[t] = v, -1
					}
					recompute()
					if sum := total(); sum > best+1e-12 {
						best = sum
						continue
					}
					copy(own, savedOwn)
					copy(cur, savedCur)
					recompute()
				}
			}
		}
	}
	var sum float64
	values := make([]float64, nI)
	for i, it := range items {
		if math.IsInf(m1[i], 1) {
			// A class no type fits: no node set exists; bound nothing.
			return 0, values
		}
		values[i] = max(m1[i], 0)
		sum += float64(it.count) * values[i]
	}
	return (sum + mu*float64(minNodes)) * (1 - 1e-9), values
}

// directions are the price directions tried per type: the seed first,
// each resource alone, and a grid over the simplex of the demanded
// resources (each scaled by its seed price, so the grid is even in value).
func directions(ndims int, seed []float64, steps int) [][]float64 {
	var out [][]float64
	s := make([]float64, ndims)
	copy(s, seed)
	out = append(out, s)
	for d := range ndims {
		v := make([]float64, ndims)
		v[d] = 1
		out = append(out, v)
	}
	var dims []int
	for d := range ndims {
		if seed[d] > 0 && len(dims) < 4 {
			dims = append(dims, d)
		}
	}
	if len(dims) > 3 {
		steps = max(2, steps*5/8)
	}
	var rec func(i, left int, w []int)
	rec = func(i, left int, w []int) {
		if i == len(dims)-1 {
			w[i] = left
			v := make([]float64, ndims)
			for k, d := range dims {
				v[d] = float64(w[k]) / float64(steps) * seed[d]
			}
			out = append(out, v)
			return
		}
		for x := 0; x <= left; x++ {
			w[i] = x
			rec(i+1, left-x, w)
		}
	}
	if len(dims) > 1 {
		rec(0, steps, make([]int, len(dims)))
	}
	return out
}
