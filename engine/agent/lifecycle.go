package agent

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// setupLifecycle reconciles NodeClaims (and the Nodes they register as):
// launch, register, initialize, time out, terminate. A PodDisruptionBudget
// that allows a disruption again wakes the drains it blocked.
func (a *Agent) setupLifecycle(mgr manager.Manager) error {
	err := ctrl.ControllerManagedBy(mgr).Named("nodeclaim").For(&v1.NodeClaim{}).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(a.claimsOfNode)).
		Watches(&policyv1.PodDisruptionBudget{}, handler.EnqueueRequestsFromMapFunc(a.drainsReleasedBy)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 10}).
		Complete(reconcile.Func(a.reconcileClaim))
	if err != nil {
		return fmt.Errorf("setting up the nodeclaim controller: %w", err)
	}
	return nil
}

// claimsOfNode maps a Node to the claim it registered for.
func (a *Agent) claimsOfNode(ctx context.Context, o client.Object) []reconcile.Request {
	node := o.(*corev1.Node)
	if node.Spec.ProviderID == "" {
		return nil
	}
	var claims v1.NodeClaimList
	if err := a.client.List(ctx, &claims, client.MatchingFields{indexClaimProviderID: node.Spec.ProviderID}); err != nil {
		a.log.Error(err, "mapping a node to its nodeclaim", "node", node.Name)
		return nil
	}
	out := make([]reconcile.Request, 0, len(claims.Items))
	for _, c := range claims.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: c.Name}})
	}
	return out
}

func (a *Agent) reconcileClaim(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	claim := &v1.NodeClaim{}
	if err := a.client.Get(ctx, req.NamespacedName, claim); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if claim.DeletionTimestamp != nil {
		return a.terminate(ctx, claim)
	}
	if !controllerutil.ContainsFinalizer(claim, v1.TerminationFinalizer) {
		controllerutil.AddFinalizer(claim, v1.TerminationFinalizer)
		if err := a.client.Update(ctx, claim); err != nil {
			return reconcile.Result{}, ignoreConflict(err)
		}
	}
	if !isTrue(claim, v1.ConditionLaunched) {
		return a.launch(ctx, claim)
	}
	node, err := a.nodeOf(ctx, claim)
	if err != nil {
		return reconcile.Result{}, err
	}
	if node != nil && node.DeletionTimestamp != nil {
		// Someone deleted the node: terminate the claim, which drains it.
		a.log.Info("node deleted; terminating its nodeclaim", "node", node.Name, "nodeclaim", claim.Name)
		return reconcile.Result{}, client.IgnoreNotFound(a.client.Delete(ctx, claim))
	}
	if !isTrue(claim, v1.ConditionRegistered) {
		return a.register(ctx, claim, node)
	}
	if node == nil {
		// Registered, and the node is gone: the instance died under us.
		// Garbage collection checks with the cloud and cleans up.
		return reconcile.Result{}, nil
	}
	if !isTrue(claim, v1.ConditionInitialized) {
		return a.initialize(ctx, claim, node)
	}
	return reconcile.Result{}, nil
}

// launch calls the cloud for a claim not launched yet. The provider tries
// the claim's options in order; when none has capacity the claim is deleted
// so the next batch chooses again without the offerings the cloud marked
// unavailable.
func (a *Agent) launch(ctx context.Context, claim *v1.NodeClaim) (reconcile.Result, error) {
	if age := time.Since(claim.CreationTimestamp.Time); age > a.opts.LaunchTimeout {
		return a.giveUp(ctx, claim, ReasonTimedOut, fmt.Sprintf("not launched within %s", a.opts.LaunchTimeout))
	}
	launched, err := a.cloud.Create(ctx, claim)
	switch {
	case cloud.IsInsufficientCapacity(err):
		a.metrics.launchFailures.WithLabelValues("InsufficientCapacity").Inc()
		return a.giveUp(ctx, claim, ReasonInsufficientCapacy, err.Error())
	case cloud.IsNodeClassNotReady(err):
		a.metrics.launchFailures.WithLabelValues("NodeClassNotReady").Inc()
		a.recorder.Eventf(claim, nil, corev1.EventTypeWarning, ReasonNodeClassNotReady, "Launch", "%v", err)
		setCondition(claim, v1.ConditionLaunched, metav1.ConditionFalse, ReasonNodeClassNotReady, err.Error())
		if uerr := a.client.Status().Update(ctx, claim); uerr != nil {
			return reconcile.Result{}, ignoreConflict(uerr)
		}
		return reconcile.Result{RequeueAfter: 10 * time.Second}, nil
	case err != nil:
		a.metrics.launchFailures.WithLabelValues("Error").Inc()
		a.recorder.Eventf(claim, nil, corev1.EventTypeWarning, ReasonLaunchFailed, "Launch", "launching: %v", err)
		// controller-runtime retries with exponential backoff.
		return reconcile.Result{}, fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
	}
	claim.Status.ProviderID = launched.Status.ProviderID
	claim.Status.ImageID = launched.Status.ImageID
	claim.Status.InstanceType = launched.Status.InstanceType
	claim.Status.Zone = launched.Status.Zone
	claim.Status.CapacityType = launched.Status.CapacityType
	claim.Status.Capacity = launched.Status.Capacity
	claim.Status.Allocatable = launched.Status.Allocatable
	setCondition(claim, v1.ConditionLaunched, metav1.ConditionTrue, ReasonLaunched, "")
	if err := a.client.Status().Update(ctx, claim); err != nil {
		// The cloud call is idempotent per claim: a retry finds the same
		// instance.
		return reconcile.Result{}, fmt.Errorf("recording the launch of nodeclaim %s: %w", claim.Name, err)
	}
	a.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonLaunched, "Launch", "Launched %s (%s, %s) as %s",
		claim.Status.InstanceType, claim.Status.Zone, claim.Status.CapacityType, claim.Status.ProviderID)
	a.log.Info("launched nodeclaim", "nodeclaim", claim.Name, "providerID", claim.Status.ProviderID, "instanceType", claim.Status.InstanceType)
	return reconcile.Result{RequeueAfter: a.opts.RegistrationTimeout}, nil
}

