package consolidation

import (
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
)

// prefixEval is one simulation of removing the first k candidates.
type prefixEval struct {
	k        int
	feasible bool
	// gain is the saving less what the removed nodes ask (planner.ask).
	gain, saving float64
	// onClaims is the value of the pods packing put on new claims, and
	// claimCost what those claims cost.
	onClaims, claimCost float64
	// r is the packing result, kept for the prefix chosen.
	r *packing.Result
}

// choosePrefix decides how many of the ranked, admitted candidates to
// remove together (see consolidation): every prefix of up to eight
// candidates is simulated; beyond, a cost model picks the first size, one
// simulation calibrates it, and a step search refines it.
func (p *planner) choosePrefix(list []*nodeInfo) (int, *packing.Result, error) {
	if len(list) == 0 {
		return 0, nil, nil
	}
	ps := p.newPrefixSearch(list)
	if len(list) <= 8 {
		for k := 1; k <= len(list); k++ {
			if _, _, err := ps.eval(k); err != nil {
				return 0, nil, err
			}
		}
		best := ps.best()
		return best.k, best.r, nil
	}
	k0, ok, err := ps.calibrate()
	if err != nil || !ok {
		return 0, nil, err
	}
	cur := ps.best()
	if cur.k == 0 {
		cur = ps.evals[k0]
	}
	if err := ps.stepSearch(cur); err != nil {
		return 0, nil, err
	}
	best := ps.best()
	return best.k, best.r, nil
}

// rho0 is the model's first guess of the cluster's efficiency: a node
// full at it holds price/rho0 of value.
const rho0 = 1.1

// prefixSearch is choosePrefix's state: the ranked candidates; per prefix
// size k, what removing list[:k] saves before packing (price, less what
// each node asks: its pool's minSavingsPercent and minSavingsPerPod), what
// those nodes ask (ask), the largest minSavingsPerHour of their pools
// (perHour), the value and the number of its
// pods; the room the model counts on the other nodes (roomOthers) and on
// list[k:] (roomAfter); the model's parameters; and the simulations made.
type prefixSearch struct {
	p          *planner
	list       []*nodeInfo
	price      []float64
	ask        []float64
	perHour    []float64
	value      []float64
	pods       []int
	roomOthers float64
	roomAfter  []float64
	// rho is what a unit of value costs on new claims, eta the share of
	// the room elsewhere the evicted pods really find.
	rho, eta float64
	evals    map[int]prefixEval
}

func (p *planner) newPrefixSearch(list []*nodeInfo) *prefixSearch {
	n := len(list)
	ps := &prefixSearch{
		p: p, list: list,
		price: make([]float64, n+1), ask: make([]float64, n+1), perHour: make([]float64, n+1), value: make([]float64, n+1), pods: make([]int, n+1), roomAfter: make([]float64, n+1),
		rho: rho0, eta: 0.8, evals: map[int]prefixEval{},
	}
	for i, c := range list {
		ask := p.ask(c)
		ps.ask[i+1] = ps.ask[i] + ask
		ps.price[i+1] = ps.price[i] + c.price - ask
		ps.perHour[i+1] = max(ps.perHour[i], p.savingsOf(c.pool).perHour)
		ps.value[i+1] = ps.value[i] + c.value
		ps.pods[i+1] = ps.pods[i] + len(c.pods)
	}
	// Room: what the other nodes could still hold, in value.
	inList := map[string]bool{}
	for _, c := range list {
		inList[c.node.Name] = true
	}
	for _, ni := range p.info {
		if !inList[ni.node.Name] && !p.removed[ni.node.Name] && !p.avoid[ni.node.Name] && !ni.node.MarkedForDeletion && !ni.node.Unschedulable {
			ps.roomOthers += max(0, ni.price/rho0-ni.value)
		}
	}
	for i := n - 1; i >= 0; i-- {
		ps.roomAfter[i] = ps.roomAfter[i+1] + max(0, list[i].price/rho0-list[i].value)
	}
	return ps
}

