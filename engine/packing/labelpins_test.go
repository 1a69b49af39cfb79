package packing_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// labelOfPod is the value of key on the node (new or existing) pod went to.
func labelOfPod(r *packing.Result, snap *state.Snapshot, pod, key string) string {
	node := nodeOf(r, pod)
	if c := claimOf(r, node); c != nil {
		return c.Labels[key]
	}
	if snap != nil {
		for _, n := range snap.Nodes {
			if n.Name == node {
				return n.Labels[key]
			}
		}
	}
	return ""
}

// spreadCounts are the pods per value of key among those named.
func spreadCounts(r *packing.Result, snap *state.Snapshot, key string, pods ...string) map[string]int {
	out := map[string]int{}
	for _, p := range pods {
		if v := labelOfPod(r, snap, p, key); v != "" {
			out[v]++
		}
	}
	return out
}

func withPolicies(affinity, taints *corev1.NodeInclusionPolicy) statetest.PodOption {
	return func(p *state.Pod) {
		for i := range p.TopologySpread {
			p.TopologySpread[i].NodeAffinityPolicy = affinity
			p.TopologySpread[i].NodeTaintsPolicy = taints
		}
	}
}

func withMinDomains(n int32) statetest.PodOption {
	return func(p *state.Pod) {
		for i := range p.TopologySpread {
			p.TopologySpread[i].MinDomains = &n
		}
	}
}

func terminating(p *state.Pod) { p.Terminating = true }

// labelled returns node n with label key=value added.
func labelled(n *state.Node, key, value string) *state.Node {
	n.Labels = maps.Clone(n.Labels)
	n.Labels[key] = value
	return n
}

