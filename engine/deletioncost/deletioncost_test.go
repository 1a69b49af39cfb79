package deletioncost_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/deletioncost"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

func replicaSet(rs string) statetest.PodOption { return statetest.OwnedBy("ReplicaSet", rs) }

func bound(node string, n int, prefix string, opts ...statetest.PodOption) []*state.Pod {
	return statetest.Pods(n, prefix, "100m", "128Mi", append([]statetest.PodOption{statetest.BoundTo(node)}, opts...)...)
}

func ranking(p *deletioncost.Plan) string {
	var out []string
	for _, n := range p.Nodes {
		out = append(out, fmt.Sprintf("%s:%s", n.Name, n.Tier))
	}
	return strings.Join(out, " ")
}

// TestRanking checks the order of the tiers and of nodes within a tier, and which nodes are not
// ranked at all.
func TestRanking(t *testing.T) {
	pool := statetest.Pool("default", statetest.WithConsolidation())
	static := statetest.Pool("static", statetest.WithConsolidation(), func(p *state.Pool) { r := int64(2); p.Replicas = &r })
	never := statetest.Pool("never", func(p *state.Pool) { p.Disruption.ConsolidateAfter = nil })
	node := func(p *state.Pool, name, typ string, opts ...statetest.NodeOption) *state.Node {
		return statetest.Node(p, name, typ, "us-east-1a", opts...)
	}
	annotated := func(k string) statetest.NodeOption {
		return func(n *state.Node) { n.Annotations = map[string]string{k: "true"} }
	}
	for _, tc := range []struct {
		name    string
		pools   []*state.Pool
		nodes   []*state.Node
		pods    []*state.Pod
		leaving []string
		want    string
	}{{
		name:  "fewest replicas first, then dearest, then by name",
		pools: []*state.Pool{pool},
		nodes: []*state.Node{node(pool, "a", "m5.large"), node(pool, "b", "m5.xlarge"), node(pool, "c", "m5.large"), node(pool, "d", "m5.large")},
		pods: slices.Concat(bound("a", 3, "a", replicaSet("web")), bound("b", 2, "b", replicaSet("web")), bound("c", 2, "c", replicaSet("web")),
			bound("d", 2, "d", replicaSet("web"))),
		want: "b:rest c:rest d:rest a:rest",
	}, {
		name:  "a pod a scale-down cannot remove puts its node after those it can empty",
		pools: []*state.Pool{pool},
		nodes: []*state.Node{node(pool, "a", "m5.large"), node(pool, "b", "m5.large")},
		pods:  slices.Concat(bound("a", 1, "a", replicaSet("web")), bound("a", 1, "db", statetest.OwnedBy("StatefulSet", "db")), bound("b", 4, "b", replicaSet("web"))),
		want:  "b:rest a:rest",
	}, {
		name:  "daemonset and terminating pods do not count",
		pools: []*state.Pool{pool},
		nodes: []*state.Node{node(pool, "a", "m5.large"), node(pool, "b", "m5.large")},
		pods: slices.Concat(bound("a", 2, "a", replicaSet("web")), bound("a", 3, "ds", statetest.OwnedBy("DaemonSet", "ds"), func(p *state.Pod) { p.DaemonSet = true }),
			bound("b", 1, "b", replicaSet("web")), bound("b", 2, "gone", replicaSet("web"), func(p *state.Pod) { p.Terminating = true })),
		want: "b:rest a:rest",
	}, {
		name:  "going before leaving before the rest, whatever their pods",
		pools: []*state.Pool{pool},
		nodes: []*state.Node{node(pool, "a", "m5.large"), node(pool, "b", "m5.large"), node(pool, "c", "m5.large", func(n *state.Node) {
			n.Taints = []corev1.Taint{{Key: v1.TaintKeyDisrupted, Effect: corev1.TaintEffectNoSchedule}}
		}), node(pool, "d", "m5.large", func(n *state.Node) { n.MarkedForDeletion = true })},
		pods:    slices.Concat(bound("a", 1, "a", replicaSet("web")), bound("b", 5, "b", replicaSet("web")), bound("c", 9, "c", replicaSet("web"))),
		leaving: []string{"b"},
		want:    "d:going c:going b:leaving a:rest",
	}, {
		name:  "nodes consolidation may not remove are not ranked unless the walk removes them",
		pools: []*state.Pool{pool, static, never},
		nodes: []*state.Node{node(pool, "a", "m5.large"), node(pool, "dnd", "m5.large", annotated(v1.AnnotationDoNotDisrupt)),
			node(pool, "kdnd", "m5.large", annotated(v1.AnnotationKarpenterDoNotDisrupt)), node(static, "s", "m5.large"), node(never, "n", "m5.large"),
			node(static, "drifted", "m5.large"), {Name: "unmanaged", InstanceType: "m5.large"}},
		pods:    bound("a", 1, "a", replicaSet("web")),
		leaving: []string{"drifted"},
		want:    "drifted:leaving a:rest",
	}, {
		name:  "karpenter's annotations are not read where the pool ignores them",
		pools: []*state.Pool{statetest.Pool("ignore", statetest.WithConsolidation(), func(p *state.Pool) { p.IgnoreKarpenterAnnotations = true })},
		nodes: []*state.Node{node(statetest.Pool("ignore"), "k", "m5.large", annotated(v1.AnnotationKarpenterDoNotConsolidate))},
		want:  "k:rest",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := deletioncost.Compute(statetest.Snapshot(tc.pools, tc.nodes, tc.pods), tc.leaving)
			if got := ranking(p); got != tc.want {
				t.Fatalf("ranking\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func writes(p *deletioncost.Plan) string {
	var out []string
	for _, w := range p.Writes {
		s := w.Name + ":" + w.Action.String()
		if w.Action == deletioncost.Set {
			s += fmt.Sprint(w.Cost)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// TestWrites checks which pods are written and how: only ReplicaSet pods, only when the value
// changes, never a value Tenon did not write, and no pod of a ReplicaSet a user orders.
func TestWrites(t *testing.T) {
	pool := statetest.Pool("default", statetest.WithConsolidation())
	nodes := []*state.Node{statetest.Node(pool, "a", "m5.large", "us-east-1a"), statetest.Node(pool, "b", "m5.large", "us-east-1a"),
		{Name: "unmanaged", InstanceType: "m5.large"}}
	mine := func(v string) statetest.PodOption {
		return func(p *state.Pod) {
			statetest.WithAnnotation(v1.AnnotationPodDeletionCost, v)(p)
			statetest.WithAnnotation(v1.AnnotationPodDeletionCostOwned, v)(p)
		}
	}
	user := func(v string) statetest.PodOption { return statetest.WithAnnotation(v1.AnnotationPodDeletionCost, v) }
	one := func(node, name string, opts ...statetest.PodOption) *state.Pod {
		return statetest.Pod(name, "100m", "128Mi", append([]statetest.PodOption{statetest.BoundTo(node)}, opts...)...)
	}
	for _, tc := range []struct {
		name      string
		pods      []*state.Pod
		leaving   []string
		going     bool // b is being deleted
		want      string
		userOwned string
	}{{
		name: "set on ReplicaSet pods only, leaving first",
		pods: []*state.Pod{one("a", "a1", replicaSet("web")), one("a", "a2", statetest.OwnedBy("StatefulSet", "db")),
			one("b", "b1", replicaSet("web")), one("b", "b2", statetest.OwnedBy("Job", "j")), one("b", "b3")},
		leaving: []string{"b"},
		want:    "b1:set-200000000 a1:set-50000000",
	}, {
		name: "a value already right is not written again",
		// A pod joining a node is written alone, with its node's value.
		pods: []*state.Pod{one("a", "a1", replicaSet("web"), mine("-50000000")), one("a", "a2", replicaSet("web"))},
		want: "a2:set-50000000",
	}, {
		name: "Tenon's value comes off a pod on a node no longer ranked, or pending",
		pods: []*state.Pod{one("unmanaged", "u1", replicaSet("web"), mine("-50000000")), statetest.Pod("p1", "1", "1Gi", replicaSet("web"), mine("-5")),
			one("unmanaged", "u2", replicaSet("web"))},
		want: "p1:clear u1:clear",
	}, {
		name: "a user's value leaves its whole ReplicaSet alone, and Tenon's values come off its other pods",
		pods: []*state.Pod{one("a", "a1", replicaSet("web"), user("100")), one("b", "b1", replicaSet("web"), mine("-999999")),
			one("b", "b2", replicaSet("web")), one("b", "b3", replicaSet("api"))},
		leaving:   []string{"b"},
		want:      "b3:set-200000000 b1:clear",
		userOwned: "default/web",
	}, {
		name: "a value changed since Tenon wrote it is the user's: only Tenon's record comes off",
		pods: []*state.Pod{one("a", "a1", replicaSet("web"), user("7"), statetest.WithAnnotation(v1.AnnotationPodDeletionCostOwned, "-1000000")),
			one("a", "a2", replicaSet("web"))},
		want:      "a1:disown",
		userOwned: "default/web",
	}, {
		name: "a malformed value is still the user's",
		pods: []*state.Pod{one("a", "a1", replicaSet("web"), user("soon"))},
		want: "", userOwned: "default/web",
	}, {
		name:  "a pod on a node going keeps a value of the leaving band; one of the rest's band moves",
		pods:  []*state.Pod{one("b", "b1", replicaSet("web"), mine("-200000003")), one("b", "b2", replicaSet("web"), mine("-50000000"))},
		going: true,
		want:  "b2:set-300000000",
	}, {
		name: "terminating pods are not written",
		pods: []*state.Pod{one("a", "a1", replicaSet("web"), func(p *state.Pod) { p.Terminating = true })},
		want: "",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := slices.Clone(nodes)
			if tc.going {
				b := *nodes[1]
				b.MarkedForDeletion = true
				nodes[1] = &b
			}
			p := deletioncost.Compute(statetest.Snapshot([]*state.Pool{pool}, nodes, tc.pods), tc.leaving)
			if got := writes(p); got != tc.want {
				t.Errorf("writes\n got %s\nwant %s", got, tc.want)
			}
			if got := strings.Join(p.UserOwned, ","); got != tc.userOwned {
				t.Errorf("user-owned ReplicaSets %q, want %q", got, tc.userOwned)
			}
		})
	}
}

// TestStill checks the re-read before each write: a value someone else wrote in between is never
// overwritten or removed.
func TestStill(t *testing.T) {
	set := deletioncost.Write{Action: deletioncost.Set, Cost: -5}
	clear := deletioncost.Write{Action: deletioncost.Clear}
	disown := deletioncost.Write{Action: deletioncost.Disown}
	cost, owned := v1.AnnotationPodDeletionCost, v1.AnnotationPodDeletionCostOwned
	for _, tc := range []struct {
		name        string
		w           deletioncost.Write
		annotations map[string]string
		want        bool
	}{
		{"set on a pod without a cost", set, nil, true},
		{"set over Tenon's other value", set, map[string]string{cost: "-4", owned: "-4"}, true},
		{"set over the same value", set, map[string]string{cost: "-5", owned: "-5"}, false},
		{"set over a user's value", set, map[string]string{cost: "-4"}, false},
		{"set over a value changed after Tenon's", set, map[string]string{cost: "3", owned: "-4"}, false},
		{"clear Tenon's value", clear, map[string]string{cost: "-4", owned: "-4"}, true},
		{"clear a user's value", clear, map[string]string{cost: "-4"}, false},
		{"disown a changed value", disown, map[string]string{cost: "3", owned: "-4"}, true},
		{"disown Tenon's own value", disown, map[string]string{cost: "-4", owned: "-4"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.Still(tc.annotations); got != tc.want {
				t.Fatalf("Still = %v, want %v", got, tc.want)
			}
		})
	}
}
