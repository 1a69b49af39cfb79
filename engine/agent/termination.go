package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// disruptedTaint keeps the scheduler off a node being terminated.
var disruptedTaint = corev1.Taint{Key: v1.TaintKeyDisrupted, Effect: corev1.TaintEffectNoSchedule}

// termination drains the nodes of deleted claims: taint, evict in order
// through the Eviction API honouring PDBs (with a per-pod backoff after a
// refusal), then delete the instance and the Node and drop the finalizers.
// It also releases deleted Nodes whose claim is gone.
type termination struct {
	client    client.Client
	cloud     cloud.CloudProvider
	evictions *evictionBackoff
	recorder  events.EventRecorder
	metrics   *metrics
	log       logr.Logger
	clock     agentClock
	timings   Timings
	// drained is signalled each time a claim is terminated (consolidation
	// waits for it); nil signals nothing.
	drained *wake
}

// terminate drains a deleted claim's node, deletes the instance and the
// Node, and drops the finalizers.
func (t *termination) terminate(ctx context.Context, claim *v1.NodeClaim) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(claim, v1.TerminationFinalizer) {
		return reconcile.Result{}, nil
	}
	node, err := nodeOf(ctx, t.client, claim)
	if err != nil {
		return reconcile.Result{}, err
	}
	if node != nil {
		done, err := t.drain(ctx, claim, node)
		if err != nil {
			return reconcile.Result{}, err
		}
		if !done {
			return reconcile.Result{RequeueAfter: t.timings.DrainRetry}, nil
		}
	}
	// Without a provider ID the launch may still have made an instance (its record lost to
	// the deletion): the cloud looks it up by the claim's name.
	if err := t.cloud.Delete(ctx, claim); err != nil && !cloud.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("deleting the instance of nodeclaim %s: %w", claim.Name, err)
	}
	if node != nil {
		if err := t.releaseNode(ctx, node); err != nil {
			return reconcile.Result{}, err
		}
	}
	reason := claim.Annotations[annotationDisruptionReason]
	if reason == "" {
		reason = "Deleted"
	}
	// The optimistic lock makes a run on a stale copy (the finalizer
	// already gone) fail instead of counting the termination twice.
	patch := client.MergeFromWithOptions(claim.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(claim, v1.TerminationFinalizer)
	if err := t.client.Patch(ctx, claim, patch); err != nil {
		return reconcile.Result{}, ignoreConflict(client.IgnoreNotFound(err))
	}
	t.metrics.nodesTerminated.WithLabelValues(claim.Labels[v1.LabelNodePool], reason).Inc()
	t.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonTerminated, "Terminate", "Terminated the instance %s (%s)", claim.Status.ProviderID, reason)
	t.log.Info("terminated nodeclaim", "nodeclaim", claim.Name, "node", claim.Status.NodeName, "reason", reason)
	t.drained.signal()
	return reconcile.Result{}, nil
}

// releaseNode drops the termination finalizer from node and deletes it.
func (t *termination) releaseNode(ctx context.Context, node *corev1.Node) error {
	if controllerutil.ContainsFinalizer(node, v1.TerminationFinalizer) {
		patch := client.MergeFrom(node.DeepCopy())
		controllerutil.RemoveFinalizer(node, v1.TerminationFinalizer)
		if err := t.client.Patch(ctx, node, patch); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing the finalizer of node %s: %w", node.Name, err)
		}
	}
	if node.DeletionTimestamp == nil {
		if err := t.client.Delete(ctx, node); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting node %s: %w", node.Name, err)
		}
	}
	return nil
}

