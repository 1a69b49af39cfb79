package bound

import (
	"cmp"
	"math"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// Whole pods on small nodes.
//
// The assignment LP lets a node carry a fraction of a pod, so on a type
// that holds a few pods it fills every gap exactly: a t3a.micro holding a
// 500Mi clique member beside 0.6 of a 250Mi pod. Whole pods leave those
// gaps, and where a large hostname anti-affinity clique forces hundreds of
// small nodes (diverse-1k: 200 members, 374 nodes averaging 2.7 pods),
// the gaps are most of the distance between the bound and any packing.
//
// The whole-pod LP is the assignment LP in which a column of a small type
// (one holding at most wholeMaxPods pods, see newTypeLoad) is a whole
// configuration: a whole number a_i ≤ n_i of pods of each item that fit
// one node together, by the type's rows (resources and rounding rows, all
// of which whole pods obey). Every node set is still such a point (a
// node's pods are a configuration of its type, and at most n_i of item i
// ride on one node), so its optimum bounds the cost of any node set, and
// it is at least the assignment LP's: the configurations of a type are
// among its loads. Pricing a small type is then a bounded knapsack over
// the items, solved by depth-first branch and bound (wholeSearch); when
// its counted steps run out, the fractional load's value bounds V_t(π)
// instead, so Farley's bound stays valid whatever the budget.

// wholeMaxPods is the most pods a type may hold and still be priced whole,
// and wholeSteps the branch-and-bound steps one pricing of one type may
// take (steps 0 prices none whole).
const (
	wholeMaxPods = 17
	wholeSteps   = 50000
	// wholeTotalSteps caps the steps of all pricings of one bound (the
	// shared workloads take at most 210,000, diverse-5k); past it every
	// small type is bounded by its fractional load.
	wholeTotalSteps = 1_000_000
)

// wholeEffort caps the whole-pod LP's column generation.
var wholeEffort = assignEffort{rounds: 120, pivots: 400, perRound: 8, total: 5000}

// wholeLP returns the best Farley bound column generation on the whole-pod
// LP reaches within e, each small type's pricing within steps, or 0 when
// no type is small (the bound would be the assignment LP's), there is
// nothing to bound or some item fits no column.
//
// The master starts from seed, the assignment LP's columns: those of types
// that are not small as they are, the loads of small types rounded down
// to whole pods (still within the type's rows), so most of the work of
// the assignment LP is not done again.
func wholeLP(items []Demand, cols []Column, minNodes int64, ndims int, e assignEffort, steps int, seed []assignCand) float64 {
	st := newAssignState(items, cols, minNodes, ndims, true)
	if st == nil || !st.anyWhole {
		return 0
	}
	st.wholeSteps, st.wholeLeft = steps, wholeTotalSteps
	wholeSeed(st, seed)
	b, _, _ := st.run(e)
	return b
}

// wholeSeed adds the assignment LP's columns seed to st's master: those of
// types that are not small as they are, small ones rounded down.
func wholeSeed(st *assignState, seed []assignCand) {
	for _, c := range seed {
		if !c.small {
			st.master.Add(c.price, c.idx, c.val, st.minNodes)
			continue
		}
		// Rounded down, a load may still overrun the node by a float's
		// error: only configurations that fit exactly join.
		var idx []int32
		var val []float64
		var sum resources.Vector
		for k, v := range c.val {
			if w := math.Floor(v); w >= 1 {
				idx, val = append(idx, c.idx[k]), append(val, w)
				sum.AddTimes(&st.items[c.idx[k]].Req, int64(w))
			}
		}
		if len(idx) > 0 && sum.Fits(st.loads[c.typ].alloc) {
			st.master.Add(c.price, idx, val, st.minNodes)
		}
	}
}

// priceWhole prices small type tl at duals pi (and mu for the node
// count) in the whole-pod LP: it returns the ratio of an upper bound on
// V_t(π) + μ to the price, and adds the best configuration to st.cands
// when it is worth more than the price.
func (st *assignState) priceWhole(pi []float64, mu float64, tl *typeLoad) float64 {
	// The fractional load first: it bounds the whole configurations, and
	// its duals bound the search.
	frac := max(st.pr.solve(pi, tl), tl.dualBound(pi))
	if (frac+mu)/tl.price <= 1 {
		return (frac + mu) / tl.price
	}
	steps := min(st.wholeSteps, st.wholeLeft)
	if steps <= 0 {
		return (frac + mu) / tl.price
	}
	v, done := st.ws.solveWhole(pi, st.items, st.demand, tl, max(0, tl.price-mu), steps)
	st.wholeLeft -= steps - max(st.ws.left, 0)
	// An empty configuration is a node for the node-count row.
	if gain := (v + mu - tl.price) / tl.price; gain > 1e-9 {
		st.cands = append(st.cands, assignCand{price: tl.price, idx: slices.Clone(tl.idx), val: slices.Clone(tl.val), gain: gain, small: true})
	}
	if !done {
		v = max(v, frac)
	}
	return (v + mu) / tl.price
}

// wholeSearch is one bounded knapsack: the items of a type's load in order
// of value per share of the node, each at most its demand (caps), the room
// left in each row per depth, and the best configuration found.
type wholeSearch struct {
	tl    *typeLoad
	pi    []float64
	order []int // positions in tl.cols
	caps  []float64
	// ratio[k*rows+r] is the most value per unit of row r among the items
	// from order[k] on (+Inf where one of them has no use of r).
	ratio []float64
	// excess[k] is Σ over the items from order[k] on of what their value
	// exceeds the fractional load's row duals by, times their most count.
	excess []float64
	lambda []float64
	room   [][]float64
	// iroom[k] is the node's room left at depth k, exactly.
	iroom []resources.Vector
	items []Demand
	cur   []float64
	best  []float64
	bestV float64
	left  int
}

// solveWhole returns the most valuable configuration of whole pods on one
// node of tl at duals pi (each item at most caps[item]), its value, and
// whether the search finished; the configuration is kept in tl.idx and
// tl.val. A configuration worth no more than floor is not looked for.
func (w *wholeSearch) solveWhole(pi []float64, items []Demand, caps []float64, tl *typeLoad, floor float64, steps int) (float64, bool) {
	rows := len(tl.rows)
	tl.idx, tl.val = tl.idx[:0], tl.val[:0]
	w.tl, w.pi, w.items, w.caps, w.left, w.bestV = tl, pi, items, caps, steps, floor
	w.order = w.order[:0]
	for j, i := range tl.cols {
		if pi[i] > 1e-12 && caps[i] >= 1 {
			w.order = append(w.order, j)
		}
	}
	if len(w.order) == 0 || rows == 0 {
		return 0, true
	}
	share := func(j int) float64 {
		s := 0.0
		for _, r := range tl.rows {
			s = max(s, r[j])
		}
		return s
	}
	slices.SortStableFunc(w.order, func(a, b int) int {
		return cmp.Compare(pi[tl.cols[b]]/share(b), pi[tl.cols[a]]/share(a))
	})
	n := len(w.order)
	w.ratio = slices.Grow(w.ratio[:0], (n+1)*rows)[:(n+1)*rows]
	clear(w.ratio[n*rows:])
	for k := n - 1; k >= 0; k-- {
		j := w.order[k]
		for r, row := range tl.rows {
			x := math.Inf(1)
			if row[j] > 0 {
				x = pi[tl.cols[j]] / row[j]
			}
			w.ratio[k*rows+r] = max(w.ratio[(k+1)*rows+r], x)
		}
	}
	// The rows' duals of the fractional load at pi bound the rest too:
	// any a has π·a ≤ λ·(rows·a) + Σ_j max(0, π_j − λ·row_j)·a_j.
	// Any λ ≥ 0 will do; the simplex's are clamped at 0.
	w.lambda = slices.Grow(w.lambda[:0], rows)[:rows]
	clear(w.lambda)
	if len(tl.lambda) == rows {
		for r, l := range tl.lambda {
			w.lambda[r] = max(l, 0)
		}
	}
	w.excess = slices.Grow(w.excess[:0], n+1)[:n+1]
	w.excess[n] = 0
	for k := n - 1; k >= 0; k-- {
		j := w.order[k]
		cover := 0.0
		for r, row := range tl.rows {
			cover += w.lambda[r] * row[j]
		}
		e := 0.0
		if d := pi[tl.cols[j]] - cover; d > 0 {
			e = d * min(caps[tl.cols[j]], math.Floor(tl.amax[j]+wholeSlack))
		}
		w.excess[k] = w.excess[k+1] + e
	}
	for len(w.room) < n+1 {
		w.room = append(w.room, nil)
	}
	for k := range n + 1 {
		w.room[k] = slices.Grow(w.room[k][:0], rows)[:rows]
	}
	for r := range rows {
		w.room[0][r] = 1
	}
	w.iroom = slices.Grow(w.iroom[:0], n+1)[:n+1]
	w.iroom[0] = tl.alloc
	w.cur = slices.Grow(w.cur[:0], n)[:n]
	w.best = slices.Grow(w.best[:0], n)[:n]
	clear(w.cur)
	clear(w.best)
	w.search(0, 0)
	for k, j := range w.order {
		if w.best[k] > 0 {
			tl.idx = append(tl.idx, tl.cols[j])
			tl.val = append(tl.val, w.best[k])
		}
	}
	found := w.bestV
	if len(tl.idx) == 0 {
		found = 0
	}
	return found, w.left > 0
}

// wholeSlack is how far past a rounding row's room a whole count may go:
// rows are scaled floats, and pods that fit obey the rows exactly, so a
// sum over 1 by a float's error must not shut them out (the resources
// themselves are counted in integers).
const wholeSlack = 1e-9

// search tries every count of item order[k] that fits the room at depth k,
// most first, the branch so far worth v.
func (w *wholeSearch) search(k int, v float64) {
	w.left--
	if v > w.bestV+1e-12 {
		w.bestV = v
		copy(w.best, w.cur)
	}
	if k == len(w.order) || w.left <= 0 {
		return
	}
	rows := len(w.tl.rows)
	room := w.room[k]
	// Two bounds on what the items left can add: the duals' (above), and
	// each row alone, its room times the best value per unit of it (a row
	// some item left does not use bounds nothing). A room a whole count
	// overran by wholeSlack counts as empty.
	ub := w.excess[k]
	for r, l := range w.lambda {
		ub += l * max(room[r], 0)
	}
	for r := range rows {
		if q := w.ratio[k*rows+r]; !math.IsInf(q, 1) {
			ub = min(ub, max(room[r], 0)*q)
		}
	}
	if v+ub <= w.bestV*(1+1e-9) {
		return
	}
	j := w.order[k]
	req := &w.items[w.tl.cols[j]].Req
	// Resources are counted exactly; the rounding rows, which whole pods
	// that fit obey, with wholeSlack.
	x := float64(req.Times(&w.iroom[k], int64(w.caps[w.tl.cols[j]])))
	for r := w.tl.nres; r < rows; r++ {
		if row := w.tl.rows[r]; row[j] > 0 {
			x = min(x, math.Floor((room[r]+wholeSlack)/row[j]))
		}
	}
	next := w.room[k+1]
	p := w.pi[w.tl.cols[j]]
	for ; x >= 0 && w.left > 0; x-- {
		for r, row := range w.tl.rows {
			next[r] = room[r] - x*row[j]
		}
		w.iroom[k+1] = w.iroom[k]
		w.iroom[k+1].SubTimes(req, int64(x))
		w.cur[k] = x
		w.search(k+1, v+x*p)
	}
	w.cur[k] = 0
}
