package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// lifecycle is the NodeClaim controller: it launches claims through the
// cloud, registers the Node that appears for each, initializes it, gives up
// after the timeouts, and hands deleted claims to termination.
type lifecycle struct {
	client      client.Client
	hints       *hinter
	cloud       cloud.CloudProvider
	termination *termination
	recorder    events.EventRecorder
	metrics     *metrics
	log         logr.Logger
	clock       agentClock
	timings     Timings
	// arrivals says when the last pod of a burst came to the room held
	// for it: the awaiting-pods taint's window runs from then.
	arrivals *arrivals
}

// Register reconciles NodeClaims (and the Nodes they register as). A
// PodDisruptionBudget that allows a disruption again wakes the drains it
// blocked.
func (l *lifecycle) Register(mgr manager.Manager) error {
	err := ctrl.ControllerManagedBy(mgr).Named("nodeclaim").For(&v1.NodeClaim{}).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(l.claimsOfNode)).
		Watches(&policyv1.PodDisruptionBudget{}, handler.EnqueueRequestsFromMapFunc(l.termination.drainsReleasedBy)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 10}).
		Complete(reconcile.Func(l.reconcileClaim))
	if err != nil {
		return fmt.Errorf("setting up the nodeclaim controller: %w", err)
	}
	return nil
}

// claimsOfNode maps a Node to the claim it registered for.
func (l *lifecycle) claimsOfNode(ctx context.Context, o client.Object) []reconcile.Request {
	reqs, err := claimsOfNode(ctx, l.client, o.(*corev1.Node))
	if err != nil {
		l.log.Error(err, "mapping a node to its nodeclaim")
	}
	return reqs
}

func (l *lifecycle) reconcileClaim(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	claim := &v1.NodeClaim{}
	if err := l.client.Get(ctx, req.NamespacedName, claim); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if claim.DeletionTimestamp != nil {
		return l.termination.terminate(ctx, claim)
	}
	if !controllerutil.ContainsFinalizer(claim, v1.TerminationFinalizer) {
		controllerutil.AddFinalizer(claim, v1.TerminationFinalizer)
		if err := l.client.Update(ctx, claim); err != nil {
			return reconcile.Result{}, ignoreConflict(err)
		}
	}
	if !isTrue(claim, v1.ConditionLaunched) {
		return l.launch(ctx, claim)
	}
	node, err := nodeOf(ctx, l.client, claim)
	if err != nil {
		return reconcile.Result{}, err
	}
	if node != nil && node.DeletionTimestamp != nil {
		// Someone deleted the node: terminate the claim, which drains it.
		l.log.Info("node deleted; terminating its nodeclaim", "node", node.Name, "nodeclaim", claim.Name)
		return reconcile.Result{}, client.IgnoreNotFound(l.client.Delete(ctx, claim))
	}
	if !isTrue(claim, v1.ConditionRegistered) {
		return l.register(ctx, claim, node)
	}
	if node == nil {
		// Registered, and the node is gone: the instance died under us.
		// Garbage collection checks with the cloud and cleans up.
		return reconcile.Result{}, nil
	}
	if !isTrue(claim, v1.ConditionInitialized) {
		return l.initialize(ctx, claim, node)
	}
	return reconcile.Result{}, nil
}

// launch calls the cloud for a claim not launched yet. The provider tries
// the claim's options in order; when none has capacity the claim is deleted
// so the next batch chooses again without the offerings the cloud marked
// unavailable.
func (l *lifecycle) launch(ctx context.Context, claim *v1.NodeClaim) (reconcile.Result, error) {
	if age := l.clock.Since(claim.CreationTimestamp.Time); age > l.timings.LaunchTimeout {
		return l.giveUp(ctx, claim, ReasonTimedOut, fmt.Sprintf("not launched within %s", l.timings.LaunchTimeout))
	}
	launched, err := l.cloud.Create(ctx, claim)
	switch {
	case cloud.IsInsufficientCapacity(err):
		l.metrics.launchFailures.WithLabelValues("InsufficientCapacity").Inc()
		return l.giveUp(ctx, claim, ReasonInsufficientCapacy, err.Error())
	case cloud.IsNodeClassNotReady(err):
		l.metrics.launchFailures.WithLabelValues("NodeClassNotReady").Inc()
		l.recorder.Eventf(claim, nil, corev1.EventTypeWarning, ReasonNodeClassNotReady, "Launch", "%v", err)
		setCondition(claim, v1.ConditionLaunched, metav1.ConditionFalse, ReasonNodeClassNotReady, err.Error(), l.clock.Now())
		if uerr := l.client.Status().Update(ctx, claim); uerr != nil {
			return reconcile.Result{}, ignoreConflict(uerr)
		}
		return reconcile.Result{RequeueAfter: l.timings.NodeClassRetry}, nil
	case err != nil:
		l.metrics.launchFailures.WithLabelValues("Error").Inc()
		l.recorder.Eventf(claim, nil, corev1.EventTypeWarning, ReasonLaunchFailed, "Launch", "launching: %v", err)
		// controller-runtime retries with exponential backoff.
		return reconcile.Result{}, fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
	}
	recordLaunch(claim, launched)
	setCondition(claim, v1.ConditionLaunched, metav1.ConditionTrue, ReasonLaunched, "", l.clock.Now())
	if err := l.client.Status().Update(ctx, claim); err != nil {
		if l.deletedMeanwhile(ctx, claim, err) {
			return l.launchedForDeletedClaim(ctx, claim)
		}
		// The cloud call is idempotent per claim: a retry finds the same
		// instance.
		return reconcile.Result{}, fmt.Errorf("recording the launch of nodeclaim %s: %w", claim.Name, err)
	}
	if recordReservation(claim, launched) {
		// The reservation is known only now: the claim's labels carry it
		// for its node and for packing, which counts a reservation's
		// launched nodes by them.
		if err := l.client.Update(ctx, claim); err != nil {
			return reconcile.Result{}, fmt.Errorf("labelling nodeclaim %s with its capacity reservation: %w", claim.Name, err)
		}
	}
	l.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonLaunched, "Launch", "Launched %s (%s, %s) as %s",
		claim.Status.InstanceType, claim.Status.Zone, claim.Status.CapacityType, claim.Status.ProviderID)
	l.log.Info("launched nodeclaim", "nodeclaim", claim.Name, "providerID", claim.Status.ProviderID, "instanceType", claim.Status.InstanceType)
	return reconcile.Result{RequeueAfter: l.timings.RegistrationTimeout}, nil
}

