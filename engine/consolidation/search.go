package consolidation

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
)

// consolidation removes or replaces underutilized nodes of pools with
// WhenEmptyOrUnderutilized, searching the whole cluster at once:
//
//  1. Rank every candidate by the value of its pods per dollar of node
//     (least first: the most money back per pod evicted), lower-priority
//     pods and fewer pods first on ties.
//  2. Admit candidates in that order while the pools' budgets allow and
//     no PDB selecting their pods allows 0 disruptions (see pdbs).
//  3. Choose how many of the admitted to remove together: a prefix whose
//     pods engine/packing places on the remaining nodes first and on new,
//     cheaper claims after, maximising the saving less MinSavingsPercent
//     of the removed price (each node must pay for its disruption). A
//     cost model picks the first prefix size; packing results calibrate
//     it and a bounded step search refines it. Then thriftySet offers
//     another set, the prefix's merges and the deletions most saving per
//     pod evicted whose pods fit in the free room left (one more
//     simulation), and fullerSet the prefix less the fullest of its
//     merged nodes that cost no more per unit of value than their
//     merge's new claims (one more); the set that gains most wins.
//  4. Split each set into commands (nodes sharing a new claim are one
//     merge), check each against the safety rules, and simulate it again
//     without any it rejects (settle); the sets are compared as settled.
//  5. Local search: try each remaining candidate alone against the
//     cluster as the chosen commands leave it (delete, or replace with a
//     strictly cheaper node), within MaxEvaluations and MaxWork.
type consolidation struct{}

func (consolidation) reason() Reason { return ReasonUnderutilized }

func (consolidation) run(p *planner) error {
	list, rest, err := p.candidates()
	if err != nil {
		return err
	}
	chosen, others, err := p.chooseSet(list)
	if err != nil {
		return err
	}
	for _, n := range others {
		p.release(n)
	}
	for _, n := range chosen.dropped {
		p.release(n)
	}
	for _, rj := range chosen.rejected {
		p.keep(rj.n.node.Name, rj.why)
		p.release(rj.n)
	}
	for _, n := range chosen.leftover {
		p.release(n)
		p.keep(n.node.Name, "no cheaper placement: the chosen set kept changing (search bound reached)")
	}
	if len(chosen.cmds) > 0 {
		if err := p.commit(chosen.cmds); err != nil {
			return err
		}
	}
	return p.localSearch(append(others, rest...))
}

// candidates lists the nodes the consolidation search may remove, ranked
// (step 1), those the pools' budgets and PDBs admit now (list, their
// budget reserved) and those they do not (rest); it records why every
// other node stays.
func (p *planner) candidates() (list, rest []*nodeInfo, err error) {
	var cands []*nodeInfo
	for _, n := range p.nodes() {
		if why := managed(n); why != "" {
			p.keep(n.node.Name, why)
			continue
		}
		if len(n.pods) == 0 {
			continue // emptiness decided
		}
		if n.pool.Static() {
			p.keep(n.node.Name, staticKept(n.pool))
			continue
		}
		if n.pool.Disruption.ConsolidationPolicy == string(v1.ConsolidationPolicyWhenEmpty) {
			p.keep(n.node.Name, fmt.Sprintf("nodepool %s consolidates only empty nodes (WhenEmpty)", n.pool.Name))
			continue
		}
		if why := waiting(n, p.now); why != "" {
			p.keep(n.node.Name, why)
			continue
		}
		if why := p.balancedHopeless(n); why != "" {
			p.keep(n.node.Name, why+" even deleting it")
			continue
		}
		if why := cmp.Or(voluntaryBlocker(n, p.now), nodeDoNotConsolidate(n)); why != "" {
			p.keep(n.node.Name, why)
			continue
		}
		cands = append(cands, n)
	}
	slices.SortStableFunc(cands, func(a, b *nodeInfo) int {
		return cmp.Or(leadFirst(p.lead, a, b), cmp.Compare(efficiency(a), efficiency(b)), cmp.Compare(a.maxPriority, b.maxPriority),
			cmp.Compare(len(a.pods), len(b.pods)), strings.Compare(a.node.Name, b.node.Name))
	})
	for _, n := range cands {
		if ok, err := p.admit(n); err != nil {
			return nil, nil, err
		} else if ok {
			list = append(list, n)
		} else {
			rest = append(rest, n)
		}
	}
	return list, rest, nil
}

