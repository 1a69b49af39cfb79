package consolidation

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// The local search tries each remaining candidate alone, and each try is
// a packing run over the whole cluster. At a few hundred nodes the budget
// of simulations runs out long before the list does, so each candidate is
// first triaged without simulating:
//
//   - its pods either all fit in the other nodes' free room by first fit
//     decreasing (ignoring every scheduling rule), so a deletion is
//     likely: these are simulated first;
//   - or a replacement could pay: the new nodes cost at least the
//     per-resource bound of what must go on them (the pods that fit in no
//     other node's free room, and whatever exceeds that room in total),
//     and what is left of the node's price may still reach the saving a
//     command must make: these are simulated next;
//   - or neither: no replacement can pay (the bound is a proof, rules and
//     daemonsets only raising it) and its pods do not all fit elsewhere
//     (first fit is the evidence; the packer, which honours more rules,
//     rarely finds room first fit does not).
//     These are tried last when the budget allows trying every candidate
//     alone, and kept with that reason otherwise.
//
// Every node that could go is thus simulated before the budget runs out
// on nodes that could not.

// freeRoom is what a node can still take: allocatable cpu (millicores),
// memory (bytes) and pod slots less what its bound pods request.
type freeRoom struct {
	cpu, mem, pods int64
}

// roomIndex is every schedulable node's free room in one working
// snapshot.
type roomIndex struct {
	work  *state.Snapshot
	names []string
	room  []freeRoom
}

// rooms returns the free room of the working snapshot's nodes that can
// take pods, rebuilt when a commit changed the snapshot.
func (p *planner) rooms() *roomIndex {
	if p.roomIdx != nil && p.roomIdx.work == p.work {
		return p.roomIdx
	}
	idx := &roomIndex{work: p.work}
	at := map[string]int{}
	for _, n := range p.work.Nodes {
		if p.removed[n.Name] || n.MarkedForDeletion || n.Unschedulable || n.Allocatable == nil {
			continue
		}
		at[n.Name] = len(idx.room)
		idx.names = append(idx.names, n.Name)
		idx.room = append(idx.room, freeRoom{cpu: n.Allocatable.Cpu().MilliValue(), mem: n.Allocatable.Memory().Value(), pods: n.Allocatable.Pods().Value()})
	}
	type bound struct{ node, namespace, name string }
	present := map[bound]bool{}
	for _, pod := range p.work.Pods {
		i, ok := at[pod.NodeName]
		if !ok {
			continue
		}
		r := &idx.room[i]
		c, m := podRequests(pod)
		r.cpu, r.mem, r.pods = r.cpu-c, r.mem-m, r.pods-1
		if pod.DaemonSet {
			present[bound{pod.NodeName, pod.Namespace, pod.Owner.Name}] = true
		}
	}
	// A daemonset that runs on a node but has no pod there yet gets one
	// soon: its room is not free (packing reserves it the same way).
	for _, ds := range p.work.DaemonSets {
		f, err := ds.Pod.NodeFilter()
		if err != nil {
			continue
		}
		c, m := podRequests(ds.Pod)
		for _, n := range p.work.Nodes {
			i, ok := at[n.Name]
			if !ok || present[bound{n.Name, ds.Namespace, ds.Name}] || !f.Admits(n.Labels, n.SchedulingTaints(p.pools[n.Pool])) {
				continue
			}
			r := &idx.room[i]
			r.cpu, r.mem, r.pods = r.cpu-c, r.mem-m, r.pods-1
		}
	}
	p.roomIdx = idx
	return idx
}

// podRequests is a pod's cpu (millicores) and memory (bytes) requests.
func podRequests(pod *state.Pod) (cpu, mem int64) {
	if q, ok := pod.Requests[corev1.ResourceCPU]; ok {
		cpu = q.MilliValue()
	}
	if q, ok := pod.Requests[corev1.ResourceMemory]; ok {
		mem = q.Value()
	}
	return cpu, mem
}