// deletedMeanwhile reports whether the claim whose launch could not be recorded (err) is gone
// or being deleted: a deletion changes the object, so it shows as NotFound or as a conflict.
func (l *lifecycle) deletedMeanwhile(ctx context.Context, claim *v1.NodeClaim, err error) bool {
	if apierrors.IsNotFound(err) {
		return true
	}
	if !apierrors.IsConflict(err) {
		return false
	}
	latest := &v1.NodeClaim{}
	if gerr := l.client.Get(ctx, client.ObjectKeyFromObject(claim), latest); gerr != nil {
		return apierrors.IsNotFound(gerr)
	}
	return latest.DeletionTimestamp != nil
}

// launchedForDeletedClaim terminates an instance whose claim was deleted (by hand, or by a
// scale-down) while the cloud launched it: no claim tracks it any more, so nothing else would
// until garbage collection's grace period ran out, and the pool would pay for it meanwhile.
func (l *lifecycle) launchedForDeletedClaim(ctx context.Context, claim *v1.NodeClaim) (reconcile.Result, error) {
	if err := l.cloud.Delete(ctx, claim); err != nil && !cloud.IsNotFound(err) {
		// Garbage collection will find it; say so and retry meanwhile.
		return reconcile.Result{}, fmt.Errorf("terminating %s, launched for nodeclaim %s deleted meanwhile: %w", claim.Status.ProviderID, claim.Name, err)
	}
	l.metrics.nodesTerminated.WithLabelValues(claim.Labels[v1.LabelNodePool], "ClaimDeleted").Inc()
	l.log.Info("terminated an instance whose nodeclaim was deleted while it launched", "nodeclaim", claim.Name, "providerID", claim.Status.ProviderID)
	return reconcile.Result{}, nil
}

// recordLaunch copies what the cloud launched into claim's status.
func recordLaunch(claim, launched *v1.NodeClaim) {
	claim.Status.ProviderID = launched.Status.ProviderID
	claim.Status.ImageID = launched.Status.ImageID
	claim.Status.InstanceType = launched.Status.InstanceType
	claim.Status.Zone = launched.Status.Zone
	claim.Status.CapacityType = launched.Status.CapacityType
	claim.Status.Capacity = launched.Status.Capacity
	claim.Status.Allocatable = launched.Status.Allocatable
}

// recordReservation copies the capacity reservation labels of a launch
// into claim's labels, reporting whether any changed.
func recordReservation(claim, launched *v1.NodeClaim) bool {
	changed := false
	for _, k := range []string{v1.LabelCapacityReservationID, v1.LabelCapacityReservationType} {
		v, ok := launched.Labels[k]
		if !ok || claim.Labels[k] == v {
			continue
		}
		if claim.Labels == nil {
			claim.Labels = map[string]string{}
		}
		claim.Labels[k] = v
		changed = true
	}
	return changed
}

// giveUp deletes a claim that cannot become a node, saying why.
func (l *lifecycle) giveUp(ctx context.Context, claim *v1.NodeClaim, reason, why string) (reconcile.Result, error) {
	l.log.Info("deleting nodeclaim", "nodeclaim", claim.Name, "reason", reason, "detail", why)
	l.recorder.Eventf(claim, nil, corev1.EventTypeWarning, reason, "Delete", "Deleting the nodeclaim: %s", why)
	l.metrics.nodesTerminated.WithLabelValues(claim.Labels[v1.LabelNodePool], reason).Inc()
	return reconcile.Result{}, client.IgnoreNotFound(l.client.Delete(ctx, claim))
}

