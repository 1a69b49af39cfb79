package agent

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

func ownedBy(p *corev1.Pod, kind, name string) *corev1.Pod {
	yes := true
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &yes}}
	return p
}

func podAnnotations(t *testing.T, c client.Client, name string) map[string]string {
	t.Helper()
	p := &corev1.Pod{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, p); err != nil {
		t.Fatal(err)
	}
	return p.Annotations
}

// TestDeletionCostsFollowThePlan: with --pod-deletion-cost, a consolidation
// tick ranks the node its plan removes (n2) before the node it keeps (n1)
// and the writer patches that order on the ReplicaSet pods, recording it
// as the agent's; a pod of another kind and every pod of a ReplicaSet with
// a value a user set are left alone; a second pass writes nothing; a value
// a user sets between the plan and the write is not overwritten.
func TestDeletionCostsFollowThePlan(t *testing.T) {
	user := ownedBy(boundPod("u", "n1"), "ReplicaSet", "ordered")
	user.Annotations = map[string]string{v1.AnnotationPodDeletionCost: "5"}
	userSibling := ownedBy(boundPod("u2", "n2"), "ReplicaSet", "ordered")
	job := ownedBy(boundPod("j", "n2"), "Job", "batch")
	objs := append(twoNodes(claimOf("p-def", "n2")), user, userSibling, job)
	a, c, _, clk := testAgent(t, objs...)
	costs := newDeletionCosts(a.disruption.client, a.disruption.metrics, a.disruption.log, clk)
	costs.pace = 0
	a.disruption.deletionCosts = costs
	ctx := context.Background()
	if err := a.disruption.consolidate(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if a.disruption.leaving == nil {
		t.Fatal("the plan removes nothing; the test needs n2 leaving")
	}
	plan := costs.take()
	if plan == nil {
		t.Fatal("no deletion-cost plan was offered")
	}
	if n := costs.write(ctx, plan); n != 2 {
		t.Errorf("wrote %d pods, want 2 (a and b): %+v", n, plan.Writes)
	}
	a1, b := podAnnotations(t, c, "a"), podAnnotations(t, c, "b")
	if b[v1.AnnotationPodDeletionCost] != "-200000000" || b[v1.AnnotationPodDeletionCostOwned] != "-200000000" {
		t.Errorf("b, on the leaving node n2: annotations %v, want cost -200000000 recorded as the agent's", b)
	}
	if a1[v1.AnnotationPodDeletionCost] != "-50000000" {
		t.Errorf("a, on the kept node n1: annotations %v, want cost -50000000", a1)
	}
	if got := podAnnotations(t, c, "u"); got[v1.AnnotationPodDeletionCost] != "5" || got[v1.AnnotationPodDeletionCostOwned] != "" {
		t.Errorf("u's own value changed: %v", got)
	}
	for _, name := range []string{"u2", "j"} {
		if got := podAnnotations(t, c, name); len(got) > 0 {
			t.Errorf("%s written: %v", name, got)
		}
	}

	// A second tick finds every value right.
	v, err := a.disruption.observe(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	a.disruption.rankForScaleDown(v, a.disruption.leaving)
	if again := costs.take(); len(again.Writes) != 0 {
		t.Errorf("a second pass writes %+v", again.Writes)
	}

	// A user's value set after the plan is never overwritten.
	pod := &corev1.Pod{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, pod); err != nil {
		t.Fatal(err)
	}
	pod.Annotations = map[string]string{v1.AnnotationPodDeletionCost: "-5", v1.AnnotationPodDeletionCostOwned: "-5"}
	if err := c.Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	v, err = a.disruption.observe(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	a.disruption.rankForScaleDown(v, a.disruption.leaving)
	stale := costs.take()
	if len(stale.Writes) != 1 || stale.Writes[0].Name != "b" {
		t.Fatalf("the plan should rewrite b's value -5 alone: %+v", stale.Writes)
	}
	pod.Annotations = map[string]string{v1.AnnotationPodDeletionCost: "1"}
	if err := c.Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if n := costs.write(ctx, stale); n != 0 {
		t.Errorf("wrote %d pods over a user's value", n)
	}
	if got := podAnnotations(t, c, "b"); got[v1.AnnotationPodDeletionCost] != "1" {
		t.Errorf("b's value set by a user after the plan became %v", got)
	}
}

// TestDeletionCostsOff: without --pod-deletion-cost no writer exists and a
// consolidation tick writes no pod.
func TestDeletionCostsOff(t *testing.T) {
	a, c, _, clk := testAgent(t, twoNodes(claimOf("p-def", "n2"))...)
	if a.deletionCosts != nil || a.disruption.deletionCosts != nil {
		t.Fatal("a deletion-cost writer exists with the option off")
	}
	if err := a.disruption.consolidate(context.Background(), clk.Now()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if got := podAnnotations(t, c, name)[v1.AnnotationPodDeletionCost]; got != "" {
			t.Errorf("%s has deletion cost %q with the option off", name, got)
		}
	}
}
