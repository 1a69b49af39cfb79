package bound

import (
	"math"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/lp"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// The assignment LP, solved by column generation.
//
// The ascent (ascent.go) climbs the assignment LP's dual by coordinate
// ascent over a grid of price directions: cheap, but it stops short of the
// optimum (on the benchmark workloads by 0.3–0.6%). assignmentLP solves
// the same LP, strengthened by rounding rows, to (near) optimality through
// its Dantzig–Wolfe form:
//
//	min Σ_c p_c·x_c  subject to  Σ_c a_ic·x_c ≥ n_i for every item i,
//	                             Σ_c x_c ≥ minNodes,  x ≥ 0,
//
// where a column c is a type t at its price and a fractional load a of
// one node of t: a ≥ 0, Σ_i a_i·req_i ≤ alloc_t, the type's rounding rows
// (newTypeLoad), and a_i = 0 for the items that do not fit t whole. Every
// node set is such a point (each node's whole pods are a load), so the
// optimum bounds the cost of any. GLPK, given the same LP, agrees to the
// last digit (w1 47.569048, diverse-1k 13.440839). The restricted
// master holds a few columns; its duals (π per item, μ for the node row)
// ask every type for the load worth most, V_t(π) = max π·a (a small LP
// with one row per resource, solved by loadLP), and the loads worth more
// than their price join the master.
//
// The bound does not rest on the master: for any π, μ ≥ 0, with
// r = max_t (V_t(π) + μ)/p_t, the point (π, μ)/max(r, 1) is feasible for
// the LP's dual, so (Σ n_i·π_i + μ·minNodes)/max(r, 1) bounds the optimum
// (Farley's bound) whatever the master's rounding or budget. All work is
// capped by counts, so the bound is deterministic.

// assignEffort caps assignmentLP: rounds of pricing, master pivots per
// round, columns added per round, and master pivots in all (over every
// run of one state).
type assignEffort struct{ rounds, pivots, perRound, total int }

var defaultAssignEffort = assignEffort{rounds: 200, pivots: 400, perRound: 8, total: 5000}

// valueEffort caps each valuation of a Valuation; its rounds are the
// caller's.
var valueEffort = assignEffort{pivots: 200, perRound: 8, total: 20_000}

// assignmentLP returns the best Farley bound column generation on the
// assignment LP reaches within e, or 0 when there is nothing to bound or
// some item fits no column (no node set exists), and whether it converged:
// no type had a load worth more than its price, so the bound is the LP's
// optimum (to rounding) and no other bound of the same LP can beat it.
func assignmentLP(items []Demand, cols []Column, minNodes int64, ndims int, e assignEffort) (float64, bool) {
	bound, converged, _ := assignmentRun(items, cols, minNodes, ndims, e)
	return bound, converged
}

// assignmentRun is assignmentLP that also returns the columns column
// generation added (to seed the whole-pod LP's).
func assignmentRun(items []Demand, cols []Column, minNodes int64, ndims int, e assignEffort) (float64, bool, []assignCand) {
	st := newAssignState(items, cols, minNodes, ndims, false)
	if st == nil {
		return 0, false, nil
	}
	st.keep = true
	bound, converged, _ := st.run(e)
	return bound, converged, st.added
}

// assignState is column generation on the assignment LP, kept so that it
// can go on after the demand falls (setDemand): the fill values pods by its
// duals each time the pods left have fallen enough, and most of the master's
// basis and loads stay good.
type assignState struct {
	items    []Demand
	demand   []float64
	minNodes bool
	loads    []*typeLoad
	master   *lp.Cover
	pr       loadLP
	pi       []float64
	cands    []assignCand
	// added are the columns column generation added, in order, when keep
	// is set (assignmentRun's, to seed the whole-pod LP's).
	added []assignCand
	keep  bool
	// whole prices the small types' columns as whole configurations
	// (whole.go); anyWhole is whether some type is small.
	whole, anyWhole bool
	ws              wholeSearch
	wholeSteps      int
	wholeLeft       int
}

// assignCand is a load worth more than its type's price at some duals.
type assignCand struct {
	price float64
	idx   []int32
	val   []float64
	gain  float64
	// small is whether the load is of a small type (see typeLoad.small),
	// typ the type's index among the columns.
	small bool
	typ   int
}

// MaxAssignItems is the most distinct requests column generation takes
// on: its master's basis inverse is dense, so a pivot costs the square of
// them. Beyond, the bound falls back to the ascent and the fill to its
// values (shared workloads have at most 60; 100 random requests take about
// 30 ms to converge, in some 150 rounds).
const MaxAssignItems = 100

// newAssignState sets up the master for items (merged by request) over
// cols, or returns nil when there is nothing to bound, some item fits no
// column, or there are more than MaxAssignItems items.
func newAssignState(items []Demand, cols []Column, minNodes int64, ndims int, whole bool) *assignState {
	m := len(items)
	if m == 0 || len(cols) == 0 || m > MaxAssignItems {
		return nil
	}
	rows := m
	if minNodes > 0 {
		rows++
	}
	st := &assignState{items: items, demand: make([]float64, rows), minNodes: minNodes > 0, pi: make([]float64, rows), whole: whole}
	for i, it := range items {
		st.demand[i] = float64(it.Count)
	}
	if minNodes > 0 {
		st.demand[m] = float64(minNodes)
	}
	st.master = lp.NewCover(st.demand)
	st.loads = make([]*typeLoad, len(cols))
	// One allocation for every type's load, not one each.
	slab := make([]typeLoad, len(cols))
	for t, c := range cols {
		st.loads[t] = &slab[t]
		slab[t].init(items, c, ndims)
		st.anyWhole = st.anyWhole || st.loads[t].small
	}
	// Start with each item alone on the type that houses it cheapest per
	// pod, as many as the type's rows allow (a load of the polytope), so
	// the master is feasible from the first round.
	best := make([]int, m)
	bestK := make([]float64, m)
	for i := range best {
		best[i] = -1
	}
	for t, tl := range st.loads {
		for j, i := range tl.cols {
			k := math.Inf(1)
			for _, r := range tl.rows {
				if r[j] > 0 {
					k = min(k, 1/r[j])
				}
			}
			if whole && tl.small {
				// As many whole pods as fit, counted exactly.
				k = float64(items[i].Req.Times(&tl.alloc, math.MaxInt64))
			}
			if b := best[i]; b < 0 || tl.price/k < cols[b].Price/bestK[i] {
				best[i], bestK[i] = t, k
			}
		}
	}
	for i, t := range best {
		if t < 0 {
			return nil
		}
		st.master.Add(cols[t].Price, []int32{int32(i)}, []float64{bestK[i]}, st.minNodes)
	}
	return st
}

// setDemand changes the items' counts (in items' order; the node count is
// kept) and restores a feasible basis by dual simplex, which keeps the
// duals of the last solve dual feasible.
func (st *assignState) setDemand(counts []int64, pivots int) {
	for i, c := range counts {
		st.demand[i] = float64(c)
	}
	st.master.SetDemand(st.demand)
	st.master.DualSolve(pivots)
}

// price values every type at duals pi: it returns Farley's bound for pi
// and the ratio in it, and fills st.cands with the loads worth more than
// their price.
func (st *assignState) price(pi []float64) (float64, float64) {
	m := len(st.items)
	value := 0.0
	for i, d := range st.demand {
		value += d * pi[i]
	}
	mu := 0.0
	if st.minNodes {
		mu = pi[m]
	}
	ratio := 0.0
	st.cands = st.cands[:0]
	for t, tl := range st.loads {
		// A type whose screen already shows no load worth its price is
		// not solved: the screen's bound serves the ratio.
		if up := tl.screen(pi[:m]); (up+mu)/tl.price <= 1 {
			ratio = max(ratio, (up+mu)/tl.price)
			continue
		}
		if st.whole && tl.small {
			ratio = max(ratio, st.priceWhole(pi[:m], mu, tl))
			continue
		}
		v := st.pr.solve(pi[:m], tl)
		// The load's value bounds V_t(π) only if the simplex reached the
		// optimum; the duals it ends with bound it in any case (weak
		// duality), so an unfinished or inexact solve cannot overstate
		// the bound.
		ratio = max(ratio, (max(v, tl.dualBound(pi[:m]))+mu)/tl.price)
		if gain := (v + mu - tl.price) / tl.price; gain > 1e-9 {
			st.cands = append(st.cands, assignCand{price: tl.price, idx: slices.Clone(tl.idx), val: slices.Clone(tl.val), gain: gain, small: tl.small, typ: t})
		}
	}
	return value / max(ratio, 1), ratio
}

// run generates columns until no load prices out or e is spent. It returns
// the best Farley bound seen, whether the master reached the optimum, and
// the items' values at that bound (duals scaled to feasibility).
func (st *assignState) run(e assignEffort) (float64, bool, []float64) {
	m := len(st.items)
	pi := st.pi
	bound := 0.0
	var values []float64
	converged := false
	for range e.rounds {
		if st.master.Pivots() >= e.total {
			break
		}
		st.master.Solve(min(e.pivots, e.total-st.master.Pivots()))
		st.master.Duals(pi)
		for i := range pi {
			pi[i] = max(pi[i], 0)
		}
		b, ratio := st.price(pi)
		if b > bound || values == nil {
			bound = max(bound, b)
			values = values[:0]
			for i := range m {
				values = append(values, pi[i]/max(ratio, 1))
			}
		}
		if len(st.cands) == 0 {
			// No load prices out at the master's duals: the master is
			// optimal, and so the bound (to rounding).
			converged = ratio <= 1+1e-6
			break
		}
		// The loads that gain most per dollar join first.
		cands := st.cands
		for range min(e.perRound, len(cands)) {
			b := 0
			for j := range cands {
				if cands[j].gain > cands[b].gain {
					b = j
				}
			}
			st.master.Add(cands[b].price, cands[b].idx, cands[b].val, st.minNodes)
			if st.keep {
				st.added = append(st.added, cands[b])
			}
			cands[b].gain = -1
		}
	}
	return bound * (1 - 1e-9), converged, values
}

// loadLP finds the most valuable load of one node of a type:
//
//	max π·a  subject to  the type's rows,  a ≥ 0,
//
// over the items that fit the node whole, by lp.Packing. The rows are
// fixed per type (see newTypeLoad) and few, so each pivot is cheap; the
// optimal duals of the last solve are kept to screen the next.
type loadLP struct {
	simplex lp.Packing
}

// typeLoad is one type's load polytope: the items that fit it whole
// (cols), and its rows, each scaled so its right-hand side is 1.
type typeLoad struct {
	price float64
	cols  []int32
	rows  [][]float64
	// lambda are the optimal duals of the rows at the last solve, nil
	// before the first: for any π, scaling them until they cover every
	// item bounds V_t(π) without solving (weak duality).
	lambda []float64
	// cover[j] is λ·(column j of the rows), lambdaSum Σ λ (the rows'
	// right-hand sides are 1), amax[j] the most of item j any load holds.
	cover     []float64
	lambdaSum float64
	amax      []float64
	// idx and val are the last solve's optimal load.
	idx []int32
	val []float64
	// small is whether a node of the type holds at most wholeMaxPods pods,
	// so that its columns may be priced whole (whole.go); alloc is the
	// type's allocatable, and the first nres rows are its resources'.
	small bool
	alloc resources.Vector
	nres  int
}

// maxRoundingK is the largest k of the rounding rows, and maxLoadRows
// bounds a type's rows.
const (
	maxRoundingK = 4
	maxLoadRows  = 16
)

// newTypeLoad builds the rows of a type's load polytope: one per resource
// the fitting items request, Σ a_i·req_id ≤ alloc_d; then, for cpu and
// memory and k = 1..maxRoundingK, a rounding row Σ a_i·u_k(req_id/alloc_d)
// ≤ 1, where u_k(x) = ⌊(k+1)x⌋/k, or x where (k+1)x is whole, is a
// dual-feasible function (Fekete and Schepers): sizes that fit together
// keep Σ u_k ≤ 1. Whole pods obey the rounding rows; fractional loads need
// not (two thirds of a 1,500m pod beside a whole one on a 1,930m node), so
// they bring the LP closer to what nodes can carry. A rounding row is kept
// only where some item's coefficient exceeds its plain share.
func newTypeLoad(items []Demand, c Column, ndims int) *typeLoad {
	tl := &typeLoad{}
	tl.init(items, c, ndims)
	return tl
}

// init is newTypeLoad on a zero typeLoad of the caller's.
func (tl *typeLoad) init(items []Demand, c Column, ndims int) {
	tl.price, tl.alloc = c.Price, c.Alloc
	var used resources.Vector
	// The items that fit are counted first, so their list is allocated
	// once.
	n := 0
	for _, it := range items {
		if it.Req.Fits(c.Alloc) {
			n++
		}
	}
	if n == 0 {
		return
	}
	tl.cols = make([]int32, 0, n)
	for i, it := range items {
		if it.Req.Fits(c.Alloc) {
			tl.cols = append(tl.cols, int32(i))
			for d := range ndims {
				if it.Req[d] > 0 {
					used[d] = 1
				}
			}
		}
	}
	alloc := c.Alloc
	// The rows share one array, sized for the most rows there can be:
	// one per resource used, and the rounding rows of cpu and memory.
	rows := 0
	for d := range ndims {
		if used[d] != 0 {
			rows++
		}
	}
	for _, d := range []int{resources.CPU, resources.Memory} {
		if used[d] != 0 {
			rows += maxRoundingK
		}
	}
	flat := make([]float64, 0, n*min(rows, maxLoadRows))
	tl.rows = make([][]float64, 0, min(rows, maxLoadRows))
	next := func() []float64 {
		flat = flat[:len(flat)+n]
		return flat[len(flat)-n:]
	}
	for d := range ndims {
		if used[d] == 0 || len(tl.rows) == maxLoadRows {
			continue
		}
		r := next()
		for j, i := range tl.cols {
			r[j] = float64(items[i].Req[d]) / float64(alloc[d])
		}
		tl.rows = append(tl.rows, r)
	}
	tl.nres = len(tl.rows)
	for _, d := range []int{resources.CPU, resources.Memory} {
		if used[d] == 0 {
			continue
		}
		for k := int64(1); k <= maxRoundingK && len(tl.rows) < maxLoadRows; k++ {
			r := next()
			stronger := false
			for j, i := range tl.cols {
				req := items[i].Req[d]
				share := float64(req) / float64(alloc[d])
				if q := (k + 1) * req; q%alloc[d] == 0 {
					r[j] = share
				} else {
					r[j] = float64(q/alloc[d]) / float64(k)
				}
				stronger = stronger || r[j] > share*(1+1e-12)
			}
			if stronger {
				tl.rows = append(tl.rows, r)
			} else {
				flat = flat[:len(flat)-n]
			}
		}
	}
	tl.amax = make([]float64, n)
	most := 0.0
	for j := range tl.amax {
		tl.amax[j] = math.Inf(1)
		for _, r := range tl.rows {
			if r[j] > 0 {
				tl.amax[j] = min(tl.amax[j], 1/r[j])
			}
		}
		most = max(most, tl.amax[j])
	}
	tl.small = most <= wholeMaxPods
}

// screen returns an upper bound on V_t(π) without solving: from the last
// solve's duals and from each row alone, each scaled until it covers every
// valued item (weak duality); +Inf when none can.
func (tl *typeLoad) screen(pi []float64) float64 {
	if tl.lambda == nil {
		// Any one row alone, scaled to cover every valued item, is a
		// dual point too.
		best := math.Inf(1)
		for _, row := range tl.rows {
			s := 0.0
			for j, i := range tl.cols {
				if pi[i] > 0 {
					if row[j] <= 0 {
						s = math.Inf(1)
						break
					}
					s = max(s, pi[i]/row[j])
				}
			}
			best = min(best, s)
		}
		return best
	}
	scale := 0.0
	cover := tl.cover[:len(tl.cols)]
	for j, i := range tl.cols {
		if pi[i] <= 0 {
			continue
		}
		if cover[j] <= 0 {
			return math.Inf(1)
		}
		scale = max(scale, pi[i]/cover[j])
	}
	return scale * tl.lambdaSum
}

// dualBound bounds V_t(π) by the last solve's duals λ: any load a has
// Σ_r λ_r·(row_r·a) ≤ Σ λ, so π·a ≤ Σ λ + Σ_j max(0, π_j − λ·row_j)·a_j,
// and a_j is at most amax_j. At the optimum the second sum is about 0.
func (tl *typeLoad) dualBound(pi []float64) float64 {
	sum := tl.lambdaSum
	for j, i := range tl.cols {
		if d := pi[i] - tl.cover[j]; d > 0 {
			sum += d * tl.amax[j]
		}
	}
	return sum
}

// solve returns V_t(π) = max π·a over tl's polytope, and keeps the optimal
// load and duals in tl.
func (p *loadLP) solve(pi []float64, tl *typeLoad) float64 {
	n, rows := len(tl.cols), len(tl.rows)
	tl.idx, tl.val = tl.idx[:0], tl.val[:0]
	if n == 0 || rows == 0 {
		return 0
	}
	profit := p.simplex.Reset(tl.rows, n)
	for j, i := range tl.cols {
		profit[j] = max(pi[i], 0)
	}
	v := p.simplex.Solve()
	if math.IsInf(v, 1) {
		return v // unbounded: impossible, every pod takes a slot
	}
	tl.keepDuals(&p.simplex)
	for r := range rows {
		if j, x := p.simplex.Basic(r); j < n && x > 1e-12 {
			tl.idx = append(tl.idx, tl.cols[j])
			tl.val = append(tl.val, x)
		}
	}
	return v
}

// keepDuals keeps the rows' optimal duals of the last solve, and what they
// cover of each item, for screen and dualBound.
func (tl *typeLoad) keepDuals(simplex *lp.Packing) {
	n, rows := len(tl.cols), len(tl.rows)
	if cap(tl.lambda) < rows {
		tl.lambda = make([]float64, rows)
	}
	tl.lambda = tl.lambda[:rows]
	tl.lambdaSum = 0
	for r := range rows {
		tl.lambda[r] = simplex.Dual(r)
		tl.lambdaSum += tl.lambda[r]
	}
	if cap(tl.cover) < n {
		tl.cover = make([]float64, n)
	}
	tl.cover = tl.cover[:n]
	clear(tl.cover)
	for r, l := range tl.lambda {
		if l != 0 {
			for j, v := range tl.rows[r] {
				tl.cover[j] += l * v
			}
		}
	}
}
