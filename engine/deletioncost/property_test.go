package deletioncost_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/deletioncost"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestProperties computes random clusters (managed and unmanaged nodes, nodes going, static and
// do-not-disrupt nodes, ReplicaSet and other pods, values users set, values Tenon wrote, stale
// and malformed ones), applies the writes and checks:
//   - in every ReplicaSet Tenon orders, every pod on a node going or leaving (the walk removes it)
//     costs less than every pod elsewhere;
//   - a value Tenon did not write is never changed or removed, and no pod but a ReplicaSet's is
//     written;
//   - in every ReplicaSet Tenon orders, pods on the rest's nodes cost less than pods on nodes not
//     ranked, and rise with their node's rank;
//   - once the writes are applied, computing again writes nothing;
//   - a node joining with new pods costs writes on those pods alone.
func TestProperties(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	checkedPairs, checkedRest := 0, 0
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 23))
		snap, leaving := randomCluster(r)
		before := map[string]map[string]string{}
		for _, p := range snap.Pods {
			before[p.Key()] = maps.Clone(p.Annotations)
		}
		plan := deletioncost.Compute(snap, leaving)
		apply(t, snap, plan)
		for _, p := range snap.Pods {
			b := before[p.Key()]
			if cost, ok := b[v1.AnnotationPodDeletionCost]; ok && !deletioncost.Owned(b) && p.Annotations[v1.AnnotationPodDeletionCost] != cost {
				t.Fatalf("cluster %d: pod %s: the user's deletion cost %q became %q", i, p.Key(), cost, p.Annotations[v1.AnnotationPodDeletionCost])
			}
			if !deletioncost.IsReplicaSetPod(p) && !maps.Equal(b, p.Annotations) {
				t.Fatalf("cluster %d: pod %s of a %s was written", i, p.Key(), p.Owner.Kind)
			}
		}
		pairs, restPairs := checkOrder(t, i, snap, plan)
		checkedPairs += pairs
		checkedRest += restPairs
		if again := deletioncost.Compute(snap, leaving); len(again.Writes) > 0 {
			t.Fatalf("cluster %d: computing again after the writes writes %d more, first %+v", i, len(again.Writes), again.Writes[0])
		}
		joined := joinNode(r, snap)
		for _, w := range deletioncost.Compute(snap, leaving).Writes {
			if !joined[w.Key()] {
				t.Fatalf("cluster %d: a node joining with pods %v rewrites pod %s (%s %d)", i, joined, w.Key(), w.Action, w.Cost)
			}
		}
	}
	if checkedPairs == 0 || checkedRest == 0 {
		t.Fatalf("%d pairs of pods checked, %d of them on two of the rest's nodes: the order was not checked", checkedPairs, checkedRest)
	}
	t.Logf("%d clusters, %d pairs of pods checked, %d of them on two of the rest's nodes", n, checkedPairs, checkedRest)
}

// randomCluster builds a random Snapshot and the walk's leaving nodes.
func randomCluster(r *rand.Rand) (*state.Snapshot, []string) {
	pool := statetest.Pool("default", statetest.WithConsolidation())
	static := statetest.Pool("static", statetest.WithConsolidation(), func(p *state.Pool) { n := int64(1); p.Replicas = &n })
	types := []string{"m5.large", "m5.xlarge", "c5.2xlarge"}
	var nodes []*state.Node
	var pods []*state.Pod
	var leaving []string
	rsNames := []string{"web", "api", "worker"}
	for j := range 2 + r.IntN(8) {
		name := fmt.Sprintf("n%d", j)
		var n *state.Node
		switch r.IntN(10) {
		case 0:
			n = &state.Node{Name: name, InstanceType: "m5.large"}
		case 1:
			n = statetest.Node(static, name, types[r.IntN(3)], "us-east-1a")
		default:
			n = statetest.Node(pool, name, types[r.IntN(3)], "us-east-1a")
		}
		switch r.IntN(8) {
		case 0:
			n.MarkedForDeletion = true
		case 1:
			n.Taints = []corev1.Taint{{Key: v1.TaintKeyDisrupted, Effect: corev1.TaintEffectNoSchedule}}
		case 2:
			n.Annotations = map[string]string{v1.AnnotationDoNotDisrupt: "true"}
		}
		if r.IntN(3) == 0 {
			leaving = append(leaving, name)
		}
		nodes = append(nodes, n)
		for k := range r.IntN(6) {
			pods = append(pods, randomPod(r, fmt.Sprintf("%s-p%d", name, k), name, rsNames))
		}
	}
	for k := range r.IntN(3) {
		pods = append(pods, randomPod(r, fmt.Sprintf("pending-%d", k), "", rsNames))
	}
	return statetest.Snapshot([]*state.Pool{pool, static}, nodes, pods), leaving
}