// estimate is the prefix size the model expects to gain most: its price
// less what the pods that do not fit the room elsewhere cost on new
// claims.
func (ps *prefixSearch) estimate() int {
	best, bestK := 0.0, 0
	for k := 1; k < len(ps.price); k++ {
		g := ps.price[k] - ps.rho*max(0, ps.value[k]-ps.eta*(ps.roomOthers+ps.roomAfter[k]))
		if g > best+1e-12 {
			best, bestK = g, k
		}
	}
	return bestK
}

// eval simulates removing list[:k], once per k; ok is false when k is out
// of range or the simulation budget does not allow it.
func (ps *prefixSearch) eval(k int) (prefixEval, bool, error) {
	if e, ok := ps.evals[k]; ok {
		return e, true, nil
	}
	p := ps.p
	if k <= 0 || k > len(ps.list) || !p.prefixBudgetLeft(ps.pods[k]) {
		return prefixEval{}, false, nil
	}
	r, _, err := p.simulate(ps.list[:k])
	if err != nil {
		return prefixEval{}, false, err
	}
	e := prefixEval{k: k, feasible: len(r.Unschedulable) == 0, r: r}
	if e.feasible {
		removed := 0.0
		for _, c := range ps.list[:k] {
			removed += c.price
		}
		e.saving = removed - r.CostPerHour
		e.gain = e.saving - ps.ask[k]
		e.claimCost = r.CostPerHour
		e.onClaims = p.claimValue(ps.list[:k], r)
	}
	ps.evals[k] = e
	return e, true, nil
}

// better reports whether a is a better prefix than b.
func better(a, b prefixEval) bool {
	if a.feasible != b.feasible {
		return a.feasible
	}
	return a.gain > b.gain+1e-9
}

// best is the best simulated prefix worth taking (k 0 when none is).
func (ps *prefixSearch) best() prefixEval {
	var best prefixEval
	for _, k := range slices.Sorted(mapKeys(ps.evals)) {
		if e := ps.evals[k]; e.feasible && e.gain > 0 && e.saving >= ps.perHour[k] && (best.k == 0 || better(e, best)) {
			best = e
		}
	}
	return best
}

// calibrate simulates the model's size k0, fits the model to what the
// packer did with it (what a unit of value costs on new claims, and how
// much of the room elsewhere the pods found), and simulates the size the
// fitted model picks if it differs. ok is false when k0 could not be
// simulated.
func (ps *prefixSearch) calibrate() (int, bool, error) {
	k0 := max(ps.estimate(), 1)
	e0, ok, err := ps.eval(k0)
	if err != nil || !ok {
		return k0, false, err
	}
	if e0.feasible && e0.onClaims > 0 {
		ps.rho = max(e0.claimCost/e0.onClaims, 0.5)
		if room := ps.roomOthers + ps.roomAfter[k0]; room > 0 {
			ps.eta = min(max((ps.value[k0]-e0.onClaims)/room, 0.05), 2)
		}
		if k1 := max(ps.estimate(), 1); k1 != k0 {
			if _, _, err := ps.eval(k1); err != nil {
				return k0, false, err
			}
		}
	}
	return k0, true, nil
}

// stepSearch moves from cur to a better neighbouring prefix size while
// one is: steps double while moving the same way (the model under- or
// overshoots by a lot when the room elsewhere is far from its guess),
// halve when neither neighbour is better, and stop at 3% of the prefix:
// finer is the local search's job.
func (ps *prefixSearch) stepSearch(cur prefixEval) error {
	step, finest, dir := max(cur.k/8, 1), max(cur.k/32, 1), 0
	for ps.p.prefixBudgetLeft(0) {
		moved := false
		for _, d := range []int{1, -1} {
			if dir != 0 && d != dir {
				continue
			}
			e, ok, err := ps.eval(cur.k + d*step)
			if err != nil {
				return err
			}
			if ok && better(e, cur) {
				cur, moved = e, true
				if dir == d {
					step *= 2
				}
				dir = d
				break
			}
		}
		if moved {
			continue
		}
		if dir != 0 {
			dir = 0 // try both ways at this step before shrinking
			continue
		}
		if step <= finest {
			break
		}
		step = max(step/2, finest)
	}
	return nil
}
