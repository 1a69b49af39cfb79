package agent

import (
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// slots remember where a batch planned the pods controllers are still
// creating (anticipatePods): owner O's pods go on node or claim T, so many
// of them in all. A later batch binds the pods of O that arrived to that
// room first (nominating them there), and holds the rest of the room for
// the pods still to come, so neither another app's pods nor a new plan
// takes it: the burst ends as the plan that saw it whole. A slot holds as
// a nomination does (while its claim is in flight, then for the
// nomination window), and is dropped once its count is reached.
type slots struct {
	window time.Duration
	mu     sync.Mutex
	plans  map[slotKey]slotPlan
}

// slotKey is one owner's room on one node or claim.
type slotKey struct {
	owner  string // "namespace/Kind/name"
	target string // a node's or a claim's name
}

// slotPlan is how many of the owner's pods the target is planned for in
// all (those there now included), and since when.
type slotPlan struct {
	count int
	at    time.Time
}

func newSlots(window time.Duration) *slots {
	return &slots{window: window, plans: map[slotKey]slotPlan{}}
}

// ownerKey identifies a pod's controller, "" for a bare pod.
func ownerKey(p *state.Pod) string {
	if p.Owner.Name == "" {
		return ""
	}
	return p.Namespace + "/" + p.Owner.Kind + "/" + p.Owner.Name
}

// fill binds, in v's snapshot, the pending pods of every owner with a
// slot to the slot's node while the plan wants more of its pods there and
// the node has room: pods that exist first (returned by key → node, to be
// nominated; kube-scheduler may not have tried them yet), then the pods
// controllers have still to create (held: not planned again). Slots that
// no longer hold, or are full, are dropped.
// heldOn counts the anticipated pods held on each node (by snapshot name).
func (s *slots) fill(v *clusterView, now time.Time) (nominate map[string]string, heldOn map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nominate = map[string]string{}
	heldOn = map[string]int{}
	if len(s.plans) == 0 {
		return nominate, heldOn
	}
	index := v.nodeIndex()
	on := map[slotKey]int{} // owner's pods on each node now
	pending := map[string][]int{}
	for i, p := range v.snap.Pods {
		o := ownerKey(p)
		switch {
		case o == "" || p.DaemonSet:
		case p.NodeName != "":
			on[slotKey{o, p.NodeName}]++
		default:
			pending[o] = append(pending[o], i)
		}
	}
	for o, idx := range pending { // arrived pods before anticipated ones
		sort.SliceStable(idx, func(a, b int) bool {
			return !v.toCome[v.snap.Pods[idx[a]].Key()] && v.toCome[v.snap.Pods[idx[b]].Key()]
		})
		pending[o] = idx
	}
	free := freeRoom(v)
	for _, key := range s.sortedKeys() {
		plan := s.plans[key]
		node, holds := v.expects(index, nomination{target: key.target, at: plan.at}, s.window, now)
		if !holds {
			if v.stale(index, nomination{target: key.target, at: plan.at}, s.window, now) {
				delete(s.plans, key)
			}
			continue
		}
		want := plan.count - on[slotKey{key.owner, node}]
		if want <= 0 {
			delete(s.plans, key)
			continue
		}
		for want > 0 && len(pending[key.owner]) > 0 {
			i := pending[key.owner][0]
			p := v.snap.Pods[i]
			if !fits(free[node], p.Requests) {
				break
			}
			pending[key.owner] = pending[key.owner][1:]
			take(free[node], p.Requests)
			bound := *p
			bound.NodeName = node
			v.snap.Pods[i] = &bound
			want--
			if v.toCome[p.Key()] {
				heldOn[node]++
			} else {
				nominate[p.Key()] = key.target
			}
		}
	}
	return nominate, heldOn
}

// record adds the slots of a solution: for every node or launched claim
// the solution put an anticipated pod on, the owner's pods planned there
// in all (on it in v, and placed on it by res). launched maps the packer's
// claim names to the NodeClaims created.
func (s *slots) record(v *clusterView, res *packing.Result, launched map[string]string, now time.Time) {
	owners := map[string]string{}
	for _, p := range v.snap.Pods {
		if o := ownerKey(p); o != "" {
			owners[p.Key()] = o
		}
	}
	isClaim := map[string]bool{}
	for _, c := range res.Claims {
		isClaim[c.Name] = true
	}
	planned := map[slotKey]int{}
	anticipated := map[slotKey]bool{}
	for _, pl := range res.Placements {
		o := owners[pl.Pod]
		target := pl.Node
		if name, ok := launched[pl.Node]; ok {
			target = name
		} else if isClaim[pl.Node] {
			continue // a claim not launched: planned again next batch
		}
		if o == "" {
			continue
		}
		k := slotKey{o, target}
		planned[k]++
		anticipated[k] = anticipated[k] || v.anticipated[pl.Pod]
	}
	for _, p := range v.snap.Pods {
		if k := (slotKey{owners[p.Key()], p.NodeName}); p.NodeName != "" && anticipated[k] {
			planned[k]++
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, n := range planned {
		if anticipated[k] {
			s.plans[k] = slotPlan{count: n, at: now}
		}
	}
}

// awaited returns the nodes (by snapshot name) with room held for pods
// still to come: disruption treats them as nominated, so a node launched
// for a burst is not removed as empty before its pods arrive.
func (s *slots) awaited(v *clusterView, now time.Time) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	index := v.nodeIndex()
	for key, plan := range s.plans {
		if node, holds := v.expects(index, nomination{target: key.target, at: plan.at}, s.window, now); holds {
			out[node] = true
		}
	}
	return out
}

func (s *slots) sortedKeys() []slotKey {
	keys := make([]slotKey, 0, len(s.plans))
	for k := range s.plans {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].owner != keys[j].owner {
			return keys[i].owner < keys[j].owner
		}
		return keys[i].target < keys[j].target
	})
	return keys
}

// freeRoom is every snapshot node's allocatable less the requests of the
// pods bound (or reserved) on it.
func freeRoom(v *clusterView) map[string]corev1.ResourceList {
	free := map[string]corev1.ResourceList{}
	for _, n := range v.snap.Nodes {
		free[n.Name] = n.Allocatable.DeepCopy()
	}
	for _, p := range v.snap.Pods {
		if p.NodeName != "" {
			take(free[p.NodeName], p.Requests)
		}
	}
	return free
}
