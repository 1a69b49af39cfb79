package packing_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// cacheScenarios is how many random clusters TestCache drains.
const cacheScenarios = 150

// TestCache is the cache's contract: on random clusters (randomScenario's
// pools and pending pods, plus 4 to 24 nodes with bound pods of every kind
// the compiled nodes count: spread, anti-affinity, host ports, extended
// resources, and daemonset pods on some nodes only), a Solve with a Cache
// returns exactly what it returns without one, for every Solve of a
// sequence sharing the Cache: several drains of one cluster (some nodes
// marked for deletion, their pods pending again, as consolidation
// simulates), a second cluster with other pods between them, and last the
// first cluster after a commit (a new pod list sharing the pods it did not
// move, as consolidation's plans make them). With
// WithoutLowerBound as well, the result differs only in the bound, 0.
func TestCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 7))
	hits := 0
	for i := range cacheScenarios {
		a := cacheCluster(rng)
		b := cacheCluster(rng)
		c := packing.NewCache()
		for j := range 6 {
			base := a
			switch j {
			case 3:
				base = b
			case 5:
				base = moved(rng, a)
			}
			snap, pending := drain(rng, base)
			want, err := packing.Solve(context.Background(), snap, pending)
			if err != nil {
				t.Fatal(err)
			}
			got, err := packing.Solve(context.Background(), snap, pending, packing.WithCache(c))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("scenario %d, solve %d: with a cache\n%+v\nwithout\n%+v", i, j, got, want)
			}
			unbounded, err := packing.Solve(context.Background(), snap, pending, packing.WithCache(c), packing.WithoutLowerBound())
			if err != nil {
				t.Fatal(err)
			}
			want.LowerBoundPerHour = 0
			if !reflect.DeepEqual(unbounded, want) {
				t.Fatalf("scenario %d, solve %d: without the lower bound\n%+v\nwith it\n%+v", i, j, unbounded, want)
			}
			if j == 1 || j == 2 || j == 4 {
				hits++
			}
		}
	}
	if hits == 0 {
		t.Fatal("no Solve reused a cached cluster")
	}
}

// cacheCluster is a random cluster for TestCache.
func cacheCluster(rng *rand.Rand) *state.Snapshot {
	snap, pending, _ := randomScenario(rng)
	if rng.IntN(2) == 0 {
		snap.DaemonSets = append(snap.DaemonSets, statetest.DaemonSet("logs", "50m", "64Mi",
			statetest.WithNodeSelector(scheduling.LabelTopologyZone, pick(rng, statetest.Zones))))
	}
	pods := append([]*state.Pod(nil), snap.Pods...)
	for i := range 4 + rng.IntN(21) {
		p := pick(rng, snap.Pools)
		if len(p.InstanceTypes) == 0 {
			continue
		}
		it := pick(rng, p.InstanceTypes)
		n := statetest.Node(p, fmt.Sprintf("n%02d", i), it.Name, pick(rng, statetest.Zones))
		n.Taints = p.Taints
		n.Initialized = rng.IntN(5) > 0
		snap.Nodes = append(snap.Nodes, n)
		for _, ds := range snap.DaemonSets {
			if rng.IntN(2) == 0 {
				dp := statetest.Pod(fmt.Sprintf("%s-%s", ds.Name, n.Name), "50m", "64Mi")
				dp.DaemonSet, dp.Owner, dp.NodeName = true, state.Owner{Kind: "DaemonSet", Name: ds.Name}, n.Name
				pods = append(pods, dp)
			}
		}
		for j := range rng.IntN(5) {
			app := pick(rng, []string{"a", "b"})
			sel := map[string]string{"app": app}
			opts := []statetest.PodOption{statetest.WithLabel("app", app)}
			switch rng.IntN(8) {
			case 0:
				opts = append(opts, statetest.WithAntiAffinity(scheduling.LabelHostname, sel))
			case 1:
				opts = append(opts, statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, sel))
			case 2:
				opts = append(opts, statetest.WithHostPort(int32(8080+rng.IntN(2))))
			}
			bp := statetest.Pod(fmt.Sprintf("w-%s-%d", n.Name, j), pick(rng, []string{"100m", "250m", "1"}), pick(rng, []string{"128Mi", "512Mi", "1Gi"}), opts...)
			if rng.IntN(10) == 0 {
				bp.Requests["example.com/dongle"] = resource.MustParse("1")
			}
			bp.NodeName = n.Name
			pods = append(pods, bp)
		}
	}
	snap.Pods = append(pods, pending...)
	return snap
}

// drain marks a random third of snap's nodes for deletion, in copies, and
// returns the snapshot (sharing snap's pod list, as consolidation's
// simulations do) with the pods to place: the drained nodes' workload
// pods and the pending ones.
func drain(rng *rand.Rand, snap *state.Snapshot) (*state.Snapshot, []*state.Pod) {
	out := *snap
	out.Nodes = make([]*state.Node, len(snap.Nodes))
	gone := map[string]bool{}
	for i, n := range snap.Nodes {
		out.Nodes[i] = n
		if rng.IntN(3) == 0 {
			c := *n
			c.MarkedForDeletion = true
			out.Nodes[i] = &c
			gone[n.Name] = true
		}
	}
	var pending []*state.Pod
	for _, p := range snap.Pods {
		if p.NodeName == "" || (gone[p.NodeName] && !p.DaemonSet) {
			pending = append(pending, p)
		}
	}
	return &out, pending
}

// moved is snap with a new pod list that shares every pod but one bound
// workload pod, moved to another node as a copy.
func moved(rng *rand.Rand, snap *state.Snapshot) *state.Snapshot {
	out := *snap
	out.Pods = append([]*state.Pod(nil), snap.Pods...)
	if len(snap.Nodes) == 0 {
		return &out
	}
	for i, p := range out.Pods {
		if p.NodeName != "" && !p.DaemonSet {
			c := *p
			c.NodeName = pick(rng, snap.Nodes).Name
			out.Pods[i] = &c
			break
		}
	}
	return &out
}
