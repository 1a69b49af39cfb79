package deletioncost

import (
	"cmp"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Tier is a ranked node's band: every node of a lower tier goes first.
type Tier int

// The tiers, first deleted first.
const (
	// TierGoing are nodes being removed: deleting, or tainted tenon.dev/disrupted.
	TierGoing Tier = iota
	// TierLeaving are the nodes consolidation's walk ends without.
	TierLeaving
	// TierRest are the other nodes consolidation may remove.
	TierRest
)

func (t Tier) String() string {
	switch t {
	case TierGoing:
		return "going"
	case TierLeaving:
		return "leaving"
	case TierRest:
		return "rest"
	}
	return "tier" + strconv.Itoa(int(t))
}

// tierWidth is the room each tier's band has for positions: more nodes than any cluster has.
// The bands are [base, base+tierWidth) with base -3, -2 and -1 million: every ranked pod costs
// less than an unannotated one (0), and the values are short enough to read.
const tierWidth = 1_000_000

// base is the first cost of tier t's band.
func base(t Tier) int32 { return int32(-(3 - int(t)) * tierWidth) }

// Node is one ranked node and the cost its ReplicaSet pods get.
type Node struct {
	Name string
	Tier Tier
	// Cost is the deletion cost of the node's ReplicaSet pods: its tier's base plus its
	// position in the tier.
	Cost int32
	// Pinned counts the node's workload pods a scale-down cannot remove (not a ReplicaSet's,
	// not terminating); Replicas its ReplicaSet pods (not terminating).
	Pinned   int
	Replicas int
	// PricePerHour is the node's price.
	PricePerHour float64
}

// Action is what a Write does to a pod's annotations.
type Action int

// The actions.
const (
	// Set writes Cost as the pod's deletion cost and records it as Tenon's.
	Set Action = iota
	// Clear removes the deletion cost Tenon wrote and its record: the pod goes back to 0.
	Clear
	// Disown removes only Tenon's record, from a pod whose deletion cost someone else changed.
	Disown
)

func (a Action) String() string {
	switch a {
	case Set:
		return "set"
	case Clear:
		return "clear"
	case Disown:
		return "disown"
	}
	return "action" + strconv.Itoa(int(a))
}

// Write is one pod whose annotations must change.
type Write struct {
	Namespace string
	Name      string
	// UID is the pod's; a pod recreated under the same name is not the one planned for.
	UID string
	// Node is the node the pod is bound to ("" when pending).
	Node   string
	Action Action
	// Cost is the value to set (Set only).
	Cost int32
}

// Key returns "namespace/name".
func (w Write) Key() string { return w.Namespace + "/" + w.Name }

// Plan is the ranking of one Snapshot and the writes that bring the pods to it.
type Plan struct {
	// Nodes are the ranked nodes, first deleted first.
	Nodes []Node
	// Writes are the pods whose annotations differ from the ranking: Set on the Going, Leaving
	// and Rest tiers in that order, then Clear, then Disown; by pod within each.
	Writes []Write
	// UserOwned are the ReplicaSets ("namespace/name") left to their owner, because one of
	// their pods carries a deletion cost Tenon did not write. Sorted.
	UserOwned []string
}

// Owned reports whether a pod's deletion cost is the one Tenon wrote: both annotations present
// and equal.
func Owned(annotations map[string]string) bool {
	cost, ok := annotations[v1.AnnotationPodDeletionCost]
	if !ok {
		return false
	}
	mine, ok := annotations[v1.AnnotationPodDeletionCostOwned]
	return ok && mine == cost
}

// Value is a pod's deletion cost as the ReplicaSet controller reads it: the annotation as an
// int32, 0 when absent or malformed.
func Value(annotations map[string]string) int32 {
	v, err := strconv.ParseInt(annotations[v1.AnnotationPodDeletionCost], 10, 32)
	if err != nil {
		return 0
	}
	return int32(v)
}

// Still reports whether w still applies to a pod with these annotations, read again just before
// the write: Set while the deletion cost is absent or Tenon's and differs from w.Cost, Clear while
// it is Tenon's, Disown while the record is there and the cost is not Tenon's. A value someone
// else wrote in between is never touched.
func (w Write) Still(annotations map[string]string) bool {
	_, hasCost := annotations[v1.AnnotationPodDeletionCost]
	_, hasRecord := annotations[v1.AnnotationPodDeletionCostOwned]
	switch w.Action {
	case Set:
		if !hasCost {
			return true
		}
		return Owned(annotations) && annotations[v1.AnnotationPodDeletionCost] != strconv.Itoa(int(w.Cost))
	case Clear:
		return Owned(annotations)
	case Disown:
		return hasRecord && !Owned(annotations)
	}
	return false
}

// Annotations returns the annotation changes w makes, for a merge patch: a value to set, or nil
// to remove the key.
func (w Write) Annotations() map[string]*string {
	switch w.Action {
	case Set:
		s := strconv.Itoa(int(w.Cost))
		return map[string]*string{v1.AnnotationPodDeletionCost: &s, v1.AnnotationPodDeletionCostOwned: &s}
	case Clear:
		return map[string]*string{v1.AnnotationPodDeletionCost: nil, v1.AnnotationPodDeletionCostOwned: nil}
	case Disown:
		return map[string]*string{v1.AnnotationPodDeletionCostOwned: nil}
	}
	return nil
}

// IsReplicaSetPod reports whether p's controller is a ReplicaSet: the only pods whose deletion
// cost anything reads.
func IsReplicaSetPod(p *state.Pod) bool { return p.Owner.Kind == "ReplicaSet" && !p.Placeholder }

// Compute ranks snap's nodes, with leaving the nodes consolidation's walk ends without
// (consolidation.Result.Leaving), and lists the writes that bring the ReplicaSet pods to the
// ranking.
func Compute(snap *state.Snapshot, leaving []string) *Plan {
	plan := &Plan{}
	userOwned := userOwnedReplicaSets(snap.Pods)
	for rs := range userOwned {
		plan.UserOwned = append(plan.UserOwned, rs)
	}
	slices.Sort(plan.UserOwned)
	plan.Nodes = rank(snap, leaving)
	cost := make(map[string]int32, len(plan.Nodes))
	tier := make(map[string]Tier, len(plan.Nodes))
	for _, n := range plan.Nodes {
		cost[n.Name] = n.Cost
		tier[n.Name] = n.Tier
	}
	type keyed struct {
		w     Write
		order int
	}
	var writes []keyed
	for _, p := range snap.Pods {
		if !IsReplicaSetPod(p) || p.Terminating {
			continue
		}
		w := Write{Namespace: p.Namespace, Name: p.Name, UID: p.UID, Node: p.NodeName, Action: -1}
		c, ranked := cost[p.NodeName]
		switch {
		case userOwned[p.Namespace+"/"+p.Owner.Name]:
			switch {
			case Owned(p.Annotations):
				w.Action = Clear
			case hasKey(p.Annotations, v1.AnnotationPodDeletionCostOwned):
				w.Action = Disown
			}
		case ranked && p.NodeName != "":
			if tier[p.NodeName] < TierRest && Owned(p.Annotations) && Value(p.Annotations) < base(TierRest) {
				// Already before every pod of the rest: a node the walk removes
				// that is now being removed keeps its value, so a command's
				// start rewrites none of the pods it is evicting.
				continue
			}
			w.Action, w.Cost = Set, c
		case Owned(p.Annotations):
			w.Action = Clear
		case hasKey(p.Annotations, v1.AnnotationPodDeletionCostOwned):
			// A record without the cost: someone removed Tenon's value; the record goes too.
			w.Action = Disown
		}
		if w.Action < 0 || !w.Still(p.Annotations) {
			continue
		}
		order := int(TierRest) + 1 + int(w.Action)
		if w.Action == Set {
			order = int(tier[p.NodeName])
		}
		writes = append(writes, keyed{w, order})
	}
	slices.SortStableFunc(writes, func(a, b keyed) int { return cmp.Compare(a.order, b.order) })
	for _, k := range writes {
		plan.Writes = append(plan.Writes, k.w)
	}
	return plan
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// userOwnedReplicaSets are the ReplicaSets ("namespace/name") one of whose pods carries a
// deletion cost Tenon did not write.
func userOwnedReplicaSets(pods []*state.Pod) map[string]bool {
	out := map[string]bool{}
	for _, p := range pods {
		if IsReplicaSetPod(p) && hasKey(p.Annotations, v1.AnnotationPodDeletionCost) && !Owned(p.Annotations) {
			out[p.Namespace+"/"+p.Owner.Name] = true
		}
	}
	return out
}

// rank orders the nodes of snap Tenon may remove: Going, Leaving, then Rest, each by
// compareNodes, and gives each its cost.
func rank(snap *state.Snapshot, leaving []string) []Node {
	pools := make(map[string]*state.Pool, len(snap.Pools))
	for _, p := range snap.Pools {
		pools[p.Name] = p
	}
	pinned, replicas := map[string]int{}, map[string]int{}
	for _, p := range snap.Pods {
		if !p.Workload() || p.Terminating || p.Placeholder {
			continue
		}
		if IsReplicaSetPod(p) {
			replicas[p.NodeName]++
		} else {
			pinned[p.NodeName]++
		}
	}
	var out []Node
	for _, n := range snap.Nodes {
		pool := pools[n.Pool]
		if pool == nil || n.InFlight || n.ReservedSlot {
			continue
		}
		t := TierRest
		switch {
		case n.MarkedForDeletion || hasTaintKey(n, v1.TaintKeyDisrupted):
			t = TierGoing
		case slices.Contains(leaving, n.Name):
			t = TierLeaving
		case !removable(pool, n):
			continue
		}
		out = append(out, Node{Name: n.Name, Tier: t, Pinned: pinned[n.Name], Replicas: replicas[n.Name], PricePerHour: n.PricePerHour})
	}
	slices.SortFunc(out, compareNodes)
	pos := 0
	for i := range out {
		if i > 0 && out[i].Tier != out[i-1].Tier {
			pos = 0
		}
		out[i].Cost = base(out[i].Tier) + int32(min(pos, tierWidth-1))
		pos++
	}
	return out
}

// compareNodes orders ranked nodes: by tier; then fewest pods a scale-down cannot remove (a
// node that holds one never empties by scaling down); then fewest ReplicaSet pods (the closest
// to empty); then dearest (the most saved when it empties); then by name.
func compareNodes(a, b Node) int {
	return cmp.Or(
		cmp.Compare(a.Tier, b.Tier),
		cmp.Compare(a.Pinned, b.Pinned),
		cmp.Compare(a.Replicas, b.Replicas),
		cmp.Compare(b.PricePerHour, a.PricePerHour),
		cmp.Compare(a.Name, b.Name),
	)
}

// removable reports whether consolidation may remove n of pool at all: not a static pool's,
// not a pool that never consolidates, not annotated do-not-disrupt (or, where the pool honours
// Karpenter's annotations, karpenter.sh/do-not-disrupt or do-not-consolidate).
func removable(pool *state.Pool, n *state.Node) bool {
	if pool.Static() || pool.Disruption.ConsolidateAfter == nil {
		return false
	}
	keys := []string{v1.AnnotationDoNotDisrupt}
	if !pool.IgnoreKarpenterAnnotations {
		keys = append(keys, v1.AnnotationKarpenterDoNotDisrupt, v1.AnnotationKarpenterDoNotConsolidate)
	}
	for _, k := range keys {
		if n.Annotations[k] == "true" {
			return false
		}
	}
	return true
}

func hasTaintKey(n *state.Node, key string) bool {
	return slices.ContainsFunc(n.Taints, func(t corev1.Taint) bool { return t.Key == key })
}
