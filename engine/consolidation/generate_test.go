package consolidation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// benchPool is the bench clusters' pool: general-purpose, compute and
// memory families of the 6th and 7th generations at 4xlarge, on-demand,
// three zones, consolidating at once with a 100% budget.
func benchPool() *state.Pool {
	return testPool("default",
		withReq(scheduling.In(scheduling.LabelInstanceFamily, "c6a", "c6i", "c7a", "c7i", "m6a", "m6i", "m7a", "m7i", "r6a", "r6i", "r7a", "r7i")),
		withReq(scheduling.In(scheduling.LabelInstanceSize, "4xlarge")))
}

// benchPods draws n pods, cpu uniform over {100m, 250m, 500m, 1, 2} and
// memory over {256Mi, 512Mi, 1Gi, 2Gi, 4Gi} per pod, one ReplicaSet per
// (cpu, memory) pair: about 20 to a 4xlarge node.
func benchPods(n int, seed uint64) []*state.Pod {
	r := rand.New(rand.NewPCG(seed, 1))
	cpus := []string{"100m", "250m", "500m", "1", "2"}
	mems := []string{"256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	reqs := map[string]corev1.ResourceList{}
	out := make([]*state.Pod, n)
	for i := range out {
		c, m := cpus[r.IntN(len(cpus))], mems[r.IntN(len(mems))]
		app := strings.ToLower(fmt.Sprintf("app-%s-%s", c, m))
		if reqs[app] == nil {
			reqs[app] = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c), corev1.ResourceMemory: resource.MustParse(m)}
		}
		out[i] = &state.Pod{
			Namespace: "default", Name: fmt.Sprintf("%s-%05d", app, i), Labels: map[string]string{"app": app},
			Requests: reqs[app], Owner: state.Owner{Kind: "ReplicaSet", Name: app},
		}
	}
	return out
}

// packedCluster packs n pods with engine/packing on an empty cluster and
// returns the cluster with every claim a node and every pod bound,
// created a day before t0. Packing skips its second fill and its swap
// move (packing.WithoutSecondFill, packing.WithoutSwap), so the tests and
// benchmarks keep the clusters they were written against.
func packedCluster(tb testing.TB, n int, seed uint64) *state.Snapshot {
	tb.Helper()
	return packedClusterWith(tb, n, seed, packing.WithoutSecondFill(), packing.WithoutSwap())
}

// freshCluster is packedCluster packed as the agent packs: every move of
// engine/packing, so what Plan could still improve is what packing left.
func freshCluster(tb testing.TB, n int, seed uint64) *state.Snapshot {
	tb.Helper()
	return packedClusterWith(tb, n, seed)
}

func packedClusterWith(tb testing.TB, n int, seed uint64, opts ...packing.Option) *state.Snapshot {
	tb.Helper()
	pool := benchPool()
	empty := &state.Snapshot{Pools: []*state.Pool{pool}, Pods: benchPods(n, seed)}
	r, err := packing.Solve(context.Background(), empty, empty.Pods, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	if len(r.Unschedulable) > 0 {
		tb.Fatalf("%d pods unschedulable: %s", len(r.Unschedulable), r.Unschedulable[0].Reason)
	}
	moves := map[string]string{}
	for _, pl := range r.Placements {
		moves[pl.Pod] = pl.Node
	}
	snap, err := applyChanges(empty, nil, moves, r.Claims, t0.Add(-24*time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

// scaledDown deletes each pod with probability frac (seeded).
func scaledDown(snap *state.Snapshot, frac float64, seed uint64) *state.Snapshot {
	r := rand.New(rand.NewPCG(seed, 2))
	out := *snap
	out.Pods = nil
	for _, p := range snap.Pods {
		if p.DaemonSet || r.Float64() >= frac {
			out.Pods = append(out.Pods, p)
		}
	}
	return &out
}

// daemonSets are three DaemonSets on every node, as on a small EKS
// cluster: kube-proxy, aws-node and a log shipper (425m, 456Mi and three
// pod slots a node).
func daemonSets() []*state.DaemonSet {
	mk := func(name, cpu, mem string) *state.DaemonSet {
		return &state.DaemonSet{Namespace: "kube-system", Name: name, Pod: testPod(name, cpu, mem, "", func(p *state.Pod) {
			p.Namespace, p.DaemonSet, p.Owner = "kube-system", true, state.Owner{Kind: "DaemonSet", Name: name}
		})}
	}
	return []*state.DaemonSet{mk("aws-node", "25m", "128Mi"), mk("fluent-bit", "300m", "264Mi"), mk("kube-proxy", "100m", "64Mi")}
}

// daemonCluster packs pods of the bench mix with engine/packing on an
// empty cluster of one pool allowing every amd64 on-demand type in three
// zones (cheap small types, where the daemonsets take a fifth of a node,
// next to large ones) and daemonSets, every claim a node running its
// daemonset pods, and returns it before and after half its workload pods
// were deleted. Packing skips its second fill and swap, as in
// packedCluster.
func daemonCluster(tb testing.TB, pods int, seed uint64) (packed, scaled *state.Snapshot) {
	return daemonClusterOn(tb, testPool("default"), pods, seed)
}

func daemonClusterOn(tb testing.TB, pool *state.Pool, pods int, seed uint64) (packed, scaled *state.Snapshot) {
	tb.Helper()
	empty := &state.Snapshot{Pools: []*state.Pool{pool}, DaemonSets: daemonSets(), Pods: benchPods(pods, seed)}
	r, err := packing.Solve(context.Background(), empty, empty.Pods, packing.WithoutSecondFill(), packing.WithoutSwap())
	if err != nil {
		tb.Fatal(err)
	}
	if len(r.Unschedulable) > 0 {
		tb.Fatalf("%d pods unschedulable: %s", len(r.Unschedulable), r.Unschedulable[0].Reason)
	}
	moves := map[string]string{}
	for _, pl := range r.Placements {
		moves[pl.Pod] = pl.Node
	}
	packed, err = applyChanges(empty, nil, moves, r.Claims, t0.Add(-24*time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	return packed, scaledDown(packed, 0.5, seed)
}
