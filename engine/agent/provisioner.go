package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Event reasons the agent emits.
const (
	ReasonNominated          = "Nominated"
	ReasonFailedScheduling   = "FailedScheduling"
	ReasonLaunched           = "Launched"
	ReasonLaunchFailed       = "LaunchFailed"
	ReasonRegistered         = "Registered"
	ReasonInitialized        = "Initialized"
	ReasonTimedOut           = "TimedOut"
	ReasonDisrupting         = "Disrupting"
	ReasonEvicted            = "Evicted"
	ReasonEvictionBlocked    = "EvictionBlocked"
	ReasonTerminated         = "Terminated"
	ReasonGarbageCollected   = "GarbageCollected"
	ReasonNodeClassNotReady  = "NodeClassNotReady"
	ReasonInvalidPolicy      = "InvalidPolicy"
	ReasonInsufficientCapacy = "InsufficientCapacity"
)

// provisioner is the provisioning controller: it batches unschedulable
// pods, solves each batch with engine/packing on a fresh view, and creates
// the NodeClaims the solution needs (the lifecycle controller launches
// them), nominating the pods to them.
type provisioner struct {
	client    client.Client
	views     *viewBuilder
	nominated *nominations
	batcher   *batcher
	recorder  events.EventRecorder
	metrics   *metrics
	log       logr.Logger
	clock     agentClock
	timings   Timings
	// anticipate sizes each batch for the pods controllers are still
	// creating (Options.AnticipatePods); slots remember where.
	anticipate bool
	slots      *slots
	// await holds a plan's new nodes for the pods still to come
	// (Options.AwaitPods, awaiting.go).
	await bool
	// hints write each nominated pod's node into its
	// status.nominatedNodeName, for kube-scheduler (hint.go).
	hints *hinter
	// arrivals records when pods last came to the room slots held for
	// them (awaiting.go).
	arrivals *arrivals
	// mu keeps a batch and the awaiting-pods pass (awaiting.go) apart:
	// both nominate pods from a view of their own.
	mu sync.Mutex
}

