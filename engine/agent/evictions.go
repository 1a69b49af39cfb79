package agent

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// evictionBackoff paces the retries of evictions the Eviction API refused
// with 429 (a PodDisruptionBudget allows no disruption now), per pod: the
// delays are client-go's per-item exponential rate limiter's, from
// Timings.EvictionBackoffMin doubling to Timings.EvictionBackoffMax, and a
// pod evicted, gone or drained is forgotten. The claim's
// terminationGracePeriod ends the drain's patience. A budget whose status
// allows a disruption again releases its blocked pods at once (the
// nodeclaim controller watches PodDisruptionBudgets and calls release), so
// a drain under maxUnavailable: 1 moves as soon as each replacement is
// Ready, while a node full of blocked pods costs the API server one
// eviction call per pod every EvictionBackoffMax, not every DrainRetry.
type evictionBackoff struct {
	delays  workqueue.TypedRateLimiter[types.UID]
	mu      sync.Mutex
	blocked map[types.UID]*blockedPod
}

// blockedPod is a pod whose last eviction was refused.
type blockedPod struct {
	namespace string
	labels    labels.Set
	node      string
	next      time.Time
}

func newEvictionBackoff(minDelay, maxDelay time.Duration) *evictionBackoff {
	return &evictionBackoff{
		delays:  workqueue.NewTypedItemExponentialFailureRateLimiter[types.UID](minDelay, maxDelay),
		blocked: map[types.UID]*blockedPod{},
	}
}

// due reports whether p may be evicted at now: never refused, or its delay
// has passed, or its budget released it.
func (b *evictionBackoff) due(p *corev1.Pod, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.blocked[p.UID]
	return e == nil || !now.Before(e.next)
}

// refused records a 429 for p at now and returns how long it now waits.
func (b *evictionBackoff) refused(p *corev1.Pod, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.blocked[p.UID]
	if e == nil {
		e = &blockedPod{namespace: p.Namespace, labels: labels.Set(p.Labels), node: p.Spec.NodeName}
		b.blocked[p.UID] = e
	}
	delay := b.delays.When(p.UID)
	e.next = now.Add(delay)
	return delay
}

// forget drops p once it is evicted or gone.
func (b *evictionBackoff) forget(uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.blocked, uid)
	b.delays.Forget(uid)
}

// forgetNode drops every pod of node, once it is drained.
func (b *evictionBackoff) forgetNode(node string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for uid, e := range b.blocked {
		if e.node == node {
			delete(b.blocked, uid)
			b.delays.Forget(uid)
		}
	}
}

// release makes the blocked pods of pdb due at once when its status
// allows a disruption, and returns the nodes they are on. Their delays
// keep growing: a released pod refused again waits longer.
func (b *evictionBackoff) release(pdb *policyv1.PodDisruptionBudget) []string {
	if pdb.Status.DisruptionsAllowed < 1 || pdb.Status.ObservedGeneration != pdb.Generation || pdb.Spec.Selector == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := map[string]bool{}
	var nodes []string
	for _, e := range b.blocked {
		if e.namespace != pdb.Namespace || !sel.Matches(e.labels) {
			continue
		}
		e.next = time.Time{}
		if !seen[e.node] {
			seen[e.node] = true
			nodes = append(nodes, e.node)
		}
	}
	return nodes
}

// drainsReleasedBy maps a PodDisruptionBudget that allows a disruption
// again to the claims being deleted whose nodes have pods it had blocked,
// so their drains retry at once.
func (t *termination) drainsReleasedBy(ctx context.Context, o client.Object) []reconcile.Request {
	pdb, ok := o.(*policyv1.PodDisruptionBudget)
	if !ok {
		return nil
	}
	nodes := t.evictions.release(pdb)
	if len(nodes) == 0 {
		return nil
	}
	want := map[string]bool{}
	for _, n := range nodes {
		want[n] = true
	}
	var claims v1.NodeClaimList
	if err := t.client.List(ctx, &claims); err != nil {
		t.log.Error(err, "mapping a PodDisruptionBudget to the drains it blocked", "pdb", pdb.Namespace+"/"+pdb.Name)
		return nil
	}
	var out []reconcile.Request
	for _, c := range claims.Items {
		if c.DeletionTimestamp != nil && want[c.Status.NodeName] {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: c.Name}})
		}
	}
	return out
}
