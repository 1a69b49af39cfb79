package packing

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// pairMaxPods bounds the pods of the two claims pairs re-splits: it
// tries every split of them in two, 2^(k-1) for k pods.
const pairMaxPods = 12

// pairBudget bounds the work of one pairs pass in offerings scanned,
// apart from improveBudget, so neither pass starves the other.
const pairBudget = 100_000

// pairs is the improve pass's last move: for every two claims of a pool,
// zone and capacity types whose pods may move between them (hostMovable),
// it tries every split of their pods in two (or all on one), each side on
// the cheapest offering that holds it, and keeps the cheapest split that
// saves. The moves before it take one claim at a time (merge, evacuate,
// relocate) or re-pack the cheapest claims greedily (regroup), so two
// claims whose pods would fit a cheaper pair of types when exchanged
// stay as the fill opened them; which types the fill opened first
// depends on every type the pool allows, so a wider pool could end
// dearer than a sub-pool of it for that alone. Pods with hostname rules
// take part: a side keeps every hostname anti-affinity (no pod on it
// matches another's term) and hostname spread cap (hostSpread) of its
// pods. Zone rules hold, as the pods stay in their zone.
func (pass *improver) pairs() bool {
	saved := pass.budget
	pass.budget = pairBudget
	defer func() { pass.budget = saved }()
	emptied := pass.emptied
	for _, ns := range pass.claimGroups(func(n *node) (claimGroup, bool) {
		if len(n.pods) > pairMaxPods-1 {
			return claimGroup{}, false
		}
		for _, p := range n.pods {
			if !pass.hostMovable(pass.s.podClass[p], n.pool) {
				return claimGroup{}, false
			}
		}
		return claimGroup{n.pool.idx, n.zone, n.capacityTypes}, true
	}) {
		pass.pairGroup(ns)
	}
	return pass.emptied > emptied
}

// pairGroup is pairs over the claims ns of one group, dearest pairs
// first, until a round over every pair changes nothing or the budget
// runs out.
func (pass *improver) pairGroup(ns []*node) {
	for changed := true; changed; {
		changed = false
		order := slices.Clone(ns)
		slices.SortStableFunc(order, func(a, b *node) int { return cmp.Compare(price(b), price(a)) })
		for i, a := range order {
			for _, b := range order[i+1:] {
				if pass.budget <= 0 || pass.s.ctx.Err() != nil {
					return
				}
				if len(a.pods) == 0 || len(b.pods) == 0 || len(a.pods)+len(b.pods) > pairMaxPods {
					continue
				}
				if pass.resplit(a, b) {
					changed = true
				}
			}
		}
	}
}

// pairSide is one side of a split: the offering it takes and its pods,
// by index in the pair's pods.
type pairSide struct {
	o    offer
	pods uint32
}

// pairPods are the pods of a pair as resplit sees them, by index: their
// classes' requests and type masks, which pods may not share a node
// (conflict) and the hostname spreads that cap how many share one.
type pairPods struct {
	req      []resources.Vector
	masks    []bitset
	conflict []uint32
	caps     []pairCap
}

// pairCap is a hostname spread: at most most of the pods members holds
// may share a node.
type pairCap struct {
	members uint32
	most    int32
}

// newPairPods describes pods for resplit.
func (pass *improver) newPairPods(pool *poolPlan, classes []*class) pairPods {
	s := pass.s
	k := len(classes)
	pp := pairPods{req: make([]resources.Vector, k), masks: make([]bitset, k), conflict: make([]uint32, k)}
	capIdx := map[int]int{}
	for i, c := range classes {
		pp.req[i] = c.req
		pp.masks[i] = s.compat(c, pool).mask
		for _, t := range c.anti {
			if !isHostname(s.groups.list[t.group].key) {
				continue
			}
			for j, d := range classes {
				if j != i && slices.Contains(d.matches, t.group) {
					pp.conflict[i] |= 1 << j
					pp.conflict[j] |= 1 << i
				}
			}
		}
		for _, g := range c.matches {
			skew, ok := s.hostSpread[g]
			if !ok || !isHostname(s.groups.list[g].key) {
				continue
			}
			at, seen := capIdx[g]
			if !seen {
				at = len(pp.caps)
				capIdx[g] = at
				pp.caps = append(pp.caps, pairCap{most: skew})
			}
			pp.caps[at].members |= 1 << i
		}
	}
	return pp
}

