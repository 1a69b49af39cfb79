package consolidation

import (
	"cmp"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// chooseSet is the search's choice among the admitted candidates list
// (ranked): the prefix choosePrefix picks, or the set of thriftySet or of
// fullerSet, whichever gains most once all are settled (split into
// commands, the ones the safety rules refuse left out: a set whose
// simulation gains more can lose once a merge of it is refused). It returns the chosen set settled
// and the candidates left out of it (those the set's commands leave out
// are in the settled set's rejected, dropped and leftover).
func (p *planner) chooseSet(list []*nodeInfo) (chosen settled, others []*nodeInfo, err error) {
	k, r, err := p.choosePrefix(list)
	if err != nil {
		return settled{}, nil, err
	}
	prefix, others := list[:k], list[k:]
	chosen, _, err = p.settle(prefix, r, true)
	if err != nil || k == 0 || p.opts.prefixOnly {
		return chosen, others, err
	}
	var best []*nodeInfo
	for _, alt := range []func() ([]*nodeInfo, *packing.Result, error){
		func() ([]*nodeInfo, *packing.Result, error) { return p.thriftySet(list, prefix, r) },
		func() ([]*nodeInfo, *packing.Result, error) {
			if p.opts.noFuller {
				return nil, nil, nil
			}
			return p.fullerSet(prefix, r)
		},
	} {
		set, sr, err := alt()
		if err != nil {
			return settled{}, nil, err
		}
		if set == nil {
			continue
		}
		s, ok, err := p.settle(set, sr, false)
		if err != nil {
			return settled{}, nil, err
		}
		if ok && s.gain(p) > chosen.gain(p)+1e-9 {
			chosen, best = s, set
		}
	}
	if best == nil {
		return chosen, others, nil
	}
	in := make(map[*nodeInfo]bool, len(best))
	for _, n := range best {
		in[n] = true
	}
	return chosen, slices.DeleteFunc(slices.Clone(list), func(n *nodeInfo) bool { return in[n] }), nil
}

// thriftyUnit is what thriftySet takes or leaves whole: one of the
// prefix's merges (its nodes and replacements) or one candidate as a
// deletion, with its saving per pod evicted and its pods' value.
type thriftyUnit struct {
	perPod, value float64
	merge         *command
	n             *nodeInfo
}

// thriftySet offers the consolidation search another set of nodes to
// remove than the prefix it chose (chosen, simulated as r), one that
// allots the other nodes' free room by saving per pod evicted.
//
// Ranked by value per dollar of node, the prefix spends that room first
// on whatever is cheapest to empty, often cheap nodes holding one small
// pod (on DaemonSet-heavy clusters a t3a.small saving $0.019 per pod
// evicted) where it could take the pods of a large node holding two or
// three ($0.10 to $0.30 per pod). thriftySet keeps the prefix's merges and
// replacements (its commands launching new nodes), their pods on the
// nodes r put them on, and takes, most saving per pod evicted first,
// those commands and the admitted candidates (list) left as deletions,
// each deletion only if its pods fit, by first fit, in the free room left
// once the units taken before it are placed, until it saves what the
// prefix saves. It returns that set and its simulation when the set is
// feasible, else nil; chooseSet takes it when it gains more than the
// prefix (the saving less what the removed nodes ask: their pools'
// minSavingsPercent and minSavingsPerPod, the search's own objective).
// One simulation.
func (p *planner) thriftySet(list, chosen []*nodeInfo, r *packing.Result) ([]*nodeInfo, *packing.Result, error) {
	if r == nil || len(r.Unschedulable) > 0 {
		return nil, nil, nil
	}
	units, merged := p.thriftyUnits(list, chosen, r)
	room, at, received := p.thriftyRooms(units, merged, chosen, r)

	target := -r.CostPerHour
	for _, n := range chosen {
		target += n.price
	}
	take := map[string]bool{}
	saved := 0.0
	for _, u := range units {
		if saved >= target-1e-9 {
			break
		}
		if u.merge != nil {
			for _, n := range u.merge.nodes {
				take[n.node.Name] = true
			}
			saved += u.merge.CostBeforePerHour - u.merge.CostAfterPerHour
			continue
		}
		i, ok := at[u.n.node.Name]
		if !ok || received[i] {
			continue
		}
		// The node's own room goes with it.
		own := room[i]
		room[i] = freeRoom{}
		if placeFirstFit(room, u.n.pods, received) {
			take[u.n.node.Name] = true
			saved += u.n.price
			continue
		}
		room[i] = own
	}
	var set []*nodeInfo
	pods := 0
	for _, n := range list {
		if take[n.node.Name] {
			set = append(set, n)
			pods += len(n.pods)
		}
	}
	if len(set) == 0 || slices.Equal(set, chosen) || !p.prefixBudgetLeft(pods) {
		return nil, nil, nil
	}
	alt, _, err := p.simulate(set)
	if err != nil || len(alt.Unschedulable) > 0 {
		return nil, nil, err
	}
	return set, alt, nil
}

// thriftyUnits lists thriftySet's units, most saving per pod evicted
// first: the merges of the prefix chosen (as r places their pods) and
// every other candidate of list holding pods, as a deletion. It also
// returns the names of the nodes those merges remove.
func (p *planner) thriftyUnits(list, chosen []*nodeInfo, r *packing.Result) ([]thriftyUnit, map[string]bool) {
	var units []thriftyUnit
	merged := map[string]bool{}
	for _, c := range p.split(chosen, r, ReasonUnderutilized) {
		if len(c.claims) == 0 {
			continue
		}
		u := thriftyUnit{perPod: (c.CostBeforePerHour - c.CostAfterPerHour) / float64(max(len(c.pods), 1)), merge: c}
		for _, n := range c.nodes {
			merged[n.node.Name] = true
			u.value += n.value
		}
		units = append(units, u)
	}
	perPod := func(n *nodeInfo) float64 { return n.price / float64(max(len(n.pods), 1)) }
	for _, n := range list {
		if !merged[n.node.Name] && len(n.pods) > 0 {
			units = append(units, thriftyUnit{perPod: perPod(n), value: n.value, n: n})
		}
	}
	// Equal savings per pod (nodes of one type holding as many pods)
	// take the largest pods first, as first fit decreasing does.
	slices.SortStableFunc(units, func(a, b thriftyUnit) int {
		return cmp.Or(cmp.Compare(b.perPod, a.perPod), cmp.Compare(b.value, a.value))
	})
	return units, merged
}

// thriftyRooms is the free room thriftySet places deletions' pods in:
// every node the merges keep and no rule bars from receiving pods, in the
// order first fit tries them (the nodes that are no candidates, then the
// candidates least likely to go: a node that received pods stays), with
// the pods r put there from the prefix's merges already taken out. at
// indexes the rooms by node name; received marks the rooms that took pods.
func (p *planner) thriftyRooms(units []thriftyUnit, merged map[string]bool, chosen []*nodeInfo, r *packing.Result) (room []freeRoom, at map[string]int, received []bool) {
	rank := make(map[string]int, len(units))
	for i, u := range units {
		if u.n != nil {
			rank[u.n.node.Name] = len(units) - i
		}
	}
	idx := p.rooms()
	order := make([]int, 0, len(idx.names))
	for i, name := range idx.names {
		if !merged[name] && !p.avoid[name] {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank[idx.names[a]], rank[idx.names[b]]) })
	room = make([]freeRoom, len(order))
	at = make(map[string]int, len(order))
	for k, i := range order {
		room[k] = idx.room[i]
		at[idx.names[i]] = k
	}
	received = make([]bool, len(room))
	dest := make(map[string]string, len(r.Placements))
	for _, pl := range r.Placements {
		dest[pl.Pod] = pl.Node
	}
	for _, n := range chosen {
		if !merged[n.node.Name] {
			continue
		}
		for _, pod := range n.pods {
			if k, ok := at[dest[pod.Key()]]; ok {
				c, m := podRequests(pod)
				room[k].cpu, room[k].mem, room[k].pods = room[k].cpu-c, room[k].mem-m, room[k].pods-1
				received[k] = true
			}
		}
	}
	return room, at, received
}