// efficiency is the value of a node's pods per dollar of node.
func efficiency(n *nodeInfo) float64 {
	if n.price <= 0 {
		return math.Inf(1)
	}
	return n.value / n.price
}

// admit reserves budget room for a candidate whose PDBs allow a
// disruption now, or records why not.
func (p *planner) admit(n *nodeInfo) (bool, error) {
	why, err := p.budgets.take(n.pool, ReasonUnderutilized)
	if err != nil {
		return false, err
	}
	if why != "" {
		p.soft[n.node.Name] = why
		return false, nil
	}
	if why := p.pdbs.blocks(n.pods); why != "" {
		p.budgets.give(n.pool)
		p.soft[n.node.Name] = why
		return false, nil
	}
	// An earlier refusal (the budget exhausted at the time) no longer
	// holds once admitted.
	delete(p.soft, n.node.Name)
	return true, nil
}

func (p *planner) release(n *nodeInfo) {
	p.budgets.give(n.pool)
}

// claimValue is the value of the pods r put on new claims.
func (p *planner) claimValue(nodes []*nodeInfo, r *packing.Result) float64 {
	claims := map[string]bool{}
	for _, c := range r.Claims {
		claims[c.Name] = true
	}
	dest := map[string]string{}
	for _, pl := range r.Placements {
		dest[pl.Pod] = pl.Node
	}
	var v float64
	for _, n := range nodes {
		for _, pod := range n.pods {
			if claims[dest[pod.Key()]] {
				v += p.values.pod(pod, n.pool)
			}
		}
	}
	return v
}

// localSearch tries the remaining candidates against the cluster as the
// commands so far leave it: first those whose pods likely fit on the other
// nodes, then those a replacement could pay for, each group in rank order;
// the others last, or kept untried when the simulations left cannot reach
// every candidate alone (see triage). While the simulations left
// cover every candidate one at a time, each is tried alone; beyond, the
// candidates are tried in windows of consecutive ones just large enough
// that every candidate is reached within the budget (see tryWindow),
// after the few a replacement alone could pay for best are tried alone
// (replaceAloneFirst).
func (p *planner) localSearch(rest []*nodeInfo) error {
	var first, later, hopeless []*nodeInfo
	var why []string
	headroom := map[*nodeInfo]float64{}
	for _, old := range rest {
		n := p.info[old.node.Name]
		if n == nil || p.removed[old.node.Name] || managed(n) != "" {
			later = append(later, old)
			continue
		}
		switch t, reason, head := p.triage(n); t {
		case likelyDeletion:
			first = append(first, old)
		case maybeReplacement:
			later = append(later, old)
			headroom[old] = head
		default:
			hopeless, why = append(hopeless, old), append(why, reason)
		}
	}
	if p.simulationsLeft() < len(rest) && !p.opts.soloLast {
		tried, err := p.replaceAloneFirst(later, headroom)
		if err != nil {
			return err
		}
		later = slices.DeleteFunc(later, func(n *nodeInfo) bool { return tried[n] })
	}
	// Hopeless candidates come last. The triage's bound proves each can
	// go neither alone nor replaced, but in a window it may join a merge;
	// where one would be tried alone while the simulations left cannot
	// try every candidate alone, it is kept with the proof instead.
	queue := append(append(first, later...), hopeless...)
	proof := map[*nodeInfo]string{}
	if p.simulationsLeft() < len(queue) {
		for i, n := range hopeless {
			proof[n] = why[i]
		}
	}
	for len(queue) > 0 {
		w := 1
		if left := p.simulationsLeft(); left > 0 {
			// Two simulations a window: one, and one more when a
			// command is rejected.
			w = max(1, (len(queue)+left/2-1)/max(left/2, 1))
		}
		w = min(w, len(queue))
		var err error
		var again []*nodeInfo
		switch reason, ok := proof[queue[0]]; {
		case w == 1 && ok:
			p.keep(queue[0].node.Name, reason)
		case w == 1:
			err = p.tryAlone(queue[0])
		default:
			again, err = p.tryWindow(queue[:w])
		}
		if err != nil {
			return err
		}
		// A window still refusing commands after its retries goes
		// back to the front of the queue, to be tried in the windows
		// the simulations left allow (smaller ones as they run out).
		// Each retry kept at least one node with its reason, so this
		// ends within the caps.
		queue = append(again, queue[w:]...)
	}
	return nil
}

