package packing_test

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

func distinctNodes(t *testing.T, r *packing.Result, names ...string) {
	t.Helper()
	seen := map[string]string{}
	for _, n := range names {
		node := nodeOf(r, n)
		if other, ok := seen[node]; ok {
			t.Errorf("%s and %s share %s", n, other, node)
		}
		seen[node] = n
	}
}

func zoneOfPod(r *packing.Result, snap *state.Snapshot, name string) string {
	node := nodeOf(r, name)
	if c := claimOf(r, node); c != nil {
		return c.Chosen().Zone
	}
	for _, n := range snap.Nodes {
		if n.Name == node {
			return n.Zone
		}
	}
	return ""
}

func TestPodAntiAffinity(t *testing.T) {
	def := statetest.Pool("default")
	web := map[string]string{"app": "web"}
	n1 := statetest.Node(def, "n1", "m5.4xlarge", "us-east-1a")
	guard := statetest.Pod("guard", "100m", "100Mi", statetest.WithLabel("role", "guard"), statetest.WithAntiAffinity(scheduling.LabelHostname, web))
	guard.NodeName = "n1"
	runCases(t, []constraintCase{
		{name: "one per node", snap: statetest.Snapshot(statetest.Pools(def), nil, nil), pods: statetest.Pods(3, "w", "1", "1Gi", statetest.WithLabel("app", "web"), statetest.WithAntiAffinity(scheduling.LabelHostname, web)),
			placed: []string{"w-0", "w-1", "w-2"}, check: func(t *testing.T, r *packing.Result) { distinctNodes(t, r, "w-0", "w-1", "w-2") }},
		{name: "zonal: one per zone, the fourth refused", snap: statetest.Snapshot(statetest.Pools(def), nil, nil), pods: statetest.Pods(4, "z", "1", "1Gi", statetest.WithLabel("app", "web"), statetest.WithAntiAffinity(scheduling.LabelTopologyZone, web)),
			placed: []string{"z-0", "z-1", "z-2"}, refused: map[string]string{"z-3": "pod anti-affinity on zone"}},
		{name: "existing pod's anti-affinity repels the incoming pod", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{n1}, []*state.Pod{guard}), pods: one(statetest.Pod("w", "1", "1Gi", statetest.WithLabel("app", "web"))),
			placed: []string{"w"}, check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "w") == "n1" {
					t.Error("placed next to a pod whose anti-affinity forbids it")
				}
			}},
		{name: "preferred anti-affinity spreads", snap: statetest.Snapshot(statetest.Pools(def), nil, nil), pods: statetest.Pods(2, "p", "1", "1Gi", statetest.WithLabel("app", "web"), statetest.WithPreferredAntiAffinity(scheduling.LabelHostname, web)),
			placed: []string{"p-0", "p-1"}, check: func(t *testing.T, r *packing.Result) { distinctNodes(t, r, "p-0", "p-1") }},
	})
}

func TestPodAffinity(t *testing.T) {
	def := statetest.Pool("default")
	n1 := statetest.Node(def, "n1", "m5.4xlarge", "us-east-1b")
	db := statetest.Pod("db", "100m", "100Mi", statetest.WithLabel("app", "db"))
	db.NodeName = "n1"
	dbSel := map[string]string{"app": "db"}
	snap := statetest.Snapshot(statetest.Pools(def), []*state.Node{n1}, []*state.Pod{db})
	runCases(t, []constraintCase{
		{name: "joins its target's node", snap: snap, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithPodAffinity(scheduling.LabelHostname, dbSel))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "a") != "n1" {
					t.Errorf("on %s", nodeOf(r, "a"))
				}
			}},
		{name: "zonal affinity follows the target's zone", snap: snap, pods: one(statetest.Pod("a", "15", "1Gi", statetest.WithPodAffinity(scheduling.LabelTopologyZone, dbSel))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if z := zoneOfPod(r, snap, "a"); z != "us-east-1b" {
					t.Errorf("zone %s", z)
				}
			}},
		{name: "self affinity keeps the group in one zone", snap: statetest.Snapshot(statetest.Pools(def), nil, nil), pods: statetest.Pods(6, "g", "4", "8Gi", statetest.WithLabel("grp", "a"), statetest.WithPodAffinity(scheduling.LabelTopologyZone, map[string]string{"grp": "a"})),
			placed: []string{"g-0", "g-5"}},
		{name: "no target anywhere", snap: snap, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithPodAffinity(scheduling.LabelHostname, map[string]string{"app": "ghost"}))),
			refused: map[string]string{"a": "no pod matches"}},
	})
}