// giveUp deletes a claim that cannot become a node, saying why.
func (a *Agent) giveUp(ctx context.Context, claim *v1.NodeClaim, reason, why string) (reconcile.Result, error) {
	a.log.Info("deleting nodeclaim", "nodeclaim", claim.Name, "reason", reason, "detail", why)
	a.recorder.Eventf(claim, nil, corev1.EventTypeWarning, reason, "Delete", "Deleting the nodeclaim: %s", why)
	a.metrics.nodesTerminated.WithLabelValues(claim.Labels[v1.LabelNodePool], reason).Inc()
	return reconcile.Result{}, client.IgnoreNotFound(a.client.Delete(ctx, claim))
}

// nodeOf returns the Node with the claim's provider ID, or nil.
func (a *Agent) nodeOf(ctx context.Context, claim *v1.NodeClaim) (*corev1.Node, error) {
	if claim.Status.ProviderID == "" {
		return nil, nil
	}
	var nodes corev1.NodeList
	if err := a.client.List(ctx, &nodes, client.MatchingFields{indexNodeProviderID: claim.Status.ProviderID}); err != nil {
		return nil, fmt.Errorf("finding the node of nodeclaim %s: %w", claim.Name, err)
	}
	if len(nodes.Items) == 0 {
		return nil, nil
	}
	return &nodes.Items[0], nil
}

// register links the Node that appeared for claim: labels it (pool labels,
// registered), puts the termination finalizer on it and records its name.
func (a *Agent) register(ctx context.Context, claim *v1.NodeClaim, node *corev1.Node) (reconcile.Result, error) {
	if node == nil {
		launchedAt := conditionTime(claim, v1.ConditionLaunched)
		if waited := time.Since(launchedAt); waited > a.opts.RegistrationTimeout {
			return a.giveUp(ctx, claim, ReasonTimedOut, fmt.Sprintf("its node did not register within %s", a.opts.RegistrationTimeout))
		}
		// The Node watch wakes us when it appears.
		return reconcile.Result{RequeueAfter: a.opts.RegistrationTimeout - time.Since(launchedAt)}, nil
	}
	patch := client.MergeFrom(node.DeepCopy())
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	for k, val := range claim.Labels {
		if _, ok := node.Labels[k]; !ok {
			node.Labels[k] = val
		}
	}
	node.Labels[v1.LabelNodeRegistered] = "true"
	controllerutil.AddFinalizer(node, v1.TerminationFinalizer)
	if err := a.client.Patch(ctx, node, patch); err != nil {
		return reconcile.Result{}, fmt.Errorf("labelling node %s of nodeclaim %s: %w", node.Name, claim.Name, err)
	}
	claim.Status.NodeName = node.Name
	setCondition(claim, v1.ConditionRegistered, metav1.ConditionTrue, ReasonRegistered, "")
	if err := a.client.Status().Update(ctx, claim); err != nil {
		return reconcile.Result{}, ignoreConflict(err)
	}
	a.metrics.nodesCreated.WithLabelValues(claim.Labels[v1.LabelNodePool]).Inc()
	a.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonRegistered, "Register", "Node %s registered", node.Name)
	return reconcile.Result{}, nil
}

// initialize marks the claim and node initialized once the node is Ready
// and none of the claim's startup taints is left.
func (a *Agent) initialize(ctx context.Context, claim *v1.NodeClaim, node *corev1.Node) (reconcile.Result, error) {
	if !nodeReady(node) {
		return reconcile.Result{}, nil
	}
	for _, st := range claim.Spec.StartupTaints {
		if slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == st.Key && t.Effect == st.Effect }) {
			return reconcile.Result{}, nil
		}
	}
	if node.Labels[v1.LabelNodeInitialized] != "true" {
		patch := client.MergeFrom(node.DeepCopy())
		node.Labels[v1.LabelNodeInitialized] = "true"
		if err := a.client.Patch(ctx, node, patch); err != nil {
			return reconcile.Result{}, fmt.Errorf("labelling node %s initialized: %w", node.Name, err)
		}
	}
	setCondition(claim, v1.ConditionInitialized, metav1.ConditionTrue, ReasonInitialized, "")
	if claim.Status.LastPodEventTime.IsZero() {
		claim.Status.LastPodEventTime = metav1.Now()
	}
	setCondition(claim, v1.ConditionReady, metav1.ConditionTrue, ReasonInitialized, "")
	if err := a.client.Status().Update(ctx, claim); err != nil {
		return reconcile.Result{}, ignoreConflict(err)
	}
	a.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonInitialized, "Initialize", "Node %s is ready", node.Name)
	return reconcile.Result{}, nil
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func isTrue(claim *v1.NodeClaim, condition string) bool {
	return meta.IsStatusConditionTrue(claim.Status.Conditions, condition)
}

func conditionTime(claim *v1.NodeClaim, condition string) time.Time {
	if c := meta.FindStatusCondition(claim.Status.Conditions, condition); c != nil {
		return c.LastTransitionTime.Time
	}
	return claim.CreationTimestamp.Time
}

func setCondition(claim *v1.NodeClaim, condition string, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&claim.Status.Conditions, metav1.Condition{
		Type: condition, Status: status, Reason: reason, Message: message, ObservedGeneration: claim.Generation,
	})
}

// ignoreConflict turns a write conflict into a quiet requeue: the watch
// brings the newer object.
func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}
