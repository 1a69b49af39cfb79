package consolidation

import (
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
)

// settled is a set of nodes to remove after the search's step 4 (see
// consolidation): the commands it splits into that the safety rules
// accept, the nodes they remove and its simulation without the others,
// what the rules rejected and why, and the nodes left over when the
// commands kept changing.
type settled struct {
	set      []*nodeInfo
	r        *packing.Result
	cmds     []*command
	rejected []rejection
	// dropped are nodes left out because their pods no longer fitted
	// (a bound hit between simulations), leftover those of a set that had
	// not settled within its rounds (see settleRounds).
	dropped, leftover []*nodeInfo
}

// rejection is a node whose command a safety rule refused.
type rejection struct {
	n   *nodeInfo
	why string
}

// settleRounds is how often settle may simulate a set again without the
// commands the rules refused whatever the caps; up to maxSettleRounds
// while the caps allow (every round refuses some node, so a set of n
// nodes settles within n rounds). On DaemonSet-heavy clusters each round
// often refuses one or two nodes whose pods the packer put on a new node
// of their own type, another each time, and a set giving up after four
// rounds lost its whole gain.
const (
	settleRounds    = 4
	maxSettleRounds = 16
)

// settle splits set (simulated as r; nil to simulate) into commands,
// checks each against the safety rules (validate) and simulates the set
// again without the nodes of the commands refused, until every command
// is accepted: settleRounds times, and up to maxSettleRounds while the
// prefix search's share of the caps allows. The search compares sets by
// what they gain once settled, so a set does not win on a simulation
// whose commands would not all be made. It changes nothing in the
// planner but its simulation count; when more simulations are needed
// and alone is false (the set competes with another), it stops once the
// search's budget is spent and reports ok false. The set chosen is
// settled alone, as the search always did.
func (p *planner) settle(set []*nodeInfo, r *packing.Result, alone bool) (s settled, ok bool, err error) {
	s.set = set
	for round := range maxSettleRounds {
		if len(s.set) == 0 {
			return s, true, nil
		}
		if r == nil {
			pods := 0
			for _, n := range s.set {
				pods += len(n.pods)
			}
			if round >= settleRounds && !p.prefixBudgetLeft(pods) {
				break
			}
			if !alone && !p.prefixBudgetLeft(pods) {
				return s, false, nil
			}
			if r, _, err = p.simulate(s.set); err != nil {
				return s, false, err
			}
		}
		if len(r.Unschedulable) > 0 {
			// The search only keeps feasible sets; a bound hit in
			// between leaves the last node out.
			last := s.set[len(s.set)-1]
			s.dropped = append(s.dropped, last)
			s.set, r = s.set[:len(s.set)-1], nil
			continue
		}
		cmds := p.split(s.set, r, ReasonUnderutilized)
		refused := map[*nodeInfo]bool{}
		for _, c := range cmds {
			if why := p.validate(c); why != "" {
				for _, n := range c.nodes {
					refused[n] = true
					s.rejected = append(s.rejected, rejection{n: n, why: why})
				}
			}
		}
		if len(refused) == 0 {
			s.r, s.cmds = r, cmds
			return s, true, nil
		}
		s.set, r = slices.DeleteFunc(slices.Clone(s.set), func(n *nodeInfo) bool { return refused[n] }), nil
	}
	s.leftover, s.set = s.set, nil
	return s, true, nil
}

// gain is what the settled set gains (planner.gain); 0 when it removes
// nothing.
func (s settled) gain(p *planner) float64 {
	if len(s.set) == 0 || s.r == nil {
		return 0
	}
	return p.gain(s.set, s.r)
}
