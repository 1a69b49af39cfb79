package consolidation

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

const (
	zoneA = "us-east-1a"
	od    = "on-demand"
	spot  = "spot"
)

// ruleCase is one scenario: what Plan must remove (and why) and what it
// must keep, with the reason text.
type ruleCase struct {
	name string
	snap func() *state.Snapshot
	opts func(*Options)
	now  time.Time
	// removed maps each node removed to the reason of its command.
	removed map[string]Reason
	// kept maps nodes to the exact reason; a value ending in "…" is a
	// prefix.
	kept map[string]string
	// check inspects anything else.
	check func(t *testing.T, res *Result)
}

func halfFull(p *state.Pool, names ...string) ([]*state.Node, []*state.Pod) {
	var nodes []*state.Node
	var pods []*state.Pod
	for _, n := range names {
		nodes = append(nodes, testNode(p, n, "m5.xlarge", zoneA, od))
		pods = append(pods, testPod("web-"+n, "1", "2Gi", n))
	}
	return nodes, pods
}

func one(p *state.Pool, mutate func(*state.Node, *state.Pod)) func() *state.Snapshot {
	return func() *state.Snapshot {
		nodes, pods := halfFull(p, "n1", "n2")
		if mutate != nil {
			mutate(nodes[0], pods[0])
		}
		return snapshot([]*state.Pool{p}, nodes, pods)
	}
}

func emptyNodes(p *state.Pool, n int) func() *state.Snapshot {
	return func() *state.Snapshot {
		var nodes []*state.Node
		for i := range n {
			nodes = append(nodes, testNode(p, "e"+string(rune('1'+i)), "m5.large", zoneA, od))
		}
		return snapshot([]*state.Pool{p}, nodes, nil)
	}
}

func pdb(name, app string, minAvailable *intstr.IntOrString, maxUnavailable *intstr.IntOrString) *state.PDB {
	return &state.PDB{Namespace: "default", Name: name, Selector: labels.SelectorFromSet(labels.Set{"app": app}),
		MinAvailable: minAvailable, MaxUnavailable: maxUnavailable, DisruptionsAllowed: -1}
}

func ptr[T any](v T) *T { return &v }

// fixedPool may launch only these instance types, so tests can tell a
// deletion from a cheaper replacement.
func fixedPool(types ...string) *state.Pool {
	if len(types) == 0 {
		types = []string{"m5.xlarge"}
	}
	return testPool("default", withReq(scheduling.In(scheduling.LabelInstanceType, types...)))
}