// Register adds the batcher, the pod controller (an unschedulable pod
// starts or extends a batch; a nominated pod that runs records its startup
// latency) and the retry of pods still unschedulable (a limit may have
// freed up without any pod changing).
func (p *provisioner) Register(mgr manager.Manager) error {
	if err := mgr.Add(p.batcher); err != nil {
		return fmt.Errorf("adding the provisioning batcher: %w", err)
	}
	if p.anticipate {
		// Start the pod controllers' informers with the others, so the
		// first batch does not wait for them to sync.
		for _, obj := range []client.Object{&appsv1.ReplicaSet{}, &appsv1.StatefulSet{}, &batchv1.Job{}} {
			if _, err := mgr.GetCache().GetInformer(context.Background(), obj); err != nil {
				return fmt.Errorf("watching %T for the pods still to come: %w", obj, err)
			}
		}
	}
	err := ctrl.ControllerManagedBy(mgr).Named("provisioning").For(&corev1.Pod{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(reconcile.Func(p.reconcilePod))
	if err != nil {
		return fmt.Errorf("setting up the provisioning controller: %w", err)
	}
	if err := addEvery(mgr, "awaiting-pods", p.clock, awaitingInterval, p.log, p.fillAwaiting); err != nil {
		return err
	}
	return addEvery(mgr, "unschedulable-retry", p.clock, p.timings.UnschedulableRetry, p.log, p.retryUnschedulable)
}

func (p *provisioner) reconcilePod(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var pod corev1.Pod
	if err := p.client.Get(ctx, req.NamespacedName, &pod); err != nil {
		p.nominated.forget(req.String())
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if isUnschedulable(&pod) {
		p.batcher.TriggerFor(foreseenOwner(&pod))
		return reconcile.Result{}, nil
	}
	if pod.Status.Phase == corev1.PodRunning && p.nominated.forget(req.String()) {
		p.metrics.podStartup.Observe(p.clock.Since(pod.CreationTimestamp.Time).Seconds())
	}
	return reconcile.Result{}, nil
}

// retryUnschedulable starts a batch when pods are still unschedulable.
func (p *provisioner) retryUnschedulable(ctx context.Context, _ time.Time) error {
	var pods corev1.PodList
	if err := p.client.List(ctx, &pods); err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	for i := range pods.Items {
		if isUnschedulable(&pods.Items[i]) {
			p.batcher.Trigger()
			return nil
		}
	}
	return nil
}

// provision solves the current unschedulable pods and creates the claims
// the solution needs. The claims are persisted before anything calls the
// cloud (the lifecycle controller launches them), so a crash leaks nothing.
func (p *provisioner) provision(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := p.clock.Now()
	v, err := p.view(ctx, start)
	if err != nil {
		return err
	}
	reserved, filled, held := p.fillSlots(ctx, v, start)
	pending := v.snap.PendingPods()
	waiting := 0
	for _, pod := range pending {
		if !v.anticipated[pod.Key()] {
			waiting++
		}
	}
	p.metrics.queueDepth.Set(float64(waiting))
	if waiting <= 0 {
		p.metrics.unschedulablePods.Set(0)
		return nil
	}
	solveStart := p.clock.Now()
	solveCtx, cancel := context.WithTimeout(ctx, p.timings.SolveTimeout)
	res, err := packing.Solve(solveCtx, v.snap, pending)
	cancel()
	solved := p.clock.Since(solveStart)
	p.metrics.schedulingDuration.Observe(p.clock.Since(start).Seconds())
	if err != nil {
		return fmt.Errorf("solving %d pending pods: %w", len(pending), err)
	}
	unschedulable := 0
	for _, u := range res.Unschedulable {
		if !v.anticipated[u.Pod] {
			unschedulable++
		}
	}
	p.metrics.unschedulablePods.Set(float64(unschedulable))
	awaitingNew := p.awaitingClaims(v, res)
	claims, names, err := buildClaims(v.snap, res.Claims, awaitingNew)
	if err != nil {
		return err
	}
	awaiting := awaitingValues(v.claims)
	for _, b := range claims {
		maps.Copy(awaiting, awaitingValues(map[string]*v1.NodeClaim{b.claim.Name: b.claim}))
	}
	hints := hintsFor(v.objects.Pods, p.announce(v, res, names), awaiting)
	if len(awaitingNew) > 0 {
		// The new nodes start tainted, and only the pods planned there
		// will tolerate them: launch first, and write the tolerations
		// and nominations while the nodes boot (at 500 pods, the writes
		// took seconds the launches waited for).
		if err := p.createClaims(ctx, claims); err != nil {
			return err
		}
		p.hints.write(ctx, hints)
	} else {
		// Nominate first, and tell kube-scheduler where each pod goes
		// before the claims exist: a KWOK node registers within
		// milliseconds of its claim, and the scheduler binds pods to it
		// as soon as it does.
		p.hints.write(ctx, hints)
		if err := p.createClaims(ctx, claims); err != nil {
			return err
		}
	}
	p.slots.record(v, res, names, start)
	p.log.Info("solved a batch", "pods", waiting, "anticipated", len(pending)-waiting, "awaitingTheirNodes", reserved+len(filled), "heldForPodsToCome", held,
		"newClaims", len(res.Claims), "unschedulable", unschedulable,
		"costPerHour", res.CostPerHour, "lowerBoundPerHour", res.LowerBoundPerHour, "duration", p.clock.Since(start).String(),
		"view", solveStart.Sub(start).String(), "solve", solved.String())
	// The next batch must see these claims as in flight, or it would
	// launch for the same pods again: wait until the cache has them.
	return p.waitForCache(ctx, slices.Collect(maps.Values(names)))
}

// fillSlots reserves the room of the pods nominated before, nominates the
// pods that came to the room slots hold for them (writing their nominated
// node) and lifts the awaiting-pods taint once nothing more is to come. It
// returns how many pods were reserved, those nominated to slots, and how
// many pods still to come slots hold room for.
func (p *provisioner) fillSlots(ctx context.Context, v *clusterView, now time.Time) (reserved int, filled map[string]string, held int) {
	reserved = reserve(v, p.nominated.expected(v, v.pending, now))
	filled, heldOn := p.slots.fill(v, now)
	// The last arrival is the newest pod filled, by its creation: pods
	// that wait long enough for their nominations to lapse are filled
	// again, and are no arrival.
	for _, pod := range v.objects.Pods {
		if _, ok := filled[pod.Namespace+"/"+pod.Name]; ok {
			p.arrivals.mark(pod.CreationTimestamp.Time)
		}
	}
	p.nominateToSlots(v, filled, now)
	fillHints := hintsFor(v.objects.Pods, filled, awaitingValues(v.claims))
	p.hints.write(ctx, fillHints)
	p.liftAwaiting(ctx, v, heldOn, len(fillHints), now)
	for _, n := range heldOn {
		held += n
	}
	return reserved, filled, held
}

// view is the batch's view: with the pods still to come when the agent
// anticipates them (Options.AnticipatePods).
func (p *provisioner) view(ctx context.Context, now time.Time) (*clusterView, error) {
	if !p.anticipate {
		return p.views.view(ctx)
	}
	return p.views.anticipatingView(ctx, now, MaxAnticipatedPods)
}

// nominateToSlots nominates the pods slots.fill bound to the room an
// earlier batch planned for them.
func (p *provisioner) nominateToSlots(v *clusterView, filled map[string]string, now time.Time) {
	if len(filled) == 0 {
		return
	}
	for _, pod := range v.objects.Pods {
		key := pod.Namespace + "/" + pod.Name
		if target, ok := filled[key]; ok {
			p.nominated.nominate(target, key, now)
			p.recorder.Eventf(pod, nil, corev1.EventTypeNormal, ReasonNominated, "Provisioning", "Pod should schedule on %s", target)
		}
	}
}

// buildClaims builds a NodeClaim for every claim of a solution and returns
// them with their names by the packer's claim names. The claims named in
// awaiting (packer names) start with the awaiting-pods taint (awaiting.go).
func buildClaims(snap *state.Snapshot, claims []*packing.Claim, awaiting map[string]bool) ([]builtClaim, map[string]string, error) {
	pools := map[string]*state.Pool{}
	for _, pool := range snap.Pools {
		pools[pool.Name] = pool
	}
	names := map[string]string{}
	var out []builtClaim
	for _, c := range claims {
		pool := pools[c.Pool]
		if pool == nil {
			return nil, nil, fmt.Errorf("packing chose pool %q, which is not in the snapshot; this is always a bug", c.Pool)
		}
		claim, err := nodeClaimFor(c, pool)
		if err != nil {
			return nil, nil, err
		}
		if awaiting[c.Name] {
			claim.Spec.StartupTaints = append(claim.Spec.StartupTaints, awaitingTaintFor(claim.Name))
		}
		names[c.Name] = claim.Name
		out = append(out, builtClaim{planned: c, claim: claim})
	}
	return out, names, nil
}

// builtClaim is a NodeClaim to create and the packer's claim it is for.
type builtClaim struct {
	planned *packing.Claim
	claim   *v1.NodeClaim
}

// createClaims creates the NodeClaims.
func (p *provisioner) createClaims(ctx context.Context, claims []builtClaim) error {
	for _, b := range claims {
		c, claim := b.planned, b.claim
		if err := p.client.Create(ctx, claim); err != nil {
			return fmt.Errorf("creating nodeclaim %s for %d pods: %w", claim.Name, len(c.Pods), err)
		}
		pool := claim.Labels[v1.LabelNodePool]
		p.metrics.nodeClaimsCreated.WithLabelValues(pool).Inc()
		o := c.Chosen()
		p.log.Info("created nodeclaim", "nodeclaim", claim.Name, "nodepool", pool, "pods", len(c.Pods),
			"instanceType", o.InstanceType, "zone", o.Zone, "capacityType", o.CapacityType, "pricePerHour", o.PricePerHour, "options", len(c.Options))
	}
	return nil
}

// announce nominates placed pods (with a Nominated event) and emits
// FailedScheduling events with the packer's reason on the others; it
// returns the node or claim each pod was nominated to, by pod key.
func (p *provisioner) announce(v *clusterView, res *packing.Result, names map[string]string) map[string]string {
	targets := map[string]string{}
	pods := map[string]*corev1.Pod{}
	for _, pod := range v.objects.Pods {
		pods[pod.Namespace+"/"+pod.Name] = pod
	}
	now := p.clock.Now()
	for _, pl := range res.Placements {
		pod := pods[pl.Pod]
		if pod == nil || pod.Spec.NodeName != "" || v.anticipated[pl.Pod] {
			continue
		}
		target := pl.Node
		if n, ok := names[pl.Node]; ok {
			target = n
		}
		p.nominated.nominate(target, pl.Pod, now)
		targets[pl.Pod] = target
		p.recorder.Eventf(pod, nil, corev1.EventTypeNormal, ReasonNominated, "Provisioning", "Pod should schedule on nodeclaim %s", target)
	}
	extra := v.notReadySummary()
	for _, u := range res.Unschedulable {
		pod := pods[u.Pod]
		if pod == nil || v.anticipated[u.Pod] {
			continue
		}
		msg := u.Reason
		if extra != "" {
			msg += "; " + extra
		}
		p.recorder.Eventf(pod, nil, corev1.EventTypeWarning, ReasonFailedScheduling, "Provisioning", "Tenon cannot launch a node for this pod: %s", msg)
	}
	return targets
}

// waitForCache waits (up to CacheWaitTimeout) until the informer cache
// holds every named claim.
func (p *provisioner) waitForCache(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	return wait.PollUntilContextTimeout(ctx, p.timings.CachePollInterval, p.timings.CacheWaitTimeout, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			if err := p.client.Get(ctx, client.ObjectKey{Name: name}, &v1.NodeClaim{}); err != nil {
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				return false, err
			}
		}
		return true, nil
	})
}
