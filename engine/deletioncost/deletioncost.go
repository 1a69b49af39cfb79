package deletioncost

import (
	"cmp"
	"maps"
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

// tierWidth is the width of each tier's band of costs: [base, base+tierWidth) with base -300,
// -200 and -100 million, so every ranked pod costs less than an unannotated one (0), and the
// rest's values can be spread with room between them for nodes that join later.
const tierWidth = 100_000_000

// base is the first cost of tier t's band.
func base(t Tier) int32 { return int32(-(3 - int(t)) * tierWidth) }

// Node is one ranked node.
type Node struct {
	Name string
	Tier Tier
	// Rank is the node's place in the ranking, 0 first.
	Rank int
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
	ranked := make(map[string]Node, len(plan.Nodes))
	for _, n := range plan.Nodes {
		ranked[n.Name] = n
	}
	type keyed struct {
		w     Write
		order int
	}
	var writes []keyed
	add := func(p *state.Pod, a Action, cost int32, order int) {
		w := Write{Namespace: p.Namespace, Name: p.Name, UID: p.UID, Node: p.NodeName, Action: a, Cost: cost}
		if w.Still(p.Annotations) {
			writes = append(writes, keyed{w, order})
		}
	}
	byRS := map[string][]*state.Pod{}
	for _, p := range snap.Pods {
		if !IsReplicaSetPod(p) || p.Terminating {
			continue
		}
		rs := p.Namespace + "/" + p.Owner.Name
		_, onRanked := ranked[p.NodeName]
		switch {
		case userOwned[rs] && Owned(p.Annotations), !userOwned[rs] && !onRanked && Owned(p.Annotations):
			add(p, Clear, 0, int(TierRest)+1)
		case !Owned(p.Annotations) && hasKey(p.Annotations, v1.AnnotationPodDeletionCostOwned) && (userOwned[rs] || !onRanked):
			// Tenon's record over someone else's value, or with none: the record goes.
			add(p, Disown, 0, int(TierRest)+2)
		case !userOwned[rs] && onRanked && p.NodeName != "":
			byRS[rs] = append(byRS[rs], p)
		}
	}
	for _, rs := range slices.Sorted(maps.Keys(byRS)) {
		targets := assign(byRS[rs], ranked)
		for _, p := range byRS[rs] {
			n := ranked[p.NodeName]
			if v := Value(p.Annotations); n.Tier < TierRest && Owned(p.Annotations) && v >= base(TierGoing) && v < base(TierRest) {
				// Already below the rest's band: a command's start, which turns a
				// leaving node into a going one, rewrites none of its pods.
				continue
			}
			add(p, Set, targets[p.NodeName], int(n.Tier))
		}
	}
	slices.SortStableFunc(writes, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.w.Key(), b.w.Key()))
	})
	for _, k := range writes {
		plan.Writes = append(plan.Writes, k.w)
	}
	return plan
}

// assign gives each ranked node holding pods (one ReplicaSet's, all on ranked nodes) the deletion
// cost of its pods there, changing as few as it can: the ReplicaSet controller compares only the
// pods of one ReplicaSet, so the values need only be in order within it.
//
//   - A node going or leaving gets a value of its tier's band, below the rest's; which of them
//     goes first does not matter, so a pod that has a value of either band keeps it (Compute).
//   - The rest's nodes need values that rise in rank order within the band. The nodes whose
//     current value (the one Tenon wrote on their pods of this ReplicaSet, pods without one
//     aside) already rises along the longest such run keep it; each node between two kept ones
//     gets a value spread between theirs. So a node joining the ranking, or a pod joining a node,
//     is one node's or one pod's write, not a rewrite of the ReplicaSet. When no value fits
//     between two kept ones, the whole ReplicaSet is spread over the band again.
func assign(pods []*state.Pod, ranked map[string]Node) map[string]int32 {
	current := map[string]int32{}
	conflicting := map[string]bool{}
	seen := map[string]bool{}
	var nodes []Node
	for _, p := range pods {
		n := ranked[p.NodeName]
		if !seen[n.Name] {
			seen[n.Name] = true
			nodes = append(nodes, n)
		}
		if !Owned(p.Annotations) {
			continue
		}
		v := Value(p.Annotations)
		if c, ok := current[n.Name]; ok && c != v {
			conflicting[n.Name] = true
		}
		current[n.Name] = v
	}
	for name := range conflicting {
		delete(current, name)
	}
	slices.SortFunc(nodes, func(a, b Node) int { return cmp.Compare(a.Rank, b.Rank) })
	out := make(map[string]int32, len(nodes))
	var rest []Node
	for i, n := range nodes {
		if n.Tier == TierRest {
			rest = append(rest, n)
			continue
		}
		out[n.Name] = base(n.Tier) + int32(i)
	}
	values := make([]int64, len(rest))
	have := make([]bool, len(rest))
	for i, n := range rest {
		if v, ok := current[n.Name]; ok && v > base(TierRest) && v < 0 {
			values[i], have[i] = int64(v), true
		}
	}
	spread, ok := fillBetween(values, increasing(values, have), int64(base(TierRest)), 0)
	if !ok {
		spread, _ = fillBetween(values, make([]bool, len(rest)), int64(base(TierRest)), 0)
	}
	for i, n := range rest {
		out[n.Name] = int32(spread[i])
	}
	return out
}

// increasing marks the longest strictly rising run (not necessarily contiguous) of the values
// present (have), the leftmost such run when several are as long.
func increasing(values []int64, have []bool) []bool {
	// tails[k] is the index ending the best rising run of length k+1 seen so far; prev links runs.
	var tails []int
	prev := make([]int, len(values))
	for i := range values {
		prev[i] = -1
		if !have[i] {
			continue
		}
		k, _ := slices.BinarySearchFunc(tails, values[i], func(t int, v int64) int { return cmp.Compare(values[t], v) })
		if k > 0 {
			prev[i] = tails[k-1]
		}
		if k == len(tails) {
			tails = append(tails, i)
		} else {
			tails[k] = i
		}
	}
	keep := make([]bool, len(values))
	if len(tails) == 0 {
		return keep
	}
	for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
		keep[i] = true
	}
	return keep
}

// fillBetween returns values with the kept ones unchanged and every other spread evenly between
// its kept neighbours (lo and hi, exclusive, where it has none), or false when some run has no
// room.
func fillBetween(values []int64, keep []bool, lo, hi int64) ([]int64, bool) {
	out := slices.Clone(values)
	start := 0
	for i := 0; i <= len(values); i++ {
		if i < len(values) && !keep[i] {
			continue
		}
		left, right := lo, hi
		if start > 0 {
			left = out[start-1]
		}
		if i < len(values) {
			right = out[i]
		}
		m := int64(i - start)
		if m > 0 && right-left <= m {
			return nil, false
		}
		for j := int64(0); j < m; j++ {
			out[start+int(j)] = left + (right-left)*(j+1)/(m+1)
		}
		start = i + 1
	}
	return out, true
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
	for i := range out {
		out[i].Rank = i
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