func TestRules(t *testing.T) {
	dur := func(s string) *time.Duration { d, _ := time.ParseDuration(s); return &d }
	cases := []ruleCase{
		{
			name: "emptiness removes a node with only daemonset pods",
			snap: func() *state.Snapshot {
				p := testPool("default")
				s := snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "e1", "m5.large", zoneA, od)}, nil)
				s.Pods = []*state.Pod{testPod("logs-e1", "100m", "128Mi", "e1", func(p *state.Pod) {
					p.DaemonSet, p.Owner = true, state.Owner{Kind: "DaemonSet", Name: "logs"}
				})}
				return s
			},
			removed: map[string]Reason{"e1": ReasonEmpty},
		},
		{
			name: "emptiness waits consolidateAfter since the last pod event",
			snap: func() *state.Snapshot {
				p := testPool("default", withConsolidateAfter(5*time.Minute))
				n := testNode(p, "e1", "m5.large", zoneA, od)
				n.LastPodEventTime = t0.Add(-2*time.Minute - 10*time.Second)
				return snapshot([]*state.Pool{p}, []*state.Node{n}, nil)
			},
			kept: map[string]string{"e1": "empty, but consolidateAfter 5m not elapsed (node stable for 2m10s)"},
		},
		{
			name: "a Provisioner's ttlSecondsAfterEmpty (WhenEmpty, 30s) removes empty nodes only",
			snap: func() *state.Snapshot {
				p := testPool("default", withConsolidateAfter(30*time.Second), func(p *state.Pool) {
					p.Kind = state.PoolKindProvisioner
					p.Disruption.ConsolidationPolicy = string(v1.ConsolidationPolicyWhenEmpty)
				})
				nodes, pods := halfFull(p, "n1", "n2")
				nodes = append(nodes, testNode(p, "e1", "m5.large", zoneA, od))
				return snapshot([]*state.Pool{p}, nodes, pods)
			},
			removed: map[string]Reason{"e1": ReasonEmpty},
			kept: map[string]string{
				"n1": "nodepool default consolidates only empty nodes (WhenEmpty)",
				"n2": "nodepool default consolidates only empty nodes (WhenEmpty)",
			},
		},
		{
			name: "consolidateAfter Never turns consolidation off",
			snap: func() *state.Snapshot {
				p := testPool("default", func(p *state.Pool) { p.Disruption.ConsolidateAfter = nil })
				nodes, pods := halfFull(p, "n1", "n2")
				return snapshot([]*state.Pool{p}, nodes, pods)
			},
			kept: map[string]string{"n1": "consolidation is off for nodepool default (consolidateAfter Never)"},
		},
		{
			name:    "underutilized: delete a node whose pods fit on another",
			snap:    one(fixedPool(), nil),
			removed: map[string]Reason{"n1": ReasonUnderutilized},
			kept:    map[string]string{"n2": "receives pods or was launched in this plan"},
			check: func(t *testing.T, res *Result) {
				c := res.Commands[0]
				if len(c.Replacements) != 0 || len(c.Moves) != 1 || c.Moves[0].To != "n2" || c.CostAfterPerHour != 0 {
					t.Errorf("want a deletion moving web-n1 to n2, got %+v", c)
				}
			},
		},
		{
			name: "underutilized: replace a node with a strictly cheaper one",
			snap: func() *state.Snapshot {
				p := testPool("default")
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "big", "m5.4xlarge", zoneA, od)},
					[]*state.Pod{testPod("web-1", "1", "2Gi", "big")})
			},
			removed: map[string]Reason{"big": ReasonUnderutilized},
			check: func(t *testing.T, res *Result) {
				c := res.Commands[0]
				if len(c.Replacements) != 1 || c.CostAfterPerHour >= c.CostBeforePerHour || !strings.HasPrefix(c.Detail, "replace the node with 1 node") {
					t.Errorf("want one cheaper replacement, got %+v", c)
				}
			},
		},
		{
			// A daemonset takes 1 cpu per node: no node alone can shrink
			// and none can take another's pod, but all three fit one
			// m5.2xlarge.
			name: "underutilized: merge three nodes into one cheaper node",
			snap: func() *state.Snapshot {
				p := testPool("default", withReq(scheduling.In(scheduling.LabelInstanceFamily, "m5")))
				ds := &state.DaemonSet{Namespace: "default", Name: "agent", Pod: testPod("agent", "1", "256Mi", "", func(p *state.Pod) {
					p.DaemonSet, p.Owner = true, state.Owner{Kind: "DaemonSet", Name: "agent"}
				})}
				var nodes []*state.Node
				var pods []*state.Pod
				for _, n := range []string{"a", "b", "c"} {
					nodes = append(nodes, testNode(p, n, "m5.xlarge", zoneA, od))
					pods = append(pods, testPod("web-"+n, "2", "2Gi", n), testPod("agent-"+n, "1", "256Mi", n, func(p *state.Pod) {
						p.DaemonSet, p.Owner = true, state.Owner{Kind: "DaemonSet", Name: "agent"}
					}))
				}
				s := snapshot([]*state.Pool{p}, nodes, pods)
				s.DaemonSets = []*state.DaemonSet{ds}
				return s
			},
			removed: map[string]Reason{"a": ReasonUnderutilized, "b": ReasonUnderutilized, "c": ReasonUnderutilized},
			check: func(t *testing.T, res *Result) {
				c := res.Commands[0]
				if len(res.Commands) != 1 || len(c.Replacements) != 1 || c.Replacements[0].InstanceType != "m5.2xlarge" || !strings.HasPrefix(c.Detail, "merge 3 nodes into 1 node (m5.2xlarge), $0.384/h instead of $0.576/h") {
					t.Errorf("want a merge of a, b and c into one m5.2xlarge, got %+v", res.Commands)
				}
			},
		},
		{
			// The daemonset (1 cpu) runs on both nodes but has no pod on
			// either yet (just registered): web-b fits a's 1.92 spare cpu
			// only if the plan forgets the daemonset's pod coming to a.
			name: "underutilized: room for a daemonset pod not yet on an existing node is reserved",
			snap: func() *state.Snapshot {
				p := testPool("default", withReq(scheduling.In(scheduling.LabelInstanceType, "m5.xlarge")))
				ds := &state.DaemonSet{Namespace: "default", Name: "agent", Pod: testPod("agent", "1", "256Mi", "")}
				nodes := []*state.Node{testNode(p, "a", "m5.xlarge", zoneA, od), testNode(p, "b", "m5.xlarge", zoneA, od)}
				pods := []*state.Pod{testPod("web-a", "2", "2Gi", "a"), testPod("web-b", "1500m", "2Gi", "b")}
				s := snapshot([]*state.Pool{p}, nodes, pods)
				s.DaemonSets = []*state.DaemonSet{ds}
				return s
			},
			kept: map[string]string{"a": "no cheaper placement…", "b": "no cheaper placement…"},
		},
		{
			name: "never the same type at the same price",
			snap: func() *state.Snapshot {
				p := testPool("default", withReq(scheduling.In(scheduling.LabelInstanceType, "m5.xlarge")))
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.xlarge", zoneA, od)},
					[]*state.Pod{testPod("web-1", "3", "8Gi", "n1")})
			},
			kept: map[string]string{"n1": "no cheaper placement: a replacement would be m5.xlarge again at $0.192/h"},
		},
		{
			name: "minimum saving in $/h",
			snap: func() *state.Snapshot {
				p := testPool("default")
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.large", zoneA, od)},
					[]*state.Pod{testPod("web-1", "100m", "128Mi", "n1")})
			},
			opts: func(o *Options) { o.MinSavingsPerHour = 1 },
			kept: map[string]string{"n1": "saving $0.0866/h below threshold ($1/h and 10% of $0.096/h)"},
		},
		{
			name: "minimum saving in percent",
			snap: func() *state.Snapshot {
				p := testPool("default")
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.large", zoneA, od)},
					[]*state.Pod{testPod("web-1", "100m", "128Mi", "n1")})
			},
			opts: func(o *Options) { o.MinSavingsPercent = 99 },
			kept: map[string]string{"n1": "saving $0.0866/h below threshold ($0.01/h and 99% of $0.096/h)"},
		},
		{
			name: "minimum saving per pod evicted",
			snap: func() *state.Snapshot {
				p := testPool("default")
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.large", zoneA, od)},
					[]*state.Pod{testPod("web-1", "100m", "128Mi", "n1")})
			},
			opts: func(o *Options) { o.MinSavingsPerPod = 0.5 },
			kept: map[string]string{"n1": "saving $0.0866/h for 1 pods evicted is below the threshold of $0.5/h per pod"},
		},
		{
			name:    "a deletion is not held to the per-pod threshold",
			snap:    one(fixedPool(), nil),
			opts:    func(o *Options) { o.MinSavingsPerPod = 1 },
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
		{
			name: "a do-not-disrupt pod pins its node",
			snap: one(fixedPool(), func(_ *state.Node, p *state.Pod) {
				p.Name = "web-7"
				annotated(v1.AnnotationDoNotDisrupt, "true")(p)
			}),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "do-not-disrupt pod default/web-7"},
		},
		{
			name: "a do-not-disrupt duration pins the node until it has passed since the pod started",
			snap: one(fixedPool(), func(_ *state.Node, p *state.Pod) {
				p.Name, p.StartTime = "web-7", t0.Add(-10*time.Minute)
				annotated(v1.AnnotationDoNotDisrupt, "30m")(p)
			}),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "do-not-disrupt pod default/web-7 for 30m (running for 10m)"},
		},
		{
			name: "an elapsed do-not-disrupt duration no longer pins",
			snap: func() *state.Snapshot {
				p := testPool("default")
				nodes, pods := halfFull(p, "n1", "n2")
				pods[1].StartTime = t0.Add(-40 * time.Minute)
				annotated(v1.AnnotationDoNotDisrupt, "30m")(pods[1])
				annotated(v1.AnnotationDoNotDisrupt, "true")(pods[0])
				return snapshot([]*state.Pool{p}, nodes, pods)
			},
			removed: map[string]Reason{"n2": ReasonUnderutilized},
		},
		{
			name: "a node annotated do-not-disrupt is skipped",
			snap: one(fixedPool(), func(n *state.Node, _ *state.Pod) {
				n.Annotations = map[string]string{v1.AnnotationDoNotDisrupt: "true"}
			}),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "node annotated tenon.dev/do-not-disrupt"},
		},
		{
			name: "a PDB that allows 0 disruptions blocks",
			snap: func() *state.Snapshot {
				s := one(fixedPool(), nil)()
				s.PDBs = []*state.PDB{pdb("api", "web", ptr(intstr.FromInt32(2)), nil)}
				return s
			},
			kept: map[string]string{"n1": "PDB default/api allows 0 disruptions", "n2": "PDB default/api allows 0 disruptions"},
		},
		{
			// The drain evicts through the Eviction API, which paces the
			// three pods out one at a time: the budget holds, so the
			// node goes (it could not while evictions were summed).
			// n2's pod is pinned: deleting n2 saves as much for one
			// eviction, and a walk that weighs evictions may take it.
			name: "maxUnavailable 1 lets a node holding three of the budget's pods go",
			snap: func() *state.Snapshot {
				s := threeOfBudgetOnN1(pdb("api", "web", nil, ptr(intstr.FromInt32(1))))
				annotated(v1.AnnotationDoNotDisrupt, "true")(s.Pods[3])
				return s
			},
			removed: map[string]Reason{"n1": ReasonUnderutilized},
			check: func(t *testing.T, res *Result) {
				if len(res.Commands) != 1 || len(res.Commands[0].Moves) != 3 {
					t.Errorf("want one command moving web-1..3, got %+v", res.Commands)
				}
			},
		},
		{
			name: "maxUnavailable 1 does not limit how many of the budget's nodes one plan removes",
			snap: func() *state.Snapshot {
				p := fixedPool()
				nodes, pods := halfFull(p, "n1", "n2", "n3")
				s := snapshot([]*state.Pool{p}, nodes, pods)
				s.PDBs = []*state.PDB{pdb("api", "web", nil, ptr(intstr.FromInt32(1)))}
				return s
			},
			check: func(t *testing.T, res *Result) {
				if len(res.removed) != 2 {
					t.Errorf("removed %v, want two of the three nodes (their pods fit on the third); kept %v", res.removed, res.Kept)
				}
			},
		},
		{
			// One pod already unhealthy uses up maxUnavailable 1: the
			// disruption controller reports 0, and the node stays however
			// many of the pods it holds.
			name: "a PDB whose status allows 0 disruptions blocks a node with several of its pods",
			snap: func() *state.Snapshot {
				b := pdb("api", "web", nil, ptr(intstr.FromInt32(1)))
				b.DisruptionsAllowed = 0
				return threeOfBudgetOnN1(b)
			},
			kept: map[string]string{"n1": "PDB default/api allows 0 disruptions", "n2": "PDB default/api allows 0 disruptions"},
		},
		{
			name: "drift: a PDB allowing 0 disruptions holds the node",
			snap: func() *state.Snapshot {
				p := fixedPool()
				n := testNode(p, "n1", "m5.xlarge", zoneA, od)
				n.TemplateHash = "hash-0"
				s := snapshot([]*state.Pool{p}, []*state.Node{n}, []*state.Pod{testPod("web-1", "1", "2Gi", "n1")})
				s.PDBs = []*state.PDB{pdb("api", "web", ptr(intstr.FromInt32(1)), nil)}
				return s
			},
			kept: map[string]string{"n1": "drifted: …"},
			check: func(t *testing.T, res *Result) {
				if r := keptReason(res, "n1"); !strings.HasSuffix(r, ", but PDB default/api allows 0 disruptions") {
					t.Errorf("n1 kept because %q, want the PDB named", r)
				}
			},
		},
		{
			name:    "bare pods block unless the pool allows",
			snap:    one(fixedPool(), func(_ *state.Node, p *state.Pod) { p.Owner = state.Owner{} }),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": `pod default/web-n1 has no controller; bare pods block disruption unless the NodePool is annotated tenon.dev/disrupt-bare-pods: "true"`},
		},
		{
			name: "a pool annotated disrupt-bare-pods lets bare pods move",
			snap: func() *state.Snapshot {
				p := fixedPool()
				p.DisruptBarePods = true
				nodes, pods := halfFull(p, "n1", "n2")
				pods[0].Owner, pods[1].Owner = state.Owner{}, state.Owner{}
				return snapshot([]*state.Pool{p}, nodes, pods)
			},
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
		{
			name: "higher-priority pods are moved last",
			snap: func() *state.Snapshot {
				p := fixedPool("m5.xlarge", "m5.4xlarge")
				nodes := []*state.Node{testNode(p, "hi", "m5.xlarge", zoneA, od), testNode(p, "lo", "m5.xlarge", zoneA, od), testNode(p, "big", "m5.4xlarge", zoneA, od)}
				pods := []*state.Pod{testPod("a-1", "1", "2Gi", "hi", priority(1000)), testPod("b-1", "1", "2Gi", "lo"), testPod("c-1", "10", "40Gi", "big")}
				return snapshot([]*state.Pool{p}, nodes, pods)
			},
			removed: map[string]Reason{"hi": ReasonUnderutilized, "lo": ReasonUnderutilized},
			check: func(t *testing.T, res *Result) {
				var order []string
				for _, c := range res.Commands {
					order = append(order, c.Nodes...)
				}
				if !slices.Equal(order, []string{"lo", "hi"}) {
					t.Errorf("commands remove %v, want lo (priority 0) before hi (priority 1000)", order)
				}
			},
		},
		{
			name:    "budget as a count",
			snap:    emptyNodes(testPool("default", withBudgets(state.Budget{Nodes: "2"})), 4),
			removed: map[string]Reason{"e1": ReasonEmpty, "e2": ReasonEmpty},
			kept: map[string]string{
				"e3": `empty, but budget of nodepool default allows 2 now (nodes "2"), all taken: 2 in this plan`,
				"e4": `empty, but budget of nodepool default allows 2 now (nodes "2"), all taken: 2 in this plan`,
			},
		},
		{
			name:    "budget as a percentage, rounded up",
			snap:    emptyNodes(testPool("default", withBudgets(state.Budget{Nodes: "34%"})), 3),
			removed: map[string]Reason{"e1": ReasonEmpty, "e2": ReasonEmpty},
			kept:    map[string]string{"e3": `empty, but budget of nodepool default allows 2 now (nodes "34%"), all taken: 2 in this plan`},
		},
		{
			name: "a budget's cron window in UTC: open",
			snap: emptyNodes(testPool("default", withBudgets(state.Budget{Nodes: "100%"},
				state.Budget{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: dur("8h")})), 1),
			kept: map[string]string{"e1": `empty, but budget of nodepool default allows 0 now (schedule "0 9 * * mon-fri", 8h)`},
		},
		{
			name: "a budget's cron window in UTC: closed",
			snap: emptyNodes(testPool("default", withBudgets(state.Budget{Nodes: "100%"},
				state.Budget{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: dur("8h")})), 1),
			now:     t0.Add(6 * time.Hour), // 18:00 on a Wednesday
			removed: map[string]Reason{"e1": ReasonEmpty},
		},
		{
			name: "a budget limited to other reasons does not apply",
			snap: emptyNodes(testPool("default", withBudgets(state.Budget{Nodes: "100%"},
				state.Budget{Nodes: "0", Reasons: []string{"Drifted"}})), 1),
			removed: map[string]Reason{"e1": ReasonEmpty},
		},
		{
			name:    "the most restrictive active budget wins",
			snap:    emptyNodes(testPool("default", withBudgets(state.Budget{Nodes: "100%"}, state.Budget{Nodes: "1"}, state.Budget{Nodes: "50%"})), 3),
			removed: map[string]Reason{"e1": ReasonEmpty},
			kept:    map[string]string{"e2": `empty, but budget of nodepool default allows 1 now (nodes "1"), all taken: 1 in this plan`},
		},
		{
			name: "nodes already being deleted use the budget",
			snap: func() *state.Snapshot {
				s := emptyNodes(testPool("default", withBudgets(state.Budget{Nodes: "1"})), 2)()
				s.Nodes[0].MarkedForDeletion = true
				return s
			},
			kept: map[string]string{
				"e1": "already being deleted",
				"e2": `empty, but budget of nodepool default allows 1 now (nodes "1"), all taken: 1 already being deleted`,
			},
		},
		{
			name: "expiration is forceful: budgets do not hold it back",
			snap: func() *state.Snapshot {
				p := testPool("default", withBudgets(state.Budget{Nodes: "0"}), func(p *state.Pool) { p.ExpireAfter = dur("720h") })
				nodes, pods := halfFull(p, "n1", "n2")
				nodes[0].CreatedAt = t0.Add(-800 * time.Hour)
				return snapshot([]*state.Pool{p}, nodes, pods)
			},
			removed: map[string]Reason{"n1": ReasonExpired},
			check: func(t *testing.T, res *Result) {
				if d := res.Commands[0].Detail; !strings.HasPrefix(d, "n1 expired: 800h old, expireAfter 720h") {
					t.Errorf("detail %q", d)
				}
			},
		},
		{
			name:    "drift: the pool template changed",
			snap:    one(fixedPool(), func(n *state.Node, _ *state.Pod) { n.TemplateHash = "hash-0" }),
			removed: map[string]Reason{"n1": ReasonDrifted},
			check: func(t *testing.T, res *Result) {
				if d := res.Commands[0].Detail; !strings.HasPrefix(d, "drifted: nodepool default template or node class changed since launch (hash hash-0, now hash-1)") {
					t.Errorf("detail %q", d)
				}
			},
		},
		{
			name: "drift: a requirement the node no longer satisfies",
			snap: func() *state.Snapshot {
				p := testPool("default")
				nodes, pods := halfFull(p, "n1", "n2")
				nodes[0] = testNode(p, "n1", "m5.xlarge", zoneA, spot)
				return snapshot([]*state.Pool{p}, nodes, pods)
			},
			removed: map[string]Reason{"n1": ReasonDrifted},
			check: func(t *testing.T, res *Result) {
				if d := res.Commands[0].Detail; !strings.HasPrefix(d, "drifted: label tenon.dev/capacity-type=spot no longer allowed by nodepool default") {
					t.Errorf("detail %q", d)
				}
			},
		},
		{
			name: "drift: a taint of the pool is missing, and the Drifted budget holds it",
			snap: func() *state.Snapshot {
				p := fixedPool()
				p.Disruption.Budgets = []state.Budget{{Nodes: "100%"}, {Nodes: "0", Reasons: []string{"Drifted"}}}
				p.Taints = []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}}
				n := testNode(p, "n1", "m5.xlarge", zoneA, od)
				pod := testPod("web-1", "3", "2Gi", "n1")
				pod.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
				return snapshot([]*state.Pool{p}, []*state.Node{n}, []*state.Pod{pod})
			},
			kept: map[string]string{"n1": `drifted: taint dedicated=web:NoSchedule of nodepool default missing from the node, but budget of nodepool default allows 0 now (nodes "0", reasons Drifted)`},
		},
		{
			name: "spot to spot needs 15 cheaper spot types",
			snap: func() *state.Snapshot {
				p := testPool("default", withSpot(), withReq(scheduling.In(scheduling.LabelInstanceFamily, "m5", "c5")))
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.2xlarge", zoneA, spot)},
					[]*state.Pod{testPod("web-1", "1", "2Gi", "n1")})
			},
			kept: map[string]string{"n1": "spot-to-spot replacement needs 15 cheaper spot instance types; only …"},
		},
		{
			name: "spot to spot with enough cheaper types",
			snap: func() *state.Snapshot {
				p := testPool("default", withSpot())
				return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.2xlarge", zoneA, spot)},
					[]*state.Pod{testPod("web-1", "1", "2Gi", "n1")})
			},
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
		{
			name: "nodes Tenon does not manage stay",
			snap: func() *state.Snapshot {
				s := one(fixedPool(), nil)()
				s.Nodes[0].Pool = ""
				return s
			},
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "not managed by Tenon (no tenon.dev/nodepool label)"},
		},
	}
	runRuleCases(t, cases)
}