// gain is what removing nodes, their pods placed as r places them, saves
// less what the nodes ask (see ask): what the prefix search maximises.
func (p *planner) gain(nodes []*nodeInfo, r *packing.Result) float64 {
	g := -r.CostPerHour
	for _, n := range nodes {
		g += n.price - p.ask(n)
	}
	return g
}

// placeFirstFit places pods, largest first (by cpu, then memory), each on
// the first room that holds it, takes what they use from room and marks
// those rooms received; if one fits nowhere it leaves both as they were
// and reports false.
func placeFirstFit(room []freeRoom, pods []*state.Pod, received []bool) bool {
	type req struct{ cpu, mem int64 }
	reqs := make([]req, len(pods))
	for i, pod := range pods {
		reqs[i].cpu, reqs[i].mem = podRequests(pod)
	}
	slices.SortFunc(reqs, func(a, b req) int { return cmp.Or(cmp.Compare(b.cpu, a.cpu), cmp.Compare(b.mem, a.mem)) })
	var placed []int
	for _, r := range reqs {
		j := slices.IndexFunc(room, func(f freeRoom) bool { return f.cpu >= r.cpu && f.mem >= r.mem && f.pods >= 1 })
		if j < 0 {
			for k, at := range placed {
				room[at].cpu, room[at].mem, room[at].pods = room[at].cpu+reqs[k].cpu, room[at].mem+reqs[k].mem, room[at].pods+1
			}
			return false
		}
		room[j].cpu, room[j].mem, room[j].pods = room[j].cpu-r.cpu, room[j].mem-r.mem, room[j].pods-1
		placed = append(placed, j)
	}
	for _, j := range placed {
		received[j] = true
	}
	return true
}
