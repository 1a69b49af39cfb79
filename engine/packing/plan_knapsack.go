package packing

import (
	"cmp"
	"math"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// The pricing problem of a plan's column generation: the configuration of
// one type worth most at the master's duals, a bounded knapsack over the
// items, solved by depth-first branch and bound with surrogate bounds.

// rootRatio bounds the value of any configuration of type j at duals pi,
// over the type's price, by knapsack's surrogate bounds for an empty node
// (see prepare for the weights it reads). A type is worth searching when
// the ratio is above 1+1e-9; once a weighting brings it to that or below,
// the others (which could only lower it) are skipped and that ratio is
// returned.
func (plan *planner) rootRatio(pi []float64, j int) float64 {
	plan.prepare()
	nw, m := len(plan.weights()), len(plan.items)
	ub, price := math.Inf(1), plan.types[j].price
	for q := range nw {
		xs := plan.rootX[(j*nw+q)*m : (j*nw+q+1)*m]
		pi := pi[:len(xs)]
		// best, and below lim·x a quotient that leaves it as it is: then
		// pi[i] < best·x exactly (lim is best less a margin far wider
		// than two roundings), so pi[i]/x < best, and its rounding,
		// monotone, is at most best. The product is cheaper than the
		// quotient, which most items then skip.
		best, lim := 0.0, 0.0
		for i, x := range xs {
			if pi[i] <= 1e-12 || math.IsNaN(x) {
				continue
			}
			if x <= 0 {
				best = math.Inf(1)
				break
			}
			if pi[i] < lim*x {
				continue
			}
			if r := pi[i] / x; r > best {
				best, lim = r, r*(1-1e-12)
			}
		}
		if ub = min(ub, plan.rootC[j*nw+q]*best); ub/price <= 1+1e-9 {
			break
		}
	}
	return ub / price
}

// prepare computes, once per plan (its types and items are fixed), what rootBound and knapsackOrder read
// in every round whatever the duals: for each type j, weighting q and item
// i, the item's weight on an empty node (rootX, NaN where the item does
// not fit), the weighting's total over the type's resources (rootC), and
// the item's largest share of the type's resources (shares, clique
// slots aside: see knapsackOrder), and the type's
// surrogate coefficients (coefs, see surrogate).
func (plan *planner) prepare() {
	if plan.shares != nil {
		return
	}
	plan.reqDims = 0
	for _, it := range plan.items {
		for d := range resources.MaxDims {
			if it.req[d] != 0 {
				plan.reqDims = max(plan.reqDims, d+1)
			}
		}
	}
	ws := plan.weights()
	nw, m := len(ws), len(plan.items)
	plan.coefs = make([][]surrogateTerm, len(plan.types))
	terms := make([]surrogateTerm, len(plan.types)*nw)
	plan.rootX = make([]float64, len(plan.types)*nw*m)
	plan.rootC = make([]float64, len(plan.types)*nw)
	plan.shares = make([]float64, len(plan.types)*m)
	for j := range plan.types {
		t := &plan.types[j]
		for i, it := range plan.items {
			plan.shares[j*m+i] = shareOf(plan.resourcesOnly(it.req), t.alloc)
		}
		plan.coefs[j] = terms[j*nw : (j+1)*nw]
		for q, w := range ws {
			tm := &plan.coefs[j][q]
			for d, wd := range w {
				if t.alloc[d] > 0 {
					plan.rootC[j*nw+q] += wd
				}
				if wd > 0 && t.alloc[d] > 0 {
					tm.add(d, wd/float64(t.alloc[d]))
				}
			}
			for i, it := range plan.items {
				x := math.NaN()
				if it.req.Fits(t.alloc) {
					x = 0
					for d, wd := range w {
						if wd > 0 && t.alloc[d] > 0 {
							x += wd * float64(it.req[d]) / float64(t.alloc[d])
						}
					}
				}
				plan.rootX[(j*nw+q)*m+i] = x
			}
		}
	}
}

// knapsack returns the configuration of type j worth most at duals pi,
// and its worth, by depth-first branch and bound over the items in order
// of worth per share of the node, within steps (the best found so far
// when they run out). Only configurations worth more than the type's
// price count; it returns 0 and no configuration when none is.
func (plan *planner) knapsack(pi []float64, j int, steps int) (float64, planConfig) {
	t := &plan.types[j]
	order := plan.knapsackOrder(pi, j)
	if len(order) == 0 {
		return 0, planConfig{}
	}
	ks := &knapsackSearch{pl: plan, pi: pi, order: order, surrogate: plan.newSurrogate(pi, j, order), bestV: t.price}
	// The search prunes every branch that cannot beat the price.
	if ks.surrogate.bound(0, &t.alloc) <= ks.bestV*(1+1e-9) {
		return 0, planConfig{}
	}
	// Beyond the surrogates, the relaxation's own bound: a search it
	// proves empty would spend its steps (all of them, on most large
	// types) to find nothing.
	if !plan.noEmptyProof && plan.provenEmpty(pi, j, order) {
		return 0, planConfig{}
	}
	if cap(plan.cur) < len(plan.items) {
		plan.cur = make([]int64, len(plan.items))
		plan.best = make([]int64, len(plan.items))
		plan.rooms = make([]resources.Vector, len(plan.items)+1)
	}
	ks.cur, ks.best, ks.rooms = plan.cur[:len(plan.items)], plan.best[:len(plan.items)], plan.rooms[:len(order)+1]
	clear(ks.cur)
	clear(ks.best)
	ks.rooms[0] = t.alloc
	ks.left = steps
	ks.search(0, 0)
	plan.stepsLeft -= steps - ks.left
	if ks.bestV <= t.price {
		return 0, planConfig{}
	}
	// Counted first, so the configuration's lists are allocated once.
	n := 0
	for _, i := range order {
		if ks.best[i] > 0 {
			n++
		}
	}
	c := planConfig{typ: j, idx: make([]int32, 0, n), cnt: make([]int64, 0, n)}
	for _, i := range order {
		if ks.best[i] > 0 {
			c.idx = append(c.idx, i)
			c.cnt = append(c.cnt, ks.best[i])
		}
	}
	return ks.bestV, c
}

// knapsackOrder lists the items worth something at pi that fit type j, by
// worth per share of the node's resources, best first, in the planner's
// scratch. A clique's slot is not a resource the items compete for (only
// its own members take it, one per node, which Times enforces): counted
// as a share, it made every member take the whole node (share 1) and
// sorted the members, the pods a plan most needs to spread over nodes,
// last. The search's first descent (its greedy answer, all that a big
// type's few steps explore) then filled the node before reaching them:
// on w3-spot no configuration of the nodes that suit its five cliques
// best was found worth its price, though one was worth 1.35 times it.
func (plan *planner) knapsackOrder(pi []float64, j int) []int32 {
	plan.prepare()
	t, m := &plan.types[j], len(plan.items)
	shares := plan.shares[j*m : (j+1)*m]
	order := plan.order[:0]
	if cap(plan.worth) < m {
		plan.worth = make([]float64, m)
	}
	// Each item's worth per share, computed once rather than at each
	// comparison (the same quotient: the order is the same).
	worth := plan.worth[:m]
	for i, it := range plan.items {
		if pi[i] > 1e-12 && it.req.Fits(t.alloc) {
			order = append(order, int32(i))
			worth[i] = pi[i] / shares[i]
		}
	}
	plan.order = order
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(worth[b], worth[a]) })
	return order
}

