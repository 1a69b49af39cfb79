package consolidation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// repairPool is a pool of m5.xlarge nodes that repairs them and does not
// consolidate, so every command in these tests is repair's.
func repairPool(mutate ...func(*state.Pool)) *state.Pool {
	p := statetest.Pool("default", withReq(scheduling.In(scheduling.LabelInstanceType, "m5.xlarge")), statetest.WithTemplateHash("hash-1"))
	p.Repair = &state.Repair{MaxUnhealthy: v1.DefaultRepairMaxUnhealthy}
	p.Disruption.Budgets = []state.Budget{{Nodes: "100%"}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// sickFor marks a node's Ready condition status for d before t0.
func sickFor(n *state.Node, status corev1.ConditionStatus, d time.Duration) {
	n.NotReady = true
	n.Conditions = []state.Condition{{Type: string(corev1.NodeReady), Status: status, Reason: "NodeStatusUnknown", Since: t0.Add(-d)}}
}

// fullNodes are n nodes of p, each with a 3-CPU pod (one per node: a
// repaired node's pod needs a replacement).
func fullNodes(p *state.Pool, n int) ([]*state.Node, []*state.Pod) {
	var nodes []*state.Node
	var pods []*state.Pod
	for i := range n {
		name := "n" + string(rune('1'+i))
		nodes = append(nodes, testNode(p, name, "m5.xlarge", zoneA, od))
		pods = append(pods, testPod("web-"+name, "3", "2Gi", name))
	}
	return nodes, pods
}

// sickSnap has n full nodes of p, the first sick of them NotReady
// (Unknown) for d; mutate edits it further.
func sickSnap(p *state.Pool, n, sick int, d time.Duration, mutate func(*state.Snapshot)) func() *state.Snapshot {
	return func() *state.Snapshot {
		nodes, pods := fullNodes(p, n)
		for _, node := range nodes[:sick] {
			sickFor(node, corev1.ConditionUnknown, d)
		}
		s := snapshot([]*state.Pool{p}, nodes, pods)
		if mutate != nil {
			mutate(s)
		}
		return s
	}
}

func TestRepair(t *testing.T) {
	five := 5 * time.Minute
	hour := time.Hour
	nodeAnnotation := func(key string) func(*state.Snapshot) {
		return func(s *state.Snapshot) { s.Nodes[0].Annotations = map[string]string{key: "true"} }
	}
	runRuleCases(t, []ruleCase{
		{
			name:    "a node NotReady past its toleration is replaced, the replacement first",
			snap:    sickSnap(repairPool(), 2, 1, 31*time.Minute, nil),
			removed: map[string]Reason{"n1": ReasonUnhealthy},
			check: func(t *testing.T, res *Result) {
				c := res.Commands[0]
				if len(c.Replacements) != 1 || len(c.Moves) != 1 || c.Moves[0].To != c.Replacements[0].Name {
					t.Errorf("want the pod moved to one replacement, got %+v", c)
				}
				for _, want := range []string{"unhealthy: Ready Unknown (NodeStatusUnknown) for 31m, past its toleration of 30m; replace the node with 1 node"} {
					if !strings.Contains(c.Detail, want) {
						t.Errorf("detail %q lacks %q", c.Detail, want)
					}
				}
			},
		},
		{
			name:    "Ready False is unhealthy too",
			snap:    sickSnap(repairPool(), 2, 1, 0, func(s *state.Snapshot) { sickFor(s.Nodes[0], corev1.ConditionFalse, 40*time.Minute) }),
			removed: map[string]Reason{"n1": ReasonUnhealthy},
		},
		{
			name: "a node within its toleration waits, and says until when",
			snap: sickSnap(repairPool(), 2, 1, 10*time.Minute, nil),
			kept: map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 10m; repaired after its toleration of 30m (in 20m)"},
		},
		{
			name:    "the pool's toleration replaces the cloud's",
			snap:    sickSnap(repairPool(func(p *state.Pool) { p.Repair.Toleration = &five }), 2, 1, 6*time.Minute, nil),
			removed: map[string]Reason{"n1": ReasonUnhealthy},
		},
		{
			name: "a pool without repair leaves its unhealthy nodes",
			snap: sickSnap(repairPool(func(p *state.Pool) { p.Repair = nil }), 2, 1, 2*time.Hour, nil),
		},
		{
			name: "tenon.dev/do-not-repair on the node blocks repair",
			snap: sickSnap(repairPool(), 2, 1, time.Hour, nodeAnnotation(v1.AnnotationDoNotRepair)),
			kept: map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but node annotated tenon.dev/do-not-repair"},
		},
		{
			name: "tenon.dev/do-not-disrupt on the node blocks repair",
			snap: sickSnap(repairPool(), 2, 1, time.Hour, nodeAnnotation(v1.AnnotationDoNotDisrupt)),
			kept: map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but node annotated tenon.dev/do-not-disrupt"},
		},
		{
			name: "karpenter.sh/do-not-repair blocks repair where the pool honours Karpenter's annotations",
			snap: sickSnap(repairPool(), 2, 1, time.Hour, nodeAnnotation(v1.AnnotationKarpenterDoNotRepair)),
			kept: map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but node annotated karpenter.sh/do-not-repair"},
		},
		{
			name:    "karpenter.sh/do-not-repair is ignored where the pool ignores Karpenter's annotations",
			snap:    sickSnap(repairPool(func(p *state.Pool) { p.IgnoreKarpenterAnnotations = true }), 2, 1, time.Hour, nodeAnnotation(v1.AnnotationKarpenterDoNotRepair)),
			removed: map[string]Reason{"n1": ReasonUnhealthy},
		},
		{
			name: "more unhealthy nodes than 20% stops repair for the pool",
			snap: sickSnap(repairPool(), 5, 2, time.Hour, nil),
			kept: map[string]string{
				"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but 2 of nodepool default's 5 nodes are unhealthy, more than its repair.maxUnhealthy \"20%\" allows (1): a failure that many nodes share is not fixed by replacing them",
				"n2": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but 2 of nodepool default's 5 nodes are unhealthy, more than its repair.maxUnhealthy \"20%\" allows (1)…",
			},
			check: func(t *testing.T, res *Result) {
				for _, k := range res.Kept {
					if (k.Node == "n1" || k.Node == "n2") && (k.Held != HeldByUnhealthyThreshold || k.Method != ReasonUnhealthy) {
						t.Errorf("%s: want held by the unhealthy threshold, got %+v", k.Node, k)
					}
				}
			},
		},
		{
			name: "the threshold counts nodes within their toleration",
			snap: sickSnap(repairPool(), 5, 2, time.Hour, func(s *state.Snapshot) { sickFor(s.Nodes[1], corev1.ConditionUnknown, time.Minute) }),
			kept: map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but 2 of nodepool default's 5 nodes are unhealthy…"},
		},
		{
			name: "one unhealthy node of three is repaired: 20% rounds up",
			snap: sickSnap(repairPool(), 3, 1, time.Hour, nil),
			removed: map[string]Reason{
				"n1": ReasonUnhealthy,
			},
		},
		{
			name:    "a pool's maxUnhealthy raises the threshold",
			snap:    sickSnap(repairPool(func(p *state.Pool) { p.Repair.MaxUnhealthy = "50%" }), 5, 2, time.Hour, nil),
			removed: map[string]Reason{"n1": ReasonUnhealthy, "n2": ReasonUnhealthy},
		},
		{
			name: "the Unhealthy budget paces repair, the longest unhealthy first",
			snap: sickSnap(repairPool(func(p *state.Pool) {
				p.Repair.MaxUnhealthy = "100%"
				p.Disruption.Budgets = []state.Budget{{Nodes: "1", Reasons: []string{string(ReasonUnhealthy)}}, {Nodes: "100%"}}
			}), 4, 2, time.Hour, func(s *state.Snapshot) { sickFor(s.Nodes[1], corev1.ConditionUnknown, 2*time.Hour) }),
			removed: map[string]Reason{"n2": ReasonUnhealthy},
			kept:    map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but budget of nodepool default allows 1 now (nodes \"1\", reasons Unhealthy), all taken: 1 in this plan"},
		},
		{
			name: "a node already being deleted counts as unhealthy but is not repaired again",
			snap: sickSnap(repairPool(func(p *state.Pool) { p.Repair.MaxUnhealthy = "100%" }), 3, 2, time.Hour, func(s *state.Snapshot) {
				s.Nodes[0].MarkedForDeletion = true
			}),
			removed: map[string]Reason{"n2": ReasonUnhealthy},
		},
		{
			name: "a do-not-disrupt pod blocks repair without terminationGracePeriod",
			snap: sickSnap(repairPool(), 2, 1, time.Hour, func(s *state.Snapshot) {
				s.Pods[0].Annotations = map[string]string{v1.AnnotationDoNotDisrupt: "true"}
			}),
			kept: map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but do-not-disrupt pod default/web-n1 (set the nodepool's terminationGracePeriod so repair can bound the drain)"},
		},
		{
			name: "with terminationGracePeriod a do-not-disrupt pod does not block repair",
			snap: sickSnap(repairPool(func(p *state.Pool) { p.TerminationGracePeriod = &hour }), 2, 1, time.Hour, func(s *state.Snapshot) {
				s.Pods[0].Annotations = map[string]string{v1.AnnotationDoNotDisrupt: "true"}
			}),
			removed: map[string]Reason{"n1": ReasonUnhealthy},
		},
		{
			name: "a cloud condition is unhealthy when the cloud lists it",
			snap: sickSnap(repairPool(), 2, 0, 0, func(s *state.Snapshot) {
				s.RepairPolicies = state.AWSRepairPolicies()
				s.Nodes[0].Conditions = []state.Condition{
					{Type: string(corev1.NodeReady), Status: corev1.ConditionTrue, Since: t0.Add(-time.Hour)},
					{Type: "AcceleratedHardwareReady", Status: corev1.ConditionFalse, Reason: "NvidiaXID79Error", Since: t0.Add(-11 * time.Minute)},
				}
			}),
			removed: map[string]Reason{"n1": ReasonUnhealthy},
			check: func(t *testing.T, res *Result) {
				if d := res.Commands[0].Detail; !strings.Contains(d, "AcceleratedHardwareReady False (NvidiaXID79Error) for 11m, past its toleration of 10m") {
					t.Errorf("detail %q does not name the condition", d)
				}
			},
		},
		{
			name: "a cloud condition the cloud does not list is not repaired",
			snap: sickSnap(repairPool(), 2, 0, 0, func(s *state.Snapshot) {
				s.Nodes[0].Conditions = []state.Condition{{Type: "KernelReady", Status: corev1.ConditionFalse, Since: t0.Add(-time.Hour)}}
			}),
		},
		{
			name: "a node whose pods fit nowhere stays",
			snap: sickSnap(repairPool(), 2, 1, time.Hour, func(s *state.Snapshot) {
				s.Pods[0].Requests[corev1.ResourceCPU] = s.Nodes[0].Allocatable[corev1.ResourceCPU]
				s.Pods[0].Requests[corev1.ResourceMemory] = s.Nodes[0].Allocatable[corev1.ResourceMemory]
				s.Pools[0].Limits = corev1.ResourceList{corev1.ResourceCPU: s.Nodes[0].Allocatable[corev1.ResourceCPU]}
			}),
			kept: map[string]string{"n1": "unhealthy: Ready Unknown (NodeStatusUnknown) for 1h, past its toleration of 30m, but pod default/web-n1 fits nowhere else…"},
		},
	})
}

// TestApplyKeepsRepairPolicies: the cluster a plan leaves (Apply) has the
// cloud's repair policies still, so the next plan knows the same unhealthy
// conditions (a KernelReady node is repaired in a later round).
func TestApplyKeepsRepairPolicies(t *testing.T) {
	snap := sickSnap(repairPool(), 2, 1, time.Hour, func(s *state.Snapshot) { s.RepairPolicies = state.AWSRepairPolicies() })()
	res, err := Plan(t.Context(), snap, t0, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	after, err := Apply(snap, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.RepairPolicies) != len(state.AWSRepairPolicies()) {
		t.Errorf("Apply left %d repair policies, want AWS's %d", len(after.RepairPolicies), len(state.AWSRepairPolicies()))
	}
}

// TestRepairProperties plans over random clusters (randomSnapshot) where
// some pools repair and some nodes are unhealthy, some for longer than
// their toleration, some annotated do-not-repair: every plan stays valid
// and within budgets, repairs only nodes of repairing pools that are past
// their toleration, not annotated, in pools within their maxUnhealthy,
// and explains every unhealthy node it keeps.
func TestRepairProperties(t *testing.T) {
	n := 80
	if testing.Short() || raceEnabled {
		n = 25
	}
	policies := state.AWSRepairPolicies()
	conditions := []state.Condition{
		{Type: string(corev1.NodeReady), Status: corev1.ConditionUnknown},
		{Type: string(corev1.NodeReady), Status: corev1.ConditionFalse},
		{Type: "KernelReady", Status: corev1.ConditionFalse},
		{Type: "AcceleratedHardwareReady", Status: corev1.ConditionFalse},
		{Type: "SomethingElse", Status: corev1.ConditionFalse}, // no policy: healthy
	}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 23))
		snap := randomSnapshot(r)
		snap.RepairPolicies = policies
		now := t0.Add(time.Duration(r.IntN(48)) * time.Hour)
		for _, p := range snap.Pools {
			if r.IntN(4) == 0 {
				continue
			}
			p.Repair = &state.Repair{MaxUnhealthy: []string{"20%", "50%", "1", "100%"}[r.IntN(4)]}
			if r.IntN(2) == 0 {
				d := time.Duration(1+r.IntN(40)) * time.Minute
				p.Repair.Toleration = &d
			}
			if r.IntN(2) == 0 {
				p.Disruption.Budgets = append(p.Disruption.Budgets, state.Budget{Nodes: fmt.Sprint(r.IntN(3)), Reasons: []string{string(ReasonUnhealthy)}})
			}
		}
		for _, node := range snap.Nodes {
			if r.IntN(3) != 0 {
				continue
			}
			c := conditions[r.IntN(len(conditions))]
			c.Since = now.Add(-time.Duration(r.IntN(90)) * time.Minute)
			node.Conditions = append(node.Conditions, c)
			if r.IntN(6) == 0 {
				if node.Annotations == nil {
					node.Annotations = map[string]string{}
				}
				node.Annotations[v1.AnnotationDoNotRepair] = "true"
			}
		}
		res, err := Plan(context.Background(), snap, now, DefaultOptions())
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if v := Validate(snap, res); len(v) > 0 {
			t.Fatalf("scenario %d: plan breaks rules: %v", i, v)
		}
		checkBudgets(t, i, snap, res, now)
		checkRepairs(t, i, snap, res, now)
	}
}

// checkRepairs checks the Unhealthy commands of res against the rules of
// repair, and that every unhealthy node it keeps says why.
func checkRepairs(t *testing.T, i int, snap *state.Snapshot, res *Result, now time.Time) {
	t.Helper()
	pools := map[string]*state.Pool{}
	for _, p := range snap.Pools {
		pools[p.Name] = p
	}
	total, sick := map[string]int{}, map[string]int{}
	unhealthy := map[string][]state.Unhealthy{}
	for _, n := range snap.Nodes {
		p := pools[n.Pool]
		if p == nil || p.Repair == nil || n.InFlight {
			continue
		}
		total[p.Name]++
		if us := n.UnhealthyConditions(snap.RepairPolicies, p.Repair); len(us) > 0 {
			sick[p.Name]++
			unhealthy[n.Name] = us
		}
	}
	byName := map[string]*state.Node{}
	for _, n := range snap.Nodes {
		byName[n.Name] = n
	}
	for _, c := range res.Commands {
		if c.Reason != ReasonUnhealthy {
			continue
		}
		for _, name := range c.Nodes {
			n := byName[name]
			p := pools[n.Pool]
			us := unhealthy[name]
			switch {
			case p == nil || p.Repair == nil:
				t.Errorf("scenario %d: %s repaired in a pool without repair", i, name)
			case len(us) == 0 || us[0].EligibleAt().After(now):
				t.Errorf("scenario %d: %s repaired before its toleration: %+v", i, name, us)
			case n.Annotations[v1.AnnotationDoNotRepair] == "true" || n.Annotations[v1.AnnotationDoNotDisrupt] == "true":
				t.Errorf("scenario %d: annotated node %s repaired", i, name)
			}
			if p != nil && p.Repair != nil {
				most, err := v1.BudgetNodes(p.Repair.MaxUnhealthy, total[p.Name])
				if err != nil {
					t.Fatal(err)
				}
				if sick[p.Name] > most {
					t.Errorf("scenario %d: %s repaired with %d of %d nodes of %s unhealthy, above maxUnhealthy %s", i, name, sick[p.Name], total[p.Name], p.Name, p.Repair.MaxUnhealthy)
				}
			}
		}
	}
	for _, k := range res.Kept {
		if len(unhealthy[k.Node]) > 0 && !strings.HasPrefix(k.Reason, "unhealthy: ") {
			t.Errorf("scenario %d: unhealthy node %s kept without saying so: %q", i, k.Node, k.Reason)
		}
	}
}