// drain taints node and evicts its pods in order — ordinary pods, then
// critical ones, then daemonset pods — one group at a time, honouring PDBs
// until the claim's terminationGracePeriod, after which pods are deleted.
// An eviction the API refuses with 429 is retried after a per-pod backoff
// (evictionBackoff), or at once when the budget allows a disruption again;
// the pods of a group are all asked, so under maxUnavailable: 1 the API
// lets one through at a time. It reports whether the node is empty.
func (t *termination) drain(ctx context.Context, claim *v1.NodeClaim, node *corev1.Node) (bool, error) {
	if !hasTaint(node, disruptedTaint) {
		patch := client.MergeFrom(node.DeepCopy())
		node.Spec.Taints = append(node.Spec.Taints, disruptedTaint)
		if err := t.client.Patch(ctx, node, patch); err != nil {
			return false, fmt.Errorf("tainting node %s: %w", node.Name, err)
		}
		t.recorder.Eventf(node, nil, corev1.EventTypeNormal, ReasonDisrupting, "Drain", "Draining the node: nodeclaim %s is being deleted", claim.Name)
	}
	var pods corev1.PodList
	if err := t.client.List(ctx, &pods, client.MatchingFields{indexPodNodeName: node.Name}); err != nil {
		return false, fmt.Errorf("listing the pods of node %s: %w", node.Name, err)
	}
	now := t.clock.Now()
	unreachable := !nodeReady(node)
	groups := make([][]*corev1.Pod, 3)
	for i := range pods.Items {
		p := &pods.Items[i]
		if !needsEviction(p) || (unreachable && stuckTerminating(p, now)) {
			continue
		}
		groups[evictionGroup(p)] = append(groups[evictionGroup(p)], p)
	}
	force := t.graceOver(claim)
	for _, group := range groups {
		if len(group) == 0 {
			continue
		}
		for _, p := range group {
			if p.DeletionTimestamp != nil && !force {
				continue // leaving already
			}
			if !force && !t.evictions.due(p, now) {
				continue // a PDB refused it recently
			}
			if err := t.evict(ctx, p, force); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	t.evictions.forgetNode(node.Name)
	return true, nil
}

// graceOver reports whether a deleted claim's terminationGracePeriod has
// passed: its remaining pods are then deleted, PDBs or not.
func (t *termination) graceOver(claim *v1.NodeClaim) bool {
	if claim.Spec.TerminationGracePeriod == nil || claim.DeletionTimestamp == nil {
		return false
	}
	d, ok := claim.Spec.TerminationGracePeriod.Duration()
	return ok && t.clock.Since(claim.DeletionTimestamp.Time) > d
}

// stuckTerminating reports whether a pod being deleted is past its
// deletion time (its grace period over). On a node that is not Ready no
// kubelet will confirm it is gone, so the drain does not wait for it:
// its controller has already made a replacement (a terminating pod does
// not count as a replica), and the pod is garbage-collected once the node
// is deleted. Without this an unhealthy node (node repair, an
// interruption of a dead instance) would drain until terminationGracePeriod,
// or forever without one.
func stuckTerminating(p *corev1.Pod, now time.Time) bool {
	return p.DeletionTimestamp != nil && now.After(p.DeletionTimestamp.Time)
}

// needsEviction reports whether a pod on a draining node must leave first:
// not finished, not a static (mirror) pod, not tolerating the disruption
// taint.
func needsEviction(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	for _, t := range p.Spec.Tolerations {
		// Only an explicit toleration of the disruption taint keeps a pod
		// on a draining node; a wildcard toleration does not.
		if t.Key == disruptedTaint.Key && (t.Effect == "" || t.Effect == disruptedTaint.Effect) {
			return false
		}
	}
	return true
}

// evictionGroup orders pods for draining: 0 ordinary, 1 critical, 2
// daemonset pods (which the node needs until the end).
func evictionGroup(p *corev1.Pod) int {
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller && o.Kind == "DaemonSet" {
			return 2
		}
	}
	if p.Spec.PriorityClassName == "system-cluster-critical" || p.Spec.PriorityClassName == "system-node-critical" ||
		(p.Spec.Priority != nil && *p.Spec.Priority >= 2_000_000_000) {
		return 1
	}
	return 0
}

// evict asks the Eviction API to remove p (or deletes it when force is
// set, the grace period being over). A 429 (a PDB forbids it now) is not
// an error: it is recorded in the backoff and the drain retries.
func (t *termination) evict(ctx context.Context, p *corev1.Pod, force bool) error {
	if force {
		err := t.client.Delete(ctx, p)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting pod %s/%s after the termination grace period: %w", p.Namespace, p.Name, err)
		}
		t.metrics.evictions.WithLabelValues("forced").Inc()
		return nil
	}
	eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
	err := t.client.SubResource("eviction").Create(ctx, p, eviction)
	switch {
	case err == nil:
		t.evictions.forget(p.UID)
		t.metrics.evictions.WithLabelValues("evicted").Inc()
		t.recorder.Eventf(p, nil, corev1.EventTypeNormal, ReasonEvicted, "Evict", "Evicted: node %s is being terminated", p.Spec.NodeName)
		return nil
	case apierrors.IsNotFound(err):
		t.evictions.forget(p.UID)
		return nil
	case apierrors.IsTooManyRequests(err):
		wait := t.evictions.refused(p, t.clock.Now())
		t.metrics.evictions.WithLabelValues("blocked").Inc()
		t.recorder.Eventf(p, nil, corev1.EventTypeWarning, ReasonEvictionBlocked, "Evict", "Eviction blocked by a PodDisruptionBudget; retrying in %s, or as soon as the budget allows one: %v", wait, err)
		return nil
	}
	return fmt.Errorf("evicting pod %s/%s: %w", p.Namespace, p.Name, err)
}

func hasTaint(node *corev1.Node, taint corev1.Taint) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == taint.Key && t.Effect == taint.Effect {
			return true
		}
	}
	return false
}

// Register adds the controller of Nodes being deleted that carry the
// termination finalizer: their claim is deleted (which drains them); a
// node whose claim is gone is released.
func (t *termination) Register(mgr manager.Manager) error {
	err := ctrl.ControllerManagedBy(mgr).Named("node-termination").For(&corev1.Node{}).
		Complete(reconcile.Func(t.reconcileNode))
	if err != nil {
		return fmt.Errorf("setting up the node termination controller: %w", err)
	}
	return nil
}

func (t *termination) reconcileNode(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	node := &corev1.Node{}
	if err := t.client.Get(ctx, req.NamespacedName, node); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if node.DeletionTimestamp == nil || !controllerutil.ContainsFinalizer(node, v1.TerminationFinalizer) {
		return reconcile.Result{}, nil
	}
	claims, err := claimsOfNode(ctx, t.client, node)
	if err != nil {
		return reconcile.Result{}, err
	}
	if len(claims) == 0 {
		return reconcile.Result{}, t.releaseNode(ctx, node)
	}
	for _, r := range claims {
		claim := &v1.NodeClaim{}
		if err := t.client.Get(ctx, r.NamespacedName, claim); err != nil {
			continue
		}
		if claim.DeletionTimestamp == nil {
			if err := t.client.Delete(ctx, claim); client.IgnoreNotFound(err) != nil {
				return reconcile.Result{}, fmt.Errorf("deleting nodeclaim %s of deleted node %s: %w", claim.Name, node.Name, err)
			}
		}
	}
	return reconcile.Result{}, nil
}