// surrogate bounds what the items from order[k] on can add to a node of
// one type: for a weighting w of the resources (each amount a share of
// the node's), the pods placed from room weigh at most w·(room/alloc), so
// the rest of the value is at most that times the best value per weight
// among order[k:] (ratio[k*nw+q]). coef[q] are weighting q's
// coefficients per unit of each resource, the weight divided by the
// node's amount.
type surrogate struct {
	coef  []surrogateTerm
	ratio []float64
	nw    int
}

// surrogateTerm is a weighting's coefficients: c1 per unit of resource
// d1 and c2 of d2. A weighting weighs at most two resources (see
// weights); one that weighs one has c2 zero, and its weight of a vector,
// c1·v[d1] + 0, is the same number as c1·v[d1] alone. The search
// computes a weighting's weight at every step: two fixed terms cost less
// than a loop over a list of them.
type surrogateTerm struct {
	d1, d2 int
	c1, c2 float64
	n      int
}

// add adds coefficient c of resource d to the weighting.
func (tm *surrogateTerm) add(d int, c float64) {
	switch tm.n {
	case 0:
		tm.d1, tm.c1, tm.d2 = d, c, d
	case 1:
		tm.d2, tm.c2 = d, c
	default:
		panic("packing: a surrogate weighting weighs more than two resources")
	}
	tm.n++
}

// weigh is the weighting's weight of v.
func (tm *surrogateTerm) weigh(v *resources.Vector) float64 {
	return tm.c1*float64(v[tm.d1]) + tm.c2*float64(v[tm.d2])
}

