package consolidation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// tierLabel is the node label the random daemonsets select nodes by.
const tierLabel = "example.com/tier"

// withRandomDaemonSets adds to a random cluster two to four daemonsets,
// each running everywhere, on the nodes of one tier by nodeSelector, or on
// them by required node affinity; labels each node with a random tier and
// binds each daemonset's pod to a node it runs on only now and then (a
// node just registered, or a daemonset just created, has none yet).
// Nodes whose pods leave no room for their daemonsets are fine: the
// property is about the nodes a plan sends pods to.
func withRandomDaemonSets(r *rand.Rand, s *state.Snapshot) {
	tiers := []string{"edge", "core"}
	for i := range 2 + r.IntN(3) {
		name := fmt.Sprintf("ds%d", i)
		cpu := []string{"100m", "250m", "500m", "1"}[r.IntN(4)]
		mem := []string{"128Mi", "512Mi", "1Gi"}[r.IntN(3)]
		var opt statetest.PodOption
		switch r.IntN(3) {
		case 1:
			opt = statetest.WithNodeSelector(tierLabel, tiers[r.IntN(2)])
		case 2:
			opt = statetest.WithRequiredNodeAffinity(tierLabel, corev1.NodeSelectorOpIn, tiers[r.IntN(2)])
		}
		ds := statetest.DaemonSet(name, cpu, mem)
		if opt != nil {
			opt(ds.Pod)
		}
		ds.Pod.DaemonSet, ds.Pod.Owner = true, state.Owner{Kind: "DaemonSet", Name: name}
		s.DaemonSets = append(s.DaemonSets, ds)
	}
	for _, n := range s.Nodes {
		n.Labels[tierLabel] = tiers[r.IntN(2)]
	}
	for _, n := range s.Nodes {
		for _, ds := range s.DaemonSets {
			if !ds.RunsOn(n.Labels, n.Taints) || r.IntN(2) == 0 {
				continue
			}
			dp := *ds.Pod
			dp.Name, dp.NodeName, dp.StartTime = ds.Name+"-"+n.Name, n.Name, t0.Add(-23*time.Hour)
			s.Pods = append(s.Pods, &dp)
		}
	}
	sortPods(s)
}

// TestDaemonSetRoomReserved plans over random clusters with daemonsets,
// some selecting only some nodes, whose pods are on some nodes and not yet
// on others: every node a plan sends pods to must, after the plan, hold
// its workload pods and every daemonset that runs on it, bound yet or not
// (Karpenter reserves the same room), in cpu, memory and pod slots.
func TestDaemonSetRoomReserved(t *testing.T) {
	n := 150
	if testing.Short() || raceEnabled {
		n = 40
	}
	moved := 0
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 22))
		snap := randomSnapshot(r)
		withRandomDaemonSets(r, snap)
		res, err := Plan(context.Background(), snap, t0, DefaultOptions())
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		after, err := Apply(snap, res)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		receiving := map[string]bool{}
		for _, c := range res.Commands {
			for _, m := range c.Moves {
				receiving[m.To] = receiving[m.To] || m.To != ""
			}
		}
		for _, node := range after.Nodes {
			if !receiving[node.Name] {
				continue
			}
			moved++
			if over := overcommit(after, node); over != "" {
				t.Errorf("scenario %d: node %s receives pods and is overcommitted once its daemonsets run: %s", i, node.Name, over)
			}
		}
	}
	if moved == 0 {
		t.Fatal("no plan moved a pod: the property was not exercised")
	}
}

// overcommit says what node lacks once every daemonset that runs on it has
// its pod there, or "".
func overcommit(s *state.Snapshot, node *state.Node) string {
	cpu, mem, slots := node.Allocatable.Cpu().MilliValue(), node.Allocatable.Memory().Value(), node.Allocatable.Pods().Value()
	bound := map[string]bool{}
	for _, p := range s.Pods {
		if p.NodeName != node.Name {
			continue
		}
		c, m := podRequests(p)
		cpu, mem, slots = cpu-c, mem-m, slots-1
		if p.DaemonSet {
			bound[p.Owner.Name] = true
		}
	}
	for _, ds := range s.DaemonSets {
		if bound[ds.Name] || !ds.RunsOn(node.Labels, node.Taints) {
			continue
		}
		c, m := podRequests(ds.Pod)
		cpu, mem, slots = cpu-c, mem-m, slots-1
	}
	if cpu < 0 || mem < 0 || slots < 0 {
		return fmt.Sprintf("%dm cpu, %d bytes of memory, %d pod slots left", cpu, mem, slots)
	}
	return ""
}