func TestTopologySpread(t *testing.T) {
	def := statetest.Pool("default")
	spot := statetest.Pool("default", statetest.WithSpot())
	onlyA := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, "us-east-1a")))
	taint := []corev1.Taint{{Key: "x", Value: "y", Effect: corev1.TaintEffectNoSchedule}}
	nb := statetest.Node(onlyA, "nb", "m5.large", "us-east-1b")
	nc := statetest.Node(onlyA, "nc", "m5.large", "us-east-1c")
	nb.Taints, nc.Taints = taint, taint
	app := map[string]string{"app": "s"}
	countZones := func(r *packing.Result, snap *state.Snapshot, prefix string, n int) map[string]int {
		out := map[string]int{}
		for i := range n {
			out[zoneOfPod(r, snap, prefix+"-"+strconv.Itoa(i))]++
		}
		return out
	}
	zonal := statetest.Snapshot(statetest.Pools(def), nil, nil)
	runCases(t, []constraintCase{
		{name: "zone spread", snap: zonal, pods: statetest.Pods(6, "s", "1", "1Gi", statetest.WithLabel("app", "s"), statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, app)),
			placed: []string{"s-0", "s-5"}, check: func(t *testing.T, r *packing.Result) {
				for z, n := range countZones(r, zonal, "s", 6) {
					if n != 2 {
						t.Errorf("zone %s has %d", z, n)
					}
				}
			}},
		{name: "hostname spread", snap: zonal, pods: statetest.Pods(4, "h", "100m", "100Mi", statetest.WithLabel("app", "s"), statetest.WithSpread(scheduling.LabelHostname, 1, corev1.DoNotSchedule, app)),
			placed: []string{"h-0", "h-3"}, check: func(t *testing.T, r *packing.Result) { distinctNodes(t, r, "h-0", "h-1", "h-2", "h-3") }},
		{name: "ScheduleAnyway honoured when possible", snap: zonal, pods: statetest.Pods(3, "a", "100m", "100Mi", statetest.WithLabel("app", "s"), statetest.WithSpread(scheduling.LabelHostname, 1, corev1.ScheduleAnyway, app)),
			placed: []string{"a-0", "a-1", "a-2"}, check: func(t *testing.T, r *packing.Result) { distinctNodes(t, r, "a-0", "a-1", "a-2") }},
		{name: "capacity type spread", snap: statetest.Snapshot(statetest.Pools(spot), nil, nil), pods: statetest.Pods(4, "c", "1", "1Gi", statetest.WithLabel("app", "s"), statetest.WithSpread(scheduling.LabelCapacityType, 1, corev1.DoNotSchedule, app)),
			placed: []string{"c-0", "c-3"}, check: func(t *testing.T, r *packing.Result) {
				cts := map[string]int{}
				for i := range 4 {
					cts[claimOf(r, nodeOf(r, "c-"+strconv.Itoa(i))).Chosen().CapacityType]++
				}
				if cts[scheduling.CapacityTypeSpot] != 2 || cts[scheduling.CapacityTypeOnDemand] != 2 {
					t.Errorf("capacity types %v", cts)
				}
			}},
		{name: "skew refused when only one zone can grow", snap: statetest.Snapshot(statetest.Pools(onlyA), []*state.Node{nb, nc}, nil),
			pods:   statetest.Pods(3, "k", "1", "1Gi", statetest.WithLabel("app", "s"), statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, app)),
			placed: []string{"k-0"}, refused: map[string]string{"k-1": "topology spread on zone", "k-2": "topology spread on zone"}},
	})
}