// register links the Node that appeared for claim: labels it (the claim's
// labels and single-valued requirements it lacks, such as kubernetes.io/team,
// which a kubelet may not set on itself, the Karpenter aliases of its
// well-known labels, and registered), puts the
// termination finalizer on it and records its name.
func (l *lifecycle) register(ctx context.Context, claim *v1.NodeClaim, node *corev1.Node) (reconcile.Result, error) {
	if node == nil {
		waited := l.clock.Since(conditionTime(claim, v1.ConditionLaunched))
		if waited > l.timings.RegistrationTimeout {
			return l.giveUp(ctx, claim, ReasonTimedOut, fmt.Sprintf("its node did not register within %s", l.timings.RegistrationTimeout))
		}
		// The Node watch wakes us when it appears.
		return reconcile.Result{RequeueAfter: l.timings.RegistrationTimeout - waited}, nil
	}
	patch := client.MergeFrom(node.DeepCopy())
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	for k, val := range claim.NodeLabels() {
		if _, ok := node.Labels[k]; !ok {
			node.Labels[k] = val
		}
	}
	// Karpenter's spellings of the well-known labels, so workloads written
	// for Karpenter (nodeSelector karpenter.sh/capacity-type: spot) schedule
	// here unchanged, as packing, which reads them as Tenon's, planned.
	maps.Copy(node.Labels, scheduling.KarpenterAliases(node.Labels))
	node.Labels[v1.LabelNodeRegistered] = "true"
	controllerutil.AddFinalizer(node, v1.TerminationFinalizer)
	if err := l.client.Patch(ctx, node, patch); err != nil {
		return reconcile.Result{}, fmt.Errorf("labelling node %s of nodeclaim %s: %w", node.Name, claim.Name, err)
	}
	claim.Status.NodeName = node.Name
	setCondition(claim, v1.ConditionRegistered, metav1.ConditionTrue, ReasonRegistered, "", l.clock.Now())
	if err := l.client.Status().Update(ctx, claim); err != nil {
		return reconcile.Result{}, ignoreConflict(err)
	}
	l.metrics.nodesCreated.WithLabelValues(claim.Labels[v1.LabelNodePool]).Inc()
	l.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonRegistered, "Register", "Node %s registered", node.Name)
	if node.Name != claim.Name {
		// The provisioner pointed the claim's pods at the claim's name
		// (hint.go); the node registered under another: point them at it
		// before it is Ready.
		var pods corev1.PodList
		if err := l.client.List(ctx, &pods, client.MatchingFields{indexPodNominated: claim.Name}); err != nil {
			return reconcile.Result{}, fmt.Errorf("listing the pods nominated to nodeclaim %s: %w", claim.Name, err)
		}
		targets := map[string]string{}
		for i := range pods.Items {
			targets[pods.Items[i].Namespace+"/"+pods.Items[i].Name] = node.Name
		}
		l.hints.write(ctx, hintsFor(podPointers(pods.Items), targets, nil))
	}
	return reconcile.Result{}, nil
}

func podPointers(pods []corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	for i := range pods {
		out[i] = &pods[i]
	}
	return out
}

// initialize marks the claim and node initialized once the node is Ready
// and none of the claim's startup taints is left.
func (l *lifecycle) initialize(ctx context.Context, claim *v1.NodeClaim, node *corev1.Node) (reconcile.Result, error) {
	if !nodeReady(node) {
		return reconcile.Result{}, nil
	}
	if hasAwaitingTaint(node) {
		// The provisioner lifts it once the pods planned there came
		// (awaiting.go); pods that never come hold it a window at most.
		expired, left := awaitingExpired(claim, l.clock.Now(), l.timings.NominationWindow, l.arrivals.at())
		if !expired {
			return reconcile.Result{RequeueAfter: left}, nil
		}
		if err := liftAwaitingTaint(ctx, l.client, node); err != nil {
			return reconcile.Result{}, err
		}
		l.log.Info("lifted the awaiting-pods taint: the nomination window ended", "node", node.Name, "nodeclaim", claim.Name)
		// The node's update brings the claim back here (claimsOfNode).
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
		if err := l.client.Patch(ctx, node, patch); err != nil {
			return reconcile.Result{}, fmt.Errorf("labelling node %s initialized: %w", node.Name, err)
		}
	}
	now := l.clock.Now()
	setCondition(claim, v1.ConditionInitialized, metav1.ConditionTrue, ReasonInitialized, "", now)
	if claim.Status.LastPodEventTime.IsZero() {
		// Disruption's consolidateAfter counts from here until a pod comes
		// or goes (claimConditions keeps it current).
		claim.Status.LastPodEventTime = metav1.NewTime(now)
	}
	setCondition(claim, v1.ConditionReady, metav1.ConditionTrue, ReasonInitialized, "", now)
	if err := l.client.Status().Update(ctx, claim); err != nil {
		return reconcile.Result{}, ignoreConflict(err)
	}
	l.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonInitialized, "Initialize", "Node %s is ready", node.Name)
	return reconcile.Result{}, nil
}