// replaceAloneFirst tries alone, before any window, the candidates a
// replacement could pay for (later) with the most headroom (the triage's
// bound on what a replacement saves beyond its pool's thresholds), up to
// a quarter of the simulations left, and returns those it tried. Windows
// lump such a node with nodes that save nothing: their pods land on new
// claims together, the command spans the window, and its saving, spread
// over every node's price, misses minSavingsPercent where the node alone
// would pass (a cpu-full r6a.32xlarge with half its memory unused, $2.86/h
// of headroom on $7.26/h on the bench case). Issue 22's DaemonSet-heavy clusters kept such
// nodes to stable at up to 1.105 x the bound.
func (p *planner) replaceAloneFirst(later []*nodeInfo, headroom map[*nodeInfo]float64) (map[*nodeInfo]bool, error) {
	byHeadroom := slices.Clone(later)
	slices.SortStableFunc(byHeadroom, func(a, b *nodeInfo) int { return cmp.Compare(headroom[b], headroom[a]) })
	tried := map[*nodeInfo]bool{}
	for _, n := range byHeadroom[:min(len(byHeadroom), p.simulationsLeft()/4)] {
		if headroom[n] <= 0 {
			break
		}
		if err := p.tryAlone(n); err != nil {
			return nil, err
		}
		tried[n] = true
	}
	return tried, nil
}

// simulationsLeft is how many simulations of removing one node the caps
// still allow.
func (p *planner) simulationsLeft() int {
	byWork := (p.opts.MaxWork - p.simulated) / max(p.cost(0), 1)
	return max(0, min(p.opts.MaxEvaluations-p.evaluations, byWork))
}

// tryWindow simulates removing a window of candidates together and
// commits the commands the result splits into (deletions, replacements,
// merges of nodes sharing a new claim) that pass the rules; a node whose
// command fails is kept with the command's reason, and the others are
// simulated again without it, up to three times. It returns the nodes
// left after three simulations that each refused some command, to be
// tried again (the search has not stopped for them); nodes the caps
// leave untried are kept saying so.
func (p *planner) tryWindow(window []*nodeInfo) ([]*nodeInfo, error) {
	var win []*nodeInfo
	for _, old := range window {
		n := p.info[old.node.Name]
		if n == nil || p.removed[old.node.Name] {
			continue
		}
		if why := managed(n); why != "" {
			p.keep(n.node.Name, why)
			continue
		}
		ok, err := p.admit(n)
		if err != nil {
			return nil, err
		}
		if ok {
			win = append(win, n)
		}
	}
	together := fmt.Sprintf(" (simulated with %d other candidates)", len(win)-1)
	refused := 0
	for range 3 {
		if len(win) == 0 {
			return nil, nil
		}
		if !p.budgetLeft(0) {
			break
		}
		r, _, err := p.simulate(win)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		if len(r.Unschedulable) > 0 {
			for _, u := range r.Unschedulable {
				if n := p.nodeOf(win, u.Pod); n != "" && out[n] == "" {
					out[n] = fmt.Sprintf("no cheaper placement: pod %s fits nowhere else (%s)", u.Pod, u.Reason)
				}
			}
		} else {
			cmds := p.split(win, r, ReasonUnderutilized)
			for _, c := range cmds {
				if why := p.validate(c); why != "" {
					for _, n := range c.nodes {
						out[n.node.Name] = why
					}
				}
			}
			if len(out) == 0 {
				return nil, p.commit(cmds)
			}
		}
		if len(out) == 0 {
			// An unplaceable pod on no candidate: nothing to single out.
			break
		}
		refused++
		win = slices.DeleteFunc(win, func(n *nodeInfo) bool {
			why, ok := out[n.node.Name]
			if ok {
				p.release(n)
				p.keep(n.node.Name, why+together)
			}
			return ok
		})
	}
	for _, n := range win {
		p.release(n)
	}
	if refused == 3 && len(win) > 0 {
		return win, nil
	}
	for _, n := range win {
		p.keep(n.node.Name, fmt.Sprintf("no cheaper placement expected: its pods are worth about %.0f%% of its price (not simulated alone: the search stopped at %d simulations)",
			efficiency(n)*100, p.evaluations))
	}
	return nil, nil
}