func TestSpreadOnAnyLabel(t *testing.T) {
	app := map[string]string{"app": "web"}
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	racks := statetest.Pool("racks", statetest.WithRequirement(scheduling.In("rack", "r1", "r2", "r3")))
	teamA := statetest.Pool("team-a", statetest.WithTemplateLabel("team", "a"))
	teamB := statetest.Pool("team-b", statetest.WithTemplateLabel("team", "b"), statetest.WithTaint("team", "b", corev1.TaintEffectNoSchedule))
	archs := statetest.Pool("archs", statetest.WithRequirement(scheduling.In(scheduling.LabelArch, scheduling.ArchAMD64, scheduling.ArchARM64)))
	spread := func(key string) statetest.PodOption {
		return statetest.WithSpread(key, 1, corev1.DoNotSchedule, app)
	}
	// A full node with team=c keeps one matching pod: a domain that
	// counts 1 and can take no more.
	def := statetest.Pool("default")
	full := labelled(statetest.Node(def, "full", "m5.large", "us-east-1a"), "team", "c")
	fullPods := []*state.Pod{statetest.Pod("filler", "1900m", "1Gi", statetest.BoundTo("full"), statetest.WithLabel("app", "web"))}
	runCases(t, []constraintCase{
		{name: "custom key of a multi-valued requirement: one value per node, balanced", snap: statetest.Snapshot(statetest.Pools(racks), nil, nil),
			pods: statetest.Pods(6, "p", "1", "1Gi", statetest.WithLabel("app", "web"), spread("rack")), placed: []string{"p-0", "p-1", "p-2", "p-3", "p-4", "p-5"},
			check: func(t *testing.T, r *packing.Result) {
				if got := spreadCounts(r, nil, "rack", "p-0", "p-1", "p-2", "p-3", "p-4", "p-5"); got["r1"] != 2 || got["r2"] != 2 || got["r3"] != 2 {
					t.Errorf("pods per rack %v, want 2 each", got)
				}
			}},
		{name: "fewer domains than minDomains: each counts as if another held none", snap: statetest.Snapshot(statetest.Pools(statetest.Pool("two", statetest.WithRequirement(scheduling.In("rack", "r1", "r2")))), nil, nil),
			pods: statetest.Pods(4, "p", "1", "1Gi", statetest.WithLabel("app", "web"), spread("rack"), withMinDomains(3)), placed: []string{"p-0", "p-1"},
			refused: map[string]string{"p-2": "maxSkew", "p-3": "maxSkew"}},
		{name: "arch", snap: statetest.Snapshot(statetest.Pools(archs), nil, nil),
			pods: statetest.Pods(4, "p", "1", "1Gi", statetest.WithLabel("app", "web"), spread(scheduling.LabelArch)), placed: []string{"p-0", "p-1", "p-2", "p-3"},
			check: func(t *testing.T, r *packing.Result) {
				if got := spreadCounts(r, nil, scheduling.LabelArch, "p-0", "p-1", "p-2", "p-3"); got[scheduling.ArchAMD64] != 2 || got[scheduling.ArchARM64] != 2 {
					t.Errorf("pods per arch %v, want 2 each", got)
				}
			}},
		{name: "tainted pool's domain counts by default (nodeTaintsPolicy Ignore)", snap: statetest.Snapshot(statetest.Pools(teamA, teamB), nil, nil),
			pods: statetest.Pods(2, "p", "1", "1Gi", statetest.WithLabel("app", "web"), spread("team")), placed: []string{"p-0"}, refused: map[string]string{"p-1": "maxSkew"}},
		{name: "tainted pool's domain left out under nodeTaintsPolicy Honor", snap: statetest.Snapshot(statetest.Pools(teamA, teamB), nil, nil),
			pods: statetest.Pods(2, "p", "1", "1Gi", statetest.WithLabel("app", "web"), spread("team"), withPolicies(nil, &honor)), placed: []string{"p-0", "p-1"}},
		{name: "a node the pod's affinity excludes is left out (nodeAffinityPolicy Honor)", snap: statetest.Snapshot(statetest.Pools(teamA), []*state.Node{full}, fullPods),
			pods:   statetest.Pods(3, "p", "1", "1Gi", statetest.WithLabel("app", "web"), spread("team"), statetest.WithNodeSelector("team", "a"), withPolicies(&honor, nil)),
			placed: []string{"p-0", "p-1", "p-2"}},
		{name: "and counted under nodeAffinityPolicy Ignore", snap: statetest.Snapshot(statetest.Pools(teamA), []*state.Node{full}, fullPods),
			pods:   statetest.Pods(3, "p", "1", "1Gi", statetest.WithLabel("app", "web"), spread("team"), statetest.WithNodeSelector("team", "a"), withPolicies(&ignore, nil)),
			placed: []string{"p-0", "p-1"}, refused: map[string]string{"p-2": "maxSkew"}},
	})
}

func TestSpreadSkipsTerminatingPods(t *testing.T) {
	app := map[string]string{"app": "web"}
	ignore := corev1.NodeInclusionPolicyIgnore
	def := statetest.Pool("default", statetest.WithRequirement(scheduling.In("rack", "r1", "r2")))
	n1 := labelled(statetest.Node(def, "n1", "m5.4xlarge", "us-east-1a"), "rack", "r1")
	n2 := labelled(statetest.Node(def, "n2", "m5.4xlarge", "us-east-1a"), "rack", "r2")
	bound := func(name, node string, opts ...statetest.PodOption) *state.Pod {
		return statetest.Pod(name, "100m", "100Mi", append([]statetest.PodOption{statetest.BoundTo(node), statetest.WithLabel("app", "web")}, opts...)...)
	}
	// The pod may only go to rack r1 but both racks count: r1 holds one
	// running and one terminating pod, r2 one running pod.
	pending := statetest.Pod("p", "1", "1Gi", statetest.WithLabel("app", "web"), statetest.WithNodeSelector("rack", "r1"),
		statetest.WithSpread("rack", 1, corev1.DoNotSchedule, app), withPolicies(&ignore, nil))
	runCases(t, []constraintCase{
		{name: "terminating pod not counted", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{n1, n2}, []*state.Pod{bound("a", "n1"), bound("b", "n1", terminating), bound("c", "n2")}),
			pods: one(pending), placed: []string{"p"}},
		{name: "running pod counted", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{n1, n2}, []*state.Pod{bound("a", "n1"), bound("b", "n1"), bound("c", "n2")}),
			pods: one(pending), refused: map[string]string{"p": "maxSkew"}},
	})
}

