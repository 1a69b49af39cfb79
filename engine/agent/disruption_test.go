package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestEmptyNodeKeptForPendingPods: an initialized node with no workload
// pods is removed after consolidateAfter, unless a pending pod would be
// placed on it. The agent here has no nomination in memory (as after a
// restart), so only the solve of the pending pods can keep the node.
func TestEmptyNodeKeptForPendingPods(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cpu      string // the pending pod's request; "" for none
		wantKept bool
	}{
		{name: "no pending pod", wantKept: false},
		{name: "a pending pod that fits", cpu: "1", wantKept: true},
		{name: "a pending pod too big for it", cpu: "64", wantKept: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim()}
			if tc.cpu != "" {
				objs = append(objs, pendingPod("waiting", tc.cpu))
			}
			a, c, _, clk := testAgent(t, objs...)
			// consolidateAfter is 0s: one look records Empty and acts on it.
			if err := a.disruption.removeEmpty(context.Background(), clk.Now()); err != nil {
				t.Fatalf("removeEmpty: %v", err)
			}
			// The claim's termination finalizer keeps it, marked for deletion.
			if kept := getClaim(t, c, "p-abc").DeletionTimestamp == nil; kept != tc.wantKept {
				t.Errorf("claim kept = %v, want %v", kept, tc.wantKept)
			}
		})
	}
}

// TestEmptinessClockOnTheClaim: the empty-since clock is the claim's
// (Empty's transition and status.lastPodEventTime), which the plan reads
// from the Snapshot: a node goes consolidateAfter after it emptied, and an
// agent started again (nothing in memory) keeps counting from the claim.
func TestEmptinessClockOnTheClaim(t *testing.T) {
	a, c, _, clk := testAgent(t, emptyNodeClass(), emptyNodePool("30s"), emptyNode(), initializedClaim())
	ctx := context.Background()
	start := clk.Now()
	if err := a.disruption.removeEmpty(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	claim := getClaim(t, c, "p-abc")
	empty := meta.FindStatusCondition(claim.Status.Conditions, v1.ConditionEmpty)
	if claim.DeletionTimestamp != nil || empty == nil || empty.Status != metav1.ConditionTrue || !claim.Status.LastPodEventTime.Time.Equal(start.Truncate(time.Second)) {
		t.Fatalf("after the first look: deleting %v, Empty %+v, lastPodEventTime %s", claim.DeletionTimestamp != nil, empty, claim.Status.LastPodEventTime)
	}

	// A restarted agent: the clock comes from the claim, not from memory.
	restarted, _ := testAgentOn(t, c, clk)
	clk.Step(20 * time.Second)
	if err := restarted.disruption.removeEmpty(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if getClaim(t, c, "p-abc").DeletionTimestamp != nil {
		t.Fatal("removed 20s after it emptied; consolidateAfter is 30s")
	}
	clk.Step(11 * time.Second)
	if err := restarted.disruption.removeEmpty(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	claim = getClaim(t, c, "p-abc")
	if claim.DeletionTimestamp == nil || claim.Annotations[annotationDisruptionReason] != DisruptionEmpty {
		t.Errorf("not removed as Empty 31s after it emptied: deleting %v, annotations %v", claim.DeletionTimestamp != nil, claim.Annotations)
	}
}

// TestConsolidationKeepsNodesPendingPodsNeed: the whole plan, which the
// consolidation tick runs, never removes a node pending pods would be
// placed on; the other node's removal is still planned.
func TestConsolidationKeepsNodesPendingPodsNeed(t *testing.T) {
	objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(),
		namedNode("n2", "fake://p-def"), claimOf("p-def", "n2"), boundPod("a", "n1"), boundPod("b", "n2")}
	waiting := pendingPod("waiting", "1500m")
	waiting.Spec.NodeSelector[scheduling.LabelHostname] = "n1"
	a, _, _, clk := testAgent(t, append(objs, waiting)...)
	v, err := a.disruption.observe(context.Background(), clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.disruption.plan(context.Background(), v, clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	removed := map[string]bool{}
	for _, cmd := range res.Commands {
		for _, n := range cmd.Nodes {
			removed[n] = true
		}
	}
	if removed["n1"] || !removed["n2"] {
		t.Errorf("commands %+v: want n2 removed and n1, where the pending pod goes, kept", res.Commands)
	}
	for _, k := range res.Kept {
		if k.Node == "n1" && !strings.Contains(k.Reason, "pending pods") {
			t.Errorf("n1 kept as %q", k.Reason)
		}
	}
	if why := commandBlocked(v, consolidation.Command{Nodes: []string{"n3"}}); why == "" {
		t.Error("a command on a node without a claim is not blocked")
	}
}

func emptyNodeClass() *v1.NodeClass {
	return &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
}

func emptyNodePool(consolidateAfter v1.NillableDuration) *v1.NodePool {
	pool := &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	pool.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Name: "default"}
	pool.Spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{
		{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
	}
	pool.Spec.Disruption = &v1.Disruption{ConsolidateAfter: consolidateAfter, Budgets: []v1.Budget{{Nodes: "100%"}}}
	return pool
}

func initializedClaim() *v1.NodeClaim { return claimOf("p-abc", "n1") }

// claimOf is an initialized m5.large claim of pool p registered as node.
func claimOf(name, node string) *v1.NodeClaim {
	c := testClaim(name, "m5.large")
	c.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour))
	c.Status = v1.NodeClaimStatus{ProviderID: "fake://" + name, NodeName: node, InstanceType: "m5.large"}
	for _, t := range []string{v1.ConditionLaunched, v1.ConditionRegistered, v1.ConditionInitialized} {
		c.Status.Conditions = append(c.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: c.CreationTimestamp})
	}
	return c
}

func emptyNode() *corev1.Node { return namedNode("n1", "fake://p-abc") }

// namedNode is a Ready, initialized m5.large node of pool p.
func namedNode(name, providerID string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour)), Labels: map[string]string{
			v1.LabelNodePool: "p", v1.LabelNodeRegistered: "true", v1.LabelNodeInitialized: "true",
			scheduling.LabelInstanceType: "m5.large", scheduling.LabelTopologyZone: "us-east-1a", scheduling.LabelCapacityType: "on-demand",
			corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux", corev1.LabelHostname: name,
		}},
		Spec: corev1.NodeSpec{ProviderID: providerID},
		Status: corev1.NodeStatus{
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourceMemory: resource.MustParse("7Gi"), corev1.ResourcePods: resource.MustParse("29")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")},
		},
	}
}