// nodeOf names the node of win holding the pod with this key, or "".
func (p *planner) nodeOf(win []*nodeInfo, pod string) string {
	for _, n := range win {
		for _, q := range n.pods {
			if q.Key() == pod {
				return n.node.Name
			}
		}
	}
	return ""
}

// tryAlone simulates removing one candidate alone and commits the command
// when it passes the rules, or records why the node stays.
func (p *planner) tryAlone(old *nodeInfo) error {
	name := old.node.Name
	n := p.info[name]
	if n == nil || p.removed[name] {
		return nil
	}
	if why := managed(n); why != "" {
		p.keep(name, why)
		return nil
	}
	if !p.budgetLeft(len(n.pods)) {
		p.keep(name, fmt.Sprintf("no cheaper placement expected: its pods are worth about %.0f%% of its price (not simulated: the search stopped at %d simulations)",
			efficiency(n)*100, p.evaluations))
		return nil
	}
	ok, err := p.admit(n)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	r, _, err := p.simulate([]*nodeInfo{n})
	if err != nil {
		return err
	}
	if len(r.Unschedulable) > 0 {
		p.release(n)
		u := r.Unschedulable[0]
		p.keep(name, fmt.Sprintf("no cheaper placement: pod %s fits nowhere else (%s)", u.Pod, u.Reason))
		return nil
	}
	cmds := p.split([]*nodeInfo{n}, r, ReasonUnderutilized)
	if why := p.validate(cmds[0]); why != "" {
		p.release(n)
		p.keep(name, why)
		return nil
	}
	return p.commit(cmds)
}

// validate checks a consolidation command against the safety rules and
// says which one it breaks, or "".
func (p *planner) validate(c *command) string {
	before, after := c.CostBeforePerHour, c.CostAfterPerHour
	saving := before - after
	if len(c.claims) > 0 && after >= before-1e-9 {
		if len(c.nodes) == 1 && len(c.Replacements) == 1 && c.Replacements[0].InstanceType == c.nodes[0].node.InstanceType {
			return fmt.Sprintf("no cheaper placement: a replacement would be %s again at $%s/h", c.Replacements[0].InstanceType, money(after))
		}
		return fmt.Sprintf("no cheaper placement: replacements would cost $%s/h against $%s/h", money(after), money(before))
	}
	spot := false
	for _, n := range c.nodes {
		spot = spot || n.node.CapacityType == v1.CapacityTypeSpot
	}
	if spot {
		for _, cl := range c.claims {
			if cl.Chosen().CapacityType != v1.CapacityTypeSpot {
				continue
			}
			types := map[string]bool{}
			for _, o := range cl.Options {
				if o.CapacityType == v1.CapacityTypeSpot && o.PricePerHour < before {
					types[o.InstanceType] = true
				}
			}
			if len(types) < p.opts.MinSpotTypes {
				return fmt.Sprintf("spot-to-spot replacement needs %d cheaper spot instance types; only %d allowed", p.opts.MinSpotTypes, len(types))
			}
		}
	}
	if why := p.balancedReason(c, saving); why != "" {
		return why
	}
	return p.belowThreshold(c, saving)
}

// money prints dollars with at most four decimals and no trailing zeros.
func money(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e4)/1e4, 'f', -1, 64)
}

func mapKeys[V any](m map[int]V) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// leadFirst orders the nodes in lead (see walk) before the others.
func leadFirst(lead map[string]bool, a, b *nodeInfo) int {
	switch la, lb := lead[a.node.Name], lead[b.node.Name]; {
	case la == lb:
		return 0
	case la:
		return -1
	default:
		return 1
	}
}
