package bound

import (
	"math"
	"slices"
)

// The assignment bound by coordinate ascent.
//
// In the assignment LP each pod's whole request must go to one node type
// it fits (unlike the aggregate LP's per-resource rows, which let a pod's
// cpu sit on one node and its memory on another). Its dual gives each type
// t resource prices y_t with y_t·alloc_t + μ ≤ p_t, and each item the value
// π_i = min over the types it fits of y_t·req_i; then Σ n_i π_i +
// μ·minNodes is a valid bound for any such choice (weak duality). The
// prices are improved by coordinate ascent, type by type, over a few
// directions per type; every step keeps them dual feasible.

// assignmentProblem is the assignment LP the ascent bounds: items on
// cols, at least minNodes nodes, over ndims resources, with seed prices
// per resource (each type's first direction).
type assignmentProblem struct {
	items    []Demand
	cols     []Column
	minNodes int64
	ndims    int
	seed     []float64
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

// bound is the ascent's bound. own, when not nil, gives each column a
// starting price vector of its own (see lpStart) and ownMu the node price
// that goes with it: starting there the bound is at least the aggregate
// LP's, and the ascent only raises it.
func (p assignmentProblem) bound(own [][]float64, ownMu float64) float64 {
	best, _ := p.values(fullEffort)
	if own != nil {
		b, _ := p.boundAt(own, ownMu, fullEffort)
		best = max(best, b)
	}
	return best
}

// values is the ascent's bound with the value π_i it gives one pod of
// each item: what the pod costs at least wherever it goes.
func (p assignmentProblem) values(e effort) (float64, []float64) {
	if len(p.items) == 0 || len(p.cols) == 0 {
		return 0, nil
	}
	pmin := math.Inf(1)
	for _, c := range p.cols {
		pmin = min(pmin, c.Price)
	}
	best := 0.0
	var values []float64
	mus := []float64{0}
	if p.minNodes > 0 {
		mus = append(mus, 0.5*pmin, 0.9*pmin, 0.99*pmin)
	}
	for _, mu := range mus {
		if b, v := p.boundAt(nil, mu, e); b > best || values == nil {
			best, values = b, v
		}
	}
	return best, values
}

// AscentValues values one pod of each item by the ascent (quick effort,
// no node count): what it costs at least wherever it goes, knowing that a
// small pod has cheap homes a large one lacks. seed are prices per
// resource to start from.
func AscentValues(items []Demand, cols []Column, ndims int, seed []float64) []float64 {
	_, values := assignmentProblem{items: items, cols: cols, ndims: ndims, seed: seed}.values(quickEffort)
	return values
}

// boundAt climbs from own (or the seed direction) at node price mu and
// returns the bound reached and the items' values there.
func (p assignmentProblem) boundAt(own [][]float64, mu float64, e effort) (float64, []float64) {
	a := newAscent(p, own, mu, e)
	a.recompute()
	for range e.passes {
		a.pass()
	}
	// With own vectors, ties between types stall the passes (raising one
	// type's prices gains nothing while another type is as cheap), so
	// also scale one resource's price on every type at once.
	if own != nil {
		a.scaleResources()
	}
	var sum float64
	values := make([]float64, len(p.items))
	for i, it := range p.items {
		if math.IsInf(a.m1[i], 1) {
			// An item no type fits: no node set exists; bound nothing.
			return 0, values
		}
		values[i] = max(a.m1[i], 0)
		sum += float64(it.Count) * values[i]
	}
	return (sum + mu*float64(p.minNodes)) * (1 - 1e-9), values
}

// ascent is one climb of boundAt: each type's current price direction
// (-1 for its own vector), and per item the cheapest value over the types
// it fits (m1, at type arg) and the runner-up (m2).
type ascent struct {
	assignmentProblem
	mu   float64
	dirs [][]float64
	own  [][]float64
	cur  []int
	// fits[t][i] is whether item i fits type t.
	fits   [][]bool
	m1, m2 []float64
	arg    []int
	// other and old are gain's base (see gainBase).
	other, old []float64
	nTypes, nI int
}

func newAscent(p assignmentProblem, own [][]float64, mu float64, e effort) *ascent {
	nT, nI := len(p.cols), len(p.items)
	a := &ascent{assignmentProblem: p, mu: mu, own: own, nTypes: nT, nI: nI}
	a.dirs = directions(p.ndims, p.seed, e.steps)
	// Each type starts with its own vector, else the seed direction (index 0).
	a.cur = make([]int, nT)
	if own != nil {
		for t := range a.cur {
			a.cur[t] = -1
		}
	}
	a.fits = make([][]bool, nT)
	fits := make([]bool, nT*nI) // one array for every type's row
	for t, c := range p.cols {
		a.fits[t] = fits[t*nI : (t+1)*nI : (t+1)*nI]
		for i, it := range p.items {
			a.fits[t][i] = it.Req.Fits(c.Alloc)
		}
	}
	a.m1 = make([]float64, nI)
	a.m2 = make([]float64, nI)
	a.arg = make([]int, nI)
	return a
}

// norm is type t's direction dir (its prices, y) and the type's
// allocatable at those prices, which valueAt divides by: the same for
// every item, so the loops over items compute it once.
func (a *ascent) norm(t, dir int) ([]float64, float64) {
	c := &a.cols[t]
	var y []float64
	if dir < 0 {
		y = a.own[t]
	} else {
		y = a.dirs[dir]
	}
	var norm float64
	for d := range a.ndims {
		if y[d] != 0 {
			norm += y[d] * float64(max(c.Alloc[d], 0))
		}
	}
	return y, norm
}

// valueAt is item i's value on type t under the direction whose prices
// and norm are y and norm: its share of the type's price less the node
// price, by the direction's prices.
func (a *ascent) valueAt(t int, y []float64, norm float64, i int) float64 {
	if norm <= 0 {
		return 0
	}
	var v float64
	req := &a.items[i].Req
	for d := range a.ndims {
		if y[d] != 0 {
			v += y[d] * float64(req[d])
		}
	}
	return (a.cols[t].Price - a.mu) * v / norm
}

// recompute sets every item's cheapest and runner-up values.
func (a *ascent) recompute() {
	for i := range a.nI {
		a.m1[i], a.m2[i], a.arg[i] = math.Inf(1), math.Inf(1), -1
	}
	for t := range a.nTypes {
		y, norm := a.norm(t, a.cur[t])
		for i := range a.nI {
			if !a.fits[t][i] {
				continue
			}
			v := a.valueAt(t, y, norm, i)
			switch {
			case v < a.m1[i]:
				a.m1[i], a.m2[i], a.arg[i] = v, a.m1[i], t
			case v < a.m2[i]:
				a.m2[i] = v
			}
		}
	}
}

// pass moves each type that is some item's cheapest to the direction
// that raises the bound most. Only those types can raise it by changing
// direction; the rest keep theirs.
func (a *ascent) pass() {
	touched := map[int]bool{}
	for i := range a.nI {
		if a.arg[i] >= 0 {
			touched[a.arg[i]] = true
		}
	}
	order := make([]int, 0, len(touched))
	for t := range touched {
		order = append(order, t)
	}
	slices.Sort(order)
	for _, t := range order {
		a.gainBase(t)
		bestDir, bestGain := a.cur[t], 0.0
		for dir := range a.dirs {
			if gain := a.gain(t, dir); gain > bestGain+1e-12 {
				bestDir, bestGain = dir, gain
			}
		}
		if bestDir != a.cur[t] {
			a.cur[t] = bestDir
			a.recompute()
		}
	}
}

// gainBase sets, for gain on type t, each item's cheapest value on the
// other types (other) and its value now (old): the same for every
// direction gain tries.
func (a *ascent) gainBase(t int) {
	if a.other == nil {
		a.other, a.old = make([]float64, a.nI), make([]float64, a.nI)
	}
	yCur, normCur := a.norm(t, a.cur[t])
	for i := range a.nI {
		if !a.fits[t][i] {
			continue
		}
		other := a.m1[i]
		if a.arg[i] == t {
			other = a.m2[i]
		}
		a.other[i], a.old[i] = other, min(other, a.valueAt(t, yCur, normCur, i))
	}
}

// gain is how much the bound rises when type t takes direction dir
// (gainBase set its base for t).
func (a *ascent) gain(t, dir int) float64 {
	var gain float64
	y, norm := a.norm(t, dir)
	for i := range a.nI {
		if !a.fits[t][i] {
			continue
		}
		gain += float64(a.items[i].Count) * (min(a.other[i], a.valueAt(t, y, norm, i)) - a.old[i])
	}
	return gain
}

// total is the items' value at the current prices.
func (a *ascent) total() float64 {
	var sum float64
	for i, it := range a.items {
		sum += float64(it.Count) * a.m1[i]
	}
	return sum
}

// scaleResources scales one resource's price on every type at once, down
// and up, keeping each change that raises the bound.
func (a *ascent) scaleResources() {
	best := a.total()
	for d := range a.ndims {
		for _, f := range []float64{0.8, 1.25} {
			savedOwn, savedCur := slices.Clone(a.own), slices.Clone(a.cur)
			for t := range a.nTypes {
				base := a.own[t]
				if a.cur[t] >= 0 {
					base = a.dirs[a.cur[t]]
				}
				v := slices.Clone(base)
				v[d] *= f
				a.own[t], a.cur[t] = v, -1
			}
			a.recompute()
			if sum := a.total(); sum > best+1e-12 {
				best = sum
				continue
			}
			copy(a.own, savedOwn)
			copy(a.cur, savedCur)
			a.recompute()
		}
	}
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
