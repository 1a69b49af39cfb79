package consolidation

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// fullerSet offers the consolidation search one more set: the set chosen
// (simulated as r) less some of the nodes its merges empty into new claims,
// those that, filled up, cost no more per unit of value than the claims
// their merge launches, so they can stay and take pods in place of those
// claims.
//
// At a few thousand nodes the packer joins hundreds of nodes into one
// merge through the small replacements they share (on the 2,024-node
// bench case one merge of 401 nodes and 1,700 pods, 117 of them
// c6a.4xlarge half full, their pods moved onto c6a.48xlarge claims of the
// same price per vCPU): thriftySet takes or leaves such a merge whole.
// Here a merged node can stay when its price per unit of value once full
// (its pods' value and its free room's, planner.values) is at most what
// the new claims of its merge cost per unit of value placed on them;
// fullest first (most of its price already paying for pods, fewest
// moves lost on room), until their free room covers the value r put on new
// claims less their own pods'. The packer then places the set afresh, the
// kept nodes first. It returns the set and its simulation (nil when no
// node may stay); the search takes it when it gains more, settled
// (chooseSet).
// One simulation.
func (p *planner) fullerSet(chosen []*nodeInfo, r *packing.Result) ([]*nodeInfo, *packing.Result, error) {
	if r == nil || len(r.Unschedulable) > 0 {
		return nil, nil, nil
	}
	cands, needed := p.fullerCandidates(chosen, r)
	keep := map[*nodeInfo]bool{}
	room := 0.0
	for _, c := range cands {
		if room >= needed {
			break
		}
		keep[c.n] = true
		room += c.free
		needed -= c.n.value
	}
	if len(keep) == 0 {
		return nil, nil, nil
	}
	set := slices.DeleteFunc(slices.Clone(chosen), func(n *nodeInfo) bool { return keep[n] })
	pods := 0
	for _, n := range set {
		pods += len(n.pods)
	}
	if len(set) == 0 || !p.prefixBudgetLeft(pods) {
		return nil, nil, nil
	}
	alt, _, err := p.simulate(set)
	if err != nil || len(alt.Unschedulable) > 0 {
		return nil, nil, err
	}
	return set, alt, nil
}

// fullerCandidate is a node of a merge that may stay (fullerSet): the
// value its free room holds and the share of its value its pods use.
type fullerCandidate struct {
	n          *nodeInfo
	free, fill float64
}

// fullerCandidates lists the merged nodes of chosen (simulated as r) that
// may stay, fullest first, and the value r put on new claims.
func (p *planner) fullerCandidates(chosen []*nodeInfo, r *packing.Result) ([]fullerCandidate, float64) {
	idx := p.rooms()
	at := make(map[string]int, len(idx.names))
	for i, name := range idx.names {
		at[name] = i
	}
	var cands []fullerCandidate
	onClaims := 0.0
	for _, c := range p.split(chosen, r, ReasonUnderutilized) {
		if len(c.claims) == 0 {
			continue
		}
		v := p.claimValue(c.nodes, r)
		if v <= 0 {
			continue
		}
		onClaims += v
		perValue := c.CostAfterPerHour / v
		for _, n := range c.nodes {
			i, ok := at[n.node.Name]
			if !ok || len(n.pods) == 0 || p.avoid[n.node.Name] {
				continue
			}
			free := p.values.room(idx.room[i], n.pool)
			if full := n.value + free; full > 0 && n.price/full <= perValue*(1+1e-9) {
				cands = append(cands, fullerCandidate{n: n, free: free, fill: n.value / full})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b fullerCandidate) int {
		return cmp.Or(cmp.Compare(b.fill, a.fill), strings.Compare(a.n.node.Name, b.n.node.Name))
	})
	return cands, onClaims
}

// room returns the value free room holds on a node of pool: the larger of
// its cpu and its memory at the pool's price per unit, as pod values are
// (0 without a pod slot).
func (v *valuer) room(f freeRoom, pool *state.Pool) float64 {
	u := v.global
	if pool != nil {
		if pu, ok := v.perPool[pool.Name]; ok {
			u = pu
		}
	}
	if f.pods <= 0 {
		return 0
	}
	var out float64
	if !math.IsInf(u.cpu, 1) {
		out = max(out, float64(f.cpu)*u.cpu)
	}
	if !math.IsInf(u.mem, 1) {
		out = max(out, float64(f.mem)*u.mem)
	}
	return out
}
