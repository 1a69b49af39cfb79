package consolidation

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// thriftyDeletions is the consolidation search's middle when walk
// re-plans a step to evict fewer pods (steer.thrifty): before the local
// search tries the remaining candidates in rank order (value per dollar
// of node), it deletes them most saving per pod evicted first (price per pod, the
// saving of a deletion whose pods fit elsewhere), each only if its pods
// fit, by first fit, in the free room the nodes kept still have once the
// candidates taken before it are placed. The free room is what limits
// deletions; ranked by value per dollar, it goes first to small nodes
// whose pods are worth little, a node with one pod saving a few cents per
// pod, where it could free a large node holding two pods. The nodes taken
// are simulated together and committed as tryWindow does (a node whose
// command breaks a rule stays, the others are simulated again); the local
// search then tries what is left.
func (p *planner) thriftyDeletions(cands []*nodeInfo) error {
	perPod := func(n *nodeInfo) float64 { return n.price / float64(max(len(n.pods), 1)) }
	cands = slices.Clone(cands)
	slices.SortStableFunc(cands, func(a, b *nodeInfo) int {
		return cmp.Or(cmp.Compare(perPod(b), perPod(a)), strings.Compare(a.node.Name, b.node.Name))
	})
	// Pods are placed first on the nodes that are no candidates, then on
	// the candidates least likely to go (least saving per pod first): a
	// node that received pods stays.
	rank := make(map[string]int, len(cands))
	for i, n := range cands {
		rank[n.node.Name] = len(cands) - i
	}
	idx := p.rooms()
	order := make([]int, len(idx.names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank[idx.names[a]], rank[idx.names[b]]) })
	room := make([]freeRoom, len(order))
	at := make(map[string]int, len(order))
	for k, i := range order {
		room[k] = idx.room[i]
		at[idx.names[i]] = k
	}
	received := make([]bool, len(room))
	var window []*nodeInfo
	for _, old := range cands {
		n := p.info[old.node.Name]
		if n == nil || p.removed[n.node.Name] || managed(n) != "" || len(n.pods) == 0 {
			continue
		}
		i, ok := at[n.node.Name]
		if !ok || received[i] {
			continue
		}
		// The node's own room goes with it.
		own := room[i]
		room[i] = freeRoom{}
		if placeFirstFit(room, n.pods, received) {
			window = append(window, n)
			continue
		}
		room[i] = own
	}
	if len(window) == 0 {
		return nil
	}
	return p.tryWindow(window)
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