func TestPodAffinityOnAnyLabel(t *testing.T) {
	archs := statetest.Pool("archs", statetest.WithRequirement(scheduling.In(scheduling.LabelArch, scheduling.ArchAMD64, scheduling.ArchARM64)))
	racks := statetest.Pool("racks", statetest.WithRequirement(scheduling.In("rack", "r1", "r2", "r3")))
	db := map[string]string{"app": "db"}
	runCases(t, []constraintCase{
		{name: "follows the target's arch", snap: statetest.Snapshot(statetest.Pools(archs), nil, nil),
			pods: []*state.Pod{
				statetest.Pod("db", "2", "1Gi", statetest.WithLabel("app", "db"), statetest.WithNodeSelector(scheduling.LabelArch, scheduling.ArchARM64)),
				statetest.Pod("web", "8", "1Gi", statetest.WithPodAffinity(scheduling.LabelArch, db)),
			}, placed: []string{"db", "web"},
			check: func(t *testing.T, r *packing.Result) {
				if a := labelOfPod(r, nil, "web", scheduling.LabelArch); a != scheduling.ArchARM64 {
					t.Errorf("web on arch %q, want arm64 like db", a)
				}
			}},
		{name: "self-affine pods share one value of a custom key", snap: statetest.Snapshot(statetest.Pools(racks), nil, nil),
			pods: statetest.Pods(3, "p", "6", "1Gi", statetest.WithLabel("app", "db"), statetest.WithPodAffinity("rack", db)), placed: []string{"p-0", "p-1", "p-2"},
			check: func(t *testing.T, r *packing.Result) {
				got := spreadCounts(r, nil, "rack", "p-0", "p-1", "p-2")
				if len(got) != 1 || slices.Collect(maps.Values(got))[0] != 3 {
					t.Errorf("pods per rack %v, want all three in one", got)
				}
			}},
	})
}

func TestMaxSkewWithUnevenDomains(t *testing.T) {
	app := map[string]string{"app": "web"}
	pool := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, "us-east-1c")))
	n1 := statetest.Node(pool, "n1", "m5.large", "us-east-1a")
	n2 := statetest.Node(pool, "n2", "m5.large", "us-east-1b")
	spread := statetest.WithSpread(scheduling.LabelTopologyZone, 5, corev1.DoNotSchedule, app)
	bound := []*state.Pod{
		statetest.Pod("a", "1100m", "1Gi", statetest.BoundTo("n1"), statetest.WithLabel("app", "web"), spread),
		statetest.Pod("b", "1100m", "1Gi", statetest.BoundTo("n2"), statetest.WithLabel("app", "web"), spread),
	}
	pods := statetest.Pods(10, "p", "1100m", "1Gi", statetest.WithLabel("app", "web"), spread)
	snap := statetest.Snapshot(statetest.Pools(pool), []*state.Node{n1, n2}, bound)
	r := solveChecked(t, snap, pods)
	// Zones hold 1, 1 and 0; the full nodes take no more, so up to 1+5
	// go to the empty zone, the only one the pool can use.
	if got := len(r.Placements); got != 6 {
		t.Errorf("%d placed, want 6 (maxSkew 5 above the least zone, which holds 1)", got)
	}
	for _, u := range r.Unschedulable {
		if !strings.Contains(u.Reason, "maxSkew") {
			t.Errorf("%s: reason %q does not name maxSkew", u.Pod, u.Reason)
		}
	}
}