// hostOK reports whether the pods of side may share a node under their
// hostname rules, as hostAllows checks one move: no pod matches
// another's hostname anti-affinity term, and no hostname spread counts
// more of them than its cap.
func (pp *pairPods) hostOK(side uint32) bool {
	for i, c := range pp.conflict {
		if side&(1<<i) != 0 && c&side != 0 {
			return false
		}
	}
	for _, c := range pp.caps {
		if int32(bits.OnesCount32(side&c.members)) > c.most {
			return false
		}
	}
	return true
}

// resplit re-splits the pods of claims a and b (see pairs) and reports
// whether it found a split that saves.
func (pass *improver) resplit(a, b *node) bool {
	s := pass.s
	pods := append(slices.Clone(a.pods), b.pods...)
	k := len(pods)
	classes := make([]*class, k)
	for i, p := range pods {
		classes[i] = s.podClass[p]
	}
	pp := pass.newPairPods(a.pool, classes)
	base := a.pool.typeMask(nil)
	cur := price(a) + price(b)
	best := cur - 1e-9
	var bestA, bestB pairSide
	found := false
	last := uint32(1) << (k - 1)
	// Side A always holds the last pod, so each split is tried once; side
	// B may be empty.
	for m := range last {
		if pass.budget <= 0 {
			break
		}
		sideA := m | last
		sideB := (last - 1) &^ m
		if !pp.hostOK(sideA) || !pp.hostOK(sideB) {
			continue
		}
		oa, ok := pass.sideOffer(a, &pp, base, sideA, best)
		if !ok {
			continue
		}
		total := oa.price
		var ob offer
		if sideB != 0 {
			if ob, ok = pass.sideOffer(a, &pp, base, sideB, best-oa.price); !ok {
				continue
			}
			total += ob.price
		}
		if total < best {
			best, found = total, true
			bestA, bestB = pairSide{oa, sideA}, pairSide{ob, sideB}
		}
	}
	if !found {
		return false
	}
	// The side that keeps more of a's pods stays on a.
	ofA := uint32(1)<<len(a.pods) - 1
	if bestB.pods != 0 && bits.OnesCount32(bestB.pods&ofA) > bits.OnesCount32(bestA.pods&ofA) {
		bestA, bestB = bestB, bestA
	}
	for i, p := range pods {
		to := b
		if bestA.pods&(1<<i) != 0 {
			to = a
		}
		if from := pass.podNode(p, a, b); to != from {
			pass.move(p, from, to)
		}
	}
	pass.pruneClasses(a)
	pass.pruneClasses(b)
	pass.retype(a, bestA.o)
	if bestB.pods == 0 {
		pass.emptied++
	} else {
		pass.retype(b, bestB.o)
	}
	return true
}

// podNode is which of a and b holds p now.
func (pass *improver) podNode(p *state.Pod, a, b *node) *node {
	if slices.Contains(a.pods, p) {
		return a
	}
	return b
}

// pruneClasses drops from n's classes those none of its pods has left
// (move only adds), so its type mask is its own pods' again.
func (pass *improver) pruneClasses(n *node) {
	n.classes = slices.DeleteFunc(n.classes, func(c *class) bool {
		return !slices.ContainsFunc(n.pods, func(p *state.Pod) bool { return pass.s.podClass[p] == c })
	})
	delete(pass.masks, n)
}

// sideOffer is the cheapest offering in n's pool and zone, among n's
// capacity types and the types of base every pod of side allows, priced
// below hi, that holds the pods of side.
func (pass *improver) sideOffer(n *node, pp *pairPods, base bitset, side uint32, hi float64) (offer, bool) {
	var used resources.Vector
	mask := append(pass.maskBuf[:0], base...)
	for i, m := range pp.masks {
		if side&(1<<i) != 0 {
			used = used.Add(pp.req[i])
			mask = mask.andInto(mask, m)
		}
	}
	pass.maskBuf = mask
	return pass.cheapest(n, mask, mask, n.capacityTypes, used, 0, hi)
}