// firstFits reports whether every pod fits in the free room of the nodes
// other than skip, placed largest first (by cpu, then memory), each on the
// first node with room. Rules are ignored.
func (idx *roomIndex) firstFits(skip string, pods []*state.Pod) bool {
	type req struct{ cpu, mem int64 }
	reqs := make([]req, len(pods))
	for i, pod := range pods {
		reqs[i].cpu, reqs[i].mem = podRequests(pod)
	}
	slices.SortFunc(reqs, func(a, b req) int { return cmp.Or(cmp.Compare(b.cpu, a.cpu), cmp.Compare(b.mem, a.mem)) })
	used := map[int]freeRoom{}
	for _, r := range reqs {
		placed := false
		for i, room := range idx.room {
			u := used[i]
			if room.cpu-u.cpu >= r.cpu && room.mem-u.mem >= r.mem && room.pods-u.pods >= 1 && idx.names[i] != skip {
				used[i] = freeRoom{cpu: u.cpu + r.cpu, mem: u.mem + r.mem, pods: u.pods + 1}
				placed = true
				break
			}
		}
		if !placed {
			return false
		}
	}
	return true
}

// triage is how the local search treats a candidate (see above).
type triage int

const (
	likelyDeletion triage = iota
	maybeReplacement
	hopeless
)

// triage classes n, with the reason it is kept when hopeless. For a
// maybeReplacement, headroom is what a replacement could save at most
// beyond what its command must save: n's price less the bound on its new
// nodes and the saving its pool asks.
func (p *planner) triage(n *nodeInfo) (t triage, reason string, headroom float64) {
	idx := p.rooms()
	if idx.firstFits(n.node.Name, n.pods) {
		return likelyDeletion, "", 0
	}
	cpu, mem, single := idx.onNewClaims(n, p.claims)
	bound := p.claims.cost(cpu, mem, single)
	s := p.savingsOf(n.pool)
	need := max(s.perHour, s.percent/100*n.price, s.perPod*float64(len(n.pods)))
	if headroom := n.price - bound - need; headroom >= -1e-12 {
		return maybeReplacement, "", headroom
	}
	return hopeless, fmt.Sprintf("no cheaper placement: its pods do not fit in the other nodes' free room (first fit), and new nodes for the %s cpu and %s of memory that room cannot hold, beside the daemonsets each runs, cost at least $%s/h against its $%s/h, short of the $%s/h a replacement must save (not simulated)",
		resource.NewMilliQuantity(cpu, resource.DecimalSI), resource.NewQuantity(mem, resource.BinarySI), money(bound), money(n.price), money(need)), 0
}

// onNewClaims is, per resource, the least any placement of n's pods puts
// on new claims: the larger of what the pods that fit in no other node's
// free room request and what all of them request beyond the free room of
// the nodes that could take one of them. single is the least one new node
// costs when some pod must go on one: the dearest of the cheapest types
// holding each pod that fits nowhere else, or, when every pod fits
// somewhere but not all of them do, the cheapest type holding any of them.
func (idx *roomIndex) onNewClaims(n *nodeInfo, b *claimBound) (cpu, mem int64, single float64) {
	type req struct{ cpu, mem int64 }
	var lost, all, room req
	var fitting []req
	lostSingle, anySingle := 0.0, math.Inf(1)
	for _, pod := range n.pods {
		c, m := podRequests(pod)
		all.cpu, all.mem = all.cpu+c, all.mem+m
		price := b.cheapestFor(c, m)
		anySingle = min(anySingle, price)
		if idx.fitsElsewhere(n.node.Name, c, m) {
			fitting = append(fitting, req{c, m})
		} else {
			lost.cpu, lost.mem = lost.cpu+c, lost.mem+m
			lostSingle = max(lostSingle, price)
		}
	}
	for i, r := range idx.room {
		if idx.names[i] == n.node.Name || r.pods < 1 {
			continue
		}
		for _, k := range fitting {
			if r.cpu >= k.cpu && r.mem >= k.mem {
				room.cpu, room.mem = room.cpu+r.cpu, room.mem+r.mem
				break
			}
		}
	}
	cpu, mem = max(lost.cpu, all.cpu-room.cpu, 0), max(lost.mem, all.mem-room.mem, 0)
	switch {
	case lost.cpu > 0 || lost.mem > 0 || lostSingle > 0:
		single = lostSingle
	case cpu > 0 || mem > 0:
		single = anySingle
	}
	return cpu, mem, single
}

// fitsElsewhere reports whether some node other than skip has the free
// room for a pod of these requests.
func (idx *roomIndex) fitsElsewhere(skip string, cpu, mem int64) bool {
	for i, r := range idx.room {
		if r.cpu >= cpu && r.mem >= mem && r.pods >= 1 && idx.names[i] != skip {
			return true
		}
	}
	return false
}