func pendingPod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{v1.LabelNodePool: "p"},
			Containers: []corev1.Container{{Name: "app", Image: "pause", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}},
	}
}

// boundPod is a running 100m pod of a ReplicaSet on node, started an hour
// ago.
func boundPod(name, node string) *corev1.Pod {
	yes := true
	started := metav1.NewTime(time.Now().Add(-time.Hour))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs", Controller: &yes}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "pause", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started},
	}
}

// TestLoopsSkipTheViewWhenNothingIsTheirs: the capacity-buffer and
// static-capacity loops build no view (which copies every pod) without a
// pool of theirs, and the emptiness loop makes no plan without an empty
// node; each does its work once there is one.
func TestLoopsSkipTheViewWhenNothingIsTheirs(t *testing.T) {
	busy := emptyNode()
	busy.Name = "busy"
	running := pendingPod("running", "1")
	running.Spec.NodeName = "busy"
	for _, tc := range []struct {
		name      string
		objs      []client.Object
		loop      func(*controllers) func(context.Context, time.Time) error
		wantLists bool // the loop read the pods
	}{
		{name: "buffers, no buffer pool", objs: []client.Object{emptyNodePool("30s")},
			loop: func(a *controllers) func(context.Context, time.Time) error { return a.buffers.reconcile }},
		{name: "buffers, a buffer pool", objs: []client.Object{bufferPool(1)}, wantLists: true,
			loop: func(a *controllers) func(context.Context, time.Time) error { return a.buffers.reconcile }},
		{name: "static, no static pool", objs: []client.Object{emptyNodePool("30s")},
			loop: func(a *controllers) func(context.Context, time.Time) error { return a.static.reconcile }},
		{name: "static, a static pool", objs: []client.Object{staticNodePool(1)}, wantLists: true,
			loop: func(a *controllers) func(context.Context, time.Time) error { return a.static.reconcile }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lists := 0
			a, _, _, clk := testAgentWith(t, func(c client.WithWatch) client.Client {
				return interceptor.NewClient(c, interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
					if _, ok := list.(*corev1.PodList); ok {
						lists++
					}
					return cl.List(ctx, list, opts...)
				}})
			}, append([]client.Object{emptyNodeClass()}, tc.objs...)...)
			if err := tc.loop(a)(context.Background(), clk.Now()); err != nil {
				t.Fatal(err)
			}
			if got := lists > 0; got != tc.wantLists {
				t.Errorf("listed pods %d times; want a view: %v", lists, tc.wantLists)
			}
		})
	}
	for _, tc := range []struct {
		name string
		objs []client.Object
		want bool
	}{
		{name: "an empty node", objs: []client.Object{emptyNode(), initializedClaim()}, want: true},
		{name: "a node running a pod", objs: []client.Object{busy, running}},
		{name: "no node"},
	} {
		t.Run("anyEmpty, "+tc.name, func(t *testing.T) {
			a, _, _, clk := testAgent(t, append([]client.Object{emptyNodeClass(), emptyNodePool("0s")}, tc.objs...)...)
			v, err := a.disruption.observe(context.Background(), clk.Now())
			if err != nil {
				t.Fatal(err)
			}
			if got := anyEmpty(v.snap); got != tc.want {
				t.Errorf("anyEmpty = %v, want %v", got, tc.want)
			}
		})
	}
}

// staticNodePool is pool p kept at replicas nodes.
func staticNodePool(replicas int64) *v1.NodePool {
	pool := emptyNodePool("0s")
	pool.Spec.Replicas = &replicas
	return pool
}