// runRuleCases plans each case's snapshot at t0 (or its now) and checks
// what it removes and keeps.
func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := tc.snap()
			opts := DefaultOptions()
			if tc.opts != nil {
				tc.opts(&opts)
			}
			now := tc.now
			if now.IsZero() {
				now = t0
			}
			res, err := Plan(t.Context(), snap, now, opts)
			if err != nil {
				t.Fatal(err)
			}
			if v := Validate(snap, res); len(v) > 0 {
				t.Fatalf("plan breaks rules: %v", v)
			}
			got := map[string]Reason{}
			for _, c := range res.Commands {
				for _, n := range c.Nodes {
					got[n] = c.Reason
				}
			}
			if tc.removed != nil || tc.check == nil {
				want := tc.removed
				if want == nil {
					want = map[string]Reason{}
				}
				if !maps.Equal(got, want) {
					t.Errorf("removed %v, want %v; kept %v", got, want, res.Kept)
				}
			}
			for node, want := range tc.kept {
				reason := keptReason(res, node)
				if prefix, ok := strings.CutSuffix(want, "…"); ok {
					if !strings.HasPrefix(reason, prefix) {
						t.Errorf("%s kept because %q, want %q…", node, reason, prefix)
					}
				} else if reason != want {
					t.Errorf("%s kept because\n  %q, want\n  %q", node, reason, want)
				}
			}
			if tc.check != nil {
				tc.check(t, res)
			}
			if len(res.Kept)+len(got) != len(snap.Nodes) {
				t.Errorf("%d kept and %d removed, want every one of %d nodes accounted for", len(res.Kept), len(got), len(snap.Nodes))
			}
		})
	}
}

// threeOfBudgetOnN1 is two m5.xlarge nodes, n1 with three small pods of
// budget b (app web) and n2 with a larger one whose node has room for them.
func threeOfBudgetOnN1(b *state.PDB) *state.Snapshot {
	p := fixedPool()
	nodes := []*state.Node{testNode(p, "n1", "m5.xlarge", zoneA, od), testNode(p, "n2", "m5.xlarge", zoneA, od)}
	pods := []*state.Pod{
		testPod("web-1", "500m", "1Gi", "n1"), testPod("web-2", "500m", "1Gi", "n1"), testPod("web-3", "500m", "1Gi", "n1"),
		testPod("web-4", "2", "4Gi", "n2"),
	}
	s := snapshot([]*state.Pool{p}, nodes, pods)
	s.PDBs = []*state.PDB{b}
	return s
}