func (plan *planner) newSurrogate(pi []float64, j int, order []int32) surrogate {
	plan.prepare()
	coef := plan.coefs[j]
	nw, n := len(coef), len(order)
	need := (n + 1) * nw
	if cap(plan.ratios) < need {
		plan.ratios = make([]float64, need)
	}
	sg := surrogate{coef: coef, ratio: plan.ratios[:need], nw: nw}
	clear(sg.ratio[n*nw:])
	for k := n - 1; k >= 0; k-- {
		it := &plan.items[order[k]]
		p := pi[order[k]]
		for q := range nw {
			prev := sg.ratio[(k+1)*nw+q]
			x := sg.coef[q].weigh(&it.req)
			// As in rootRatio: below prev less a margin times x, the
			// quotient is below prev, rounded or not, and the maximum is
			// prev without dividing.
			if x > 0 && p < prev*(1-1e-12)*x {
				sg.ratio[k*nw+q] = prev
				continue
			}
			r := math.Inf(1)
			if x > 0 {
				r = p / x
			}
			sg.ratio[k*nw+q] = max(prev, r)
		}
	}
	return sg
}

// bound is the most the items from order[k] on can add to a node with
// room left.
func (sg *surrogate) bound(k int, room *resources.Vector) float64 {
	ub := math.Inf(1)
	rk := sg.ratio[k*sg.nw : k*sg.nw+sg.nw]
	for q := range sg.coef {
		if math.IsInf(rk[q], 1) {
			continue
		}
		ub = min(ub, sg.coef[q].weigh(room)*rk[q])
	}
	return ub
}

// prunes reports whether v plus bound(k, room) is at most limit: whether
// some weighting's bound alone brings v to limit or below (adding v to
// each and comparing is the same test as adding it to their minimum,
// float addition being monotone), without weighing the others once one
// does.
func (sg *surrogate) prunes(k int, room *resources.Vector, v, limit float64) bool {
	rk := sg.ratio[k*sg.nw : k*sg.nw+sg.nw]
	for q := range sg.coef {
		if !math.IsInf(rk[q], 1) && v+sg.coef[q].weigh(room)*rk[q] <= limit {
			return true
		}
	}
	return false
}

// knapsackSearch is one knapsack's depth-first branch and bound: the
// counts of the branch (cur) and of the best configuration found (best,
// worth bestV), and the steps left.
type knapsackSearch struct {
	pl        *planner
	pi        []float64
	order     []int32
	surrogate surrogate
	cur, best []int64
	// rooms[k] is the room left at depth k of the branch.
	rooms []resources.Vector
	bestV float64
	left  int
}

// search tries every count of item order[k] on a node with room left
// (rooms[k]), most first, the branch so far worth v.
func (ks *knapsackSearch) search(k int, v float64) {
	ks.left--
	if v > ks.bestV+1e-12 {
		ks.bestV = v
		copy(ks.best, ks.cur)
	}
	if k == len(ks.order) || ks.left <= 0 {
		return
	}
	room := &ks.rooms[k]
	if ks.surrogate.prunes(k, room, v, ks.bestV*(1+1e-9)) {
		return
	}
	i := ks.order[k]
	it := &ks.pl.items[i]
	// The child's room, one copy of the item more at each smaller count.
	// No item requests anything beyond the first reqDims dimensions, so
	// the room changes only in those (the same numbers as Vector's
	// SubTimes and AddTimes, which visit all MaxDims).
	r := &ks.rooms[k+1]
	x := it.req.Times(room, ks.pl.cap(i))
	*r = *room
	rs := r[:ks.pl.reqDims]
	req := it.req[:len(rs)]
	for d := range rs {
		rs[d] -= req[d] * x
	}
	for ; x >= 0 && ks.left > 0; x-- {
		ks.cur[i] = x
		ks.search(k+1, v+float64(x)*ks.pi[i])
		for d := range rs {
			rs[d] += req[d]
		}
	}
	ks.cur[i] = 0
}

// weights are the resource weightings of knapsack's surrogate bounds:
// each resource alone, and cpu and memory mixed.
func (plan *planner) weights() [][resources.MaxDims]float64 {
	if plan.weightCache != nil {
		return plan.weightCache
	}
	for d := range plan.ndims {
		var w [resources.MaxDims]float64
		w[d] = 1
		plan.weightCache = append(plan.weightCache, w)
	}
	for _, l := range []float64{0.25, 0.5, 0.75} {
		var w [resources.MaxDims]float64
		w[resources.CPU], w[resources.Memory] = l, 1-l
		plan.weightCache = append(plan.weightCache, w)
	}
	return plan.weightCache
}
