package agent

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

func budgetPod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: node}}
}

func budget(namespace string, allowed int32, observed bool) *policyv1.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	b := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web", Generation: 2},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, ObservedGeneration: 1},
	}
	if observed {
		b.Status.ObservedGeneration = 2
	}
	return b
}

// TestEvictionBackoff: each refusal doubles a pod's wait from 1 s to at
// most 10 s; an eviction that goes through, or the node drained, forgets it.
func TestEvictionBackoff(t *testing.T) {
	b := newEvictionBackoff(time.Second, 10*time.Second)
	p := budgetPod("web-1", "n1")
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	if !b.due(p, now) {
		t.Fatal("a pod never refused must be due")
	}
	var waits []time.Duration
	for range 6 {
		w := b.refused(p, now)
		waits = append(waits, w)
		if b.due(p, now.Add(w-time.Millisecond)) {
			t.Errorf("due %s after a refusal that waits %s", w-time.Millisecond, w)
		}
		if !b.due(p, now.Add(w)) {
			t.Errorf("not due %s after a refusal that waits %s", w, w)
		}
		now = now.Add(w)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
	b.forget(p.UID)
	if w := b.refused(p, now); w != time.Second {
		t.Errorf("after forget the first wait is %s, want 1s", w)
	}
	b.forgetNode("n1")
	if !b.due(p, now) {
		t.Error("a drained node's pods must be forgotten")
	}
}

// TestEvictionBackoffRelease: only a budget that allows a disruption now,
// and selects the blocked pod in its namespace, releases it.
func TestEvictionBackoffRelease(t *testing.T) {
	other := budget("default", 1, true)
	other.Spec.Selector.MatchLabels = map[string]string{"app": "api"}
	cases := []struct {
		name      string
		pdb       *policyv1.PodDisruptionBudget
		wantNodes []string
	}{
		{"allows one: released", budget("default", 1, true), []string{"n1"}},
		{"allows 0: still waits", budget("default", 0, true), nil},
		{"status of an older generation: still waits", budget("default", 1, false), nil},
		{"another namespace: still waits", budget("prod", 1, true), nil},
		{"selects other pods: still waits", other, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newEvictionBackoff(time.Second, 10*time.Second)
			now := time.Now()
			p := budgetPod("web-1", "n1")
			b.refused(p, now)
			got := b.release(tc.pdb)
			if !slices.Equal(got, tc.wantNodes) {
				t.Errorf("released nodes %v, want %v", got, tc.wantNodes)
			}
			if due := b.due(p, now); due != (len(tc.wantNodes) > 0) {
				t.Errorf("due right after release = %v", due)
			}
		})
	}
}

// TestDrainRetriesRefusedEvictions: a drain asks the Eviction API for every
// pod; those it refuses with 429 are not asked again before their backoff,
// unless their budget allows a disruption again (which also wakes the
// claim's drain); the node is empty only once they are gone, and no pod is
// ever deleted behind the API's back.
func TestDrainRetriesRefusedEvictions(t *testing.T) {
	claim := testClaim("p-drain", "m5.large")
	claim.Status.NodeName = "n1"
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	pods := []client.Object{budgetPod("web-1", "n1"), budgetPod("web-2", "n1"), budgetPod("web-3", "n1")}
	var mu sync.Mutex
	allowed, asked, deleted := 0, 0, 0
	intercept := func(c client.WithWatch) client.Client {
		return interceptor.NewClient(c, interceptor.Funcs{
			SubResourceCreate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, _ client.Object, _ ...client.SubResourceCreateOption) error {
				if sub != "eviction" {
					t.Fatalf("unexpected subresource %s", sub)
				}
				mu.Lock()
				defer mu.Unlock()
				asked++
				if allowed == 0 {
					return apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
				}
				allowed--
				return cl.Delete(ctx, obj)
			},
			Delete: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				if _, ok := obj.(*corev1.Pod); ok {
					deleted++
				}
				return cl.Delete(ctx, obj, opts...)
			},
		})
	}
	ctrls, c, _, _ := testAgentWith(t, intercept, append([]client.Object{claim, node}, pods...)...)
	a := ctrls.termination
	if err := c.Delete(context.Background(), claim); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	drain := func() bool {
		t.Helper()
		cur := &v1.NodeClaim{}
		if err := c.Get(ctx, client.ObjectKey{Name: claim.Name}, cur); err != nil {
			t.Fatal(err)
		}
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: "n1"}, n); err != nil {
			t.Fatal(err)
		}
		done, err := a.drain(ctx, cur, n)
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	step := func(what string, wantAsked int, wantDone bool) {
		t.Helper()
		mu.Lock()
		asked = 0
		mu.Unlock()
		if done := drain(); done != wantDone {
			t.Errorf("%s: drained = %v, want %v", what, done, wantDone)
		}
		mu.Lock()
		defer mu.Unlock()
		if asked != wantAsked {
			t.Errorf("%s: %d evictions asked, want %d", what, asked, wantAsked)
		}
	}
	step("first pass", 3, false)
	step("right after the refusals", 0, false)

	// The budget allows one again: its pods are due, and the claim's drain
	// is woken.
	reqs := a.drainsReleasedBy(ctx, budget("default", 1, true))
	if want := []reconcile.Request{{NamespacedName: types.NamespacedName{Name: claim.Name}}}; !slices.Equal(reqs, want) {
		t.Errorf("woken drains %v, want %v", reqs, want)
	}
	mu.Lock()
	allowed = 1
	mu.Unlock()
	step("after the budget allowed one", 3, false) // one goes, two are refused again
	var left corev1.PodList
	if err := c.List(ctx, &left); err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 2 {
		t.Errorf("%d pods left, want 2", len(left.Items))
	}
	a.drainsReleasedBy(ctx, budget("default", 1, true))
	mu.Lock()
	allowed = 2
	mu.Unlock()
	step("after the budget allowed two", 2, false)
	step("once the pods are gone", 0, true)
	if deleted != 0 {
		t.Errorf("%d pods deleted without the Eviction API", deleted)
	}
}