func randomPod(r *rand.Rand, name, node string, rsNames []string) *state.Pod {
	opts := []statetest.PodOption{statetest.BoundTo(node)}
	switch r.IntN(6) {
	case 0:
		opts = append(opts, statetest.OwnedBy("StatefulSet", "db"))
	case 1:
		opts = append(opts, statetest.OwnedBy("Job", "batch"))
	default:
		opts = append(opts, statetest.OwnedBy("ReplicaSet", rsNames[r.IntN(len(rsNames))]))
	}
	set := func(k, v string) { opts = append(opts, statetest.WithAnnotation(k, v)) }
	switch r.IntN(12) {
	case 0: // a user's value (rare, so most ReplicaSets stay Tenon's)
		set(v1.AnnotationPodDeletionCost, fmt.Sprint(r.IntN(200)-100))
	case 1, 2, 3: // a value Tenon wrote, right or stale
		v := fmt.Sprint(-1_000_000 - r.IntN(3)*1_000_000 + r.IntN(4))
		set(v1.AnnotationPodDeletionCost, v)
		set(v1.AnnotationPodDeletionCostOwned, v)
	case 4: // Tenon's record alone: the value was removed
		set(v1.AnnotationPodDeletionCostOwned, "-1000000")
	}
	if r.IntN(15) == 0 {
		opts = append(opts, func(p *state.Pod) { p.Terminating = true })
	}
	return statetest.Pod(name, "100m", "128Mi", opts...)
}

// joinNode adds to snap a node of the default pool with one to three new pods of its
// ReplicaSets, and returns their keys.
func joinNode(r *rand.Rand, snap *state.Snapshot) map[string]bool {
	name := fmt.Sprintf("joined%d", len(snap.Nodes))
	snap.Nodes = append(snap.Nodes, statetest.Node(snap.Pools[0], name, []string{"m5.large", "m5.xlarge", "c5.2xlarge"}[r.IntN(3)], "us-east-1a"))
	out := map[string]bool{}
	for k := range 1 + r.IntN(3) {
		p := statetest.Pod(fmt.Sprintf("%s-p%d", name, k), "100m", "128Mi", statetest.BoundTo(name),
			statetest.OwnedBy("ReplicaSet", []string{"web", "api", "worker"}[r.IntN(3)]))
		snap.Pods = append(snap.Pods, p)
		out[p.Key()] = true
	}
	return out
}

// apply makes plan's writes on snap's pods, checking each still applies.
func apply(t *testing.T, snap *state.Snapshot, plan *deletioncost.Plan) {
	t.Helper()
	byKey := map[string]*state.Pod{}
	for _, p := range snap.Pods {
		byKey[p.Key()] = p
	}
	for _, w := range plan.Writes {
		p := byKey[w.Key()]
		if !w.Still(p.Annotations) {
			t.Fatalf("write %+v does not apply to the pod it was computed from (%v)", w, p.Annotations)
		}
		a := maps.Clone(p.Annotations)
		if a == nil {
			a = map[string]string{}
		}
		for k, v := range w.Annotations() {
			if v == nil {
				delete(a, k)
			} else {
				a[k] = *v
			}
		}
		p.Annotations = a
	}
}

// checkOrder checks the ranking's order within each ReplicaSet Tenon orders, returning how many
// pairs of pods it compared, and how many of them were on two of the rest's nodes.
func checkOrder(t *testing.T, i int, snap *state.Snapshot, plan *deletioncost.Plan) (pairs, restPairs int) {
	t.Helper()
	tier := map[string]deletioncost.Tier{}
	for _, n := range plan.Nodes {
		tier[n.Name] = n.Tier
	}
	userOwned := map[string]bool{}
	for _, rs := range plan.UserOwned {
		userOwned[rs] = true
	}
	rank := map[string]int{}
	for _, n := range plan.Nodes {
		rank[n.Name] = n.Rank
	}
	// place orders pods for the ReplicaSet controller as the ranking wants: going and leaving
	// (any order between them), then the rest by rank, then nodes not ranked.
	place := func(p *state.Pod) (int, int) {
		tr, ok := tier[p.NodeName]
		switch {
		case !ok:
			return 2, 0
		case tr == deletioncost.TierRest:
			return 1, rank[p.NodeName]
		}
		return 0, 0
	}
	for _, a := range snap.Pods {
		if !deletioncost.IsReplicaSetPod(a) || a.Terminating || a.NodeName == "" || userOwned[a.Namespace+"/"+a.Owner.Name] {
			continue
		}
		ga, ra := place(a)
		for _, b := range snap.Pods {
			if b.Owner != a.Owner || b.Namespace != a.Namespace || b.Terminating || b.NodeName == "" {
				continue
			}
			gb, rb := place(b)
			if ga > gb || (ga == gb && (ga != 1 || ra >= rb)) {
				continue
			}
			pairs++
			if ga == 1 && gb == 1 {
				restPairs++
			}
			if va, vb := deletioncost.Value(a.Annotations), deletioncost.Value(b.Annotations); va >= vb {
				t.Fatalf("cluster %d: pod %s on node %s (group %d, rank %d) costs %d, not less than pod %s on node %s (group %d, rank %d): %d",
					i, a.Key(), a.NodeName, ga, ra, va, b.Key(), b.NodeName, gb, rb, vb)
			}
		}
	}
	return pairs, restPairs
}
