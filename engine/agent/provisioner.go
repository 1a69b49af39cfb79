package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
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

// solveTimeout bounds one packing solve.
const solveTimeout = 30 * time.Second

// setupProvisioning watches pods: an unschedulable pod starts or extends a
// batch; a nominated pod that runs records its startup latency.
func (a *Agent) setupProvisioning(mgr manager.Manager) error {
	if err := mgr.Add(a.batcher); err != nil {
		return fmt.Errorf("adding the provisioning batcher: %w", err)
	}
	err := ctrl.ControllerManagedBy(mgr).Named("provisioning").For(&corev1.Pod{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(reconcile.Func(a.reconcilePod))
	if err != nil {
		return fmt.Errorf("setting up the provisioning controller: %w", err)
	}
	return nil
}

func (a *Agent) reconcilePod(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var pod corev1.Pod
	if err := a.client.Get(ctx, req.NamespacedName, &pod); err != nil {
		a.nominated.forget(req.String())
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if isUnschedulable(&pod) {
		a.batcher.Trigger()
		return reconcile.Result{}, nil
	}
	if pod.Status.Phase == corev1.PodRunning && a.nominated.forget(req.String()) {
		a.metrics.podStartup.Observe(time.Since(pod.CreationTimestamp.Time).Seconds())
	}
	return reconcile.Result{}, nil
}

// provision solves the current unschedulable pods and creates the claims
// the solution needs. The claims are persisted before anything calls the
// cloud (the lifecycle controller launches them), so a crash leaks nothing.
func (a *Agent) provision(ctx context.Context) error {
	start := time.Now()
	v, err := a.view(ctx)
	if err != nil {
		return err
	}
	pending := v.snap.PendingPods()
	a.metrics.queueDepth.Set(float64(len(pending)))
	if len(pending) == 0 {
		a.metrics.unschedulablePods.Set(0)
		return nil
	}
	solveCtx, cancel := context.WithTimeout(ctx, solveTimeout)
	res, err := packing.Solve(solveCtx, v.snap, pending)
	cancel()
	a.metrics.schedulingDuration.Observe(time.Since(start).Seconds())
	if err != nil {
		return fmt.Errorf("solving %d pending pods: %w", len(pending), err)
	}
	a.metrics.unschedulablePods.Set(float64(len(res.Unschedulable)))
	pools := map[string]*state.Pool{}
	for _, p := range v.snap.Pools {
		pools[p.Name] = p
	}
	names := map[string]string{}
	var created []string
	for _, c := range res.Claims {
		pool := pools[c.Pool]
		if pool == nil {
			return fmt.Errorf("packing chose pool %q, which is not in the snapshot; this is always a bug", c.Pool)
		}
		claim, err := nodeClaimFor(c, pool)
		if err != nil {
			return err
		}
		if err := a.client.Create(ctx, claim); err != nil {
			return fmt.Errorf("creating nodeclaim %s for %d pods: %w", claim.Name, len(c.Pods), err)
		}
		names[c.Name] = claim.Name
		created = append(created, claim.Name)
		a.metrics.nodeClaimsCreated.WithLabelValues(pool.Name).Inc()
		o := c.Chosen()
		a.log.Info("created nodeclaim", "nodeclaim", claim.Name, "nodepool", pool.Name, "pods", len(c.Pods),
			"instanceType", o.InstanceType, "zone", o.Zone, "capacityType", o.CapacityType, "pricePerHour", o.PricePerHour, "options", len(c.Options))
	}
	a.log.Info("solved a batch", "pods", len(pending), "newClaims", len(res.Claims), "unschedulable", len(res.Unschedulable),
		"costPerHour", res.CostPerHour, "lowerBoundPerHour", res.LowerBoundPerHour, "duration", time.Since(start).String())
	a.announce(ctx, v, res, names)
	// The next batch must see these claims as in flight, or it would
	// launch for the same pods again: wait until the cache has them.
	return a.waitForCache(ctx, created)
}

// announce emits Nominated events on placed pods and FailedScheduling
// events with the packer's reason on the others.
func (a *Agent) announce(ctx context.Context, v *clusterView, res *packing.Result, names map[string]string) {
	pods := map[string]*corev1.Pod{}
	for _, p := range v.objects.Pods {
		pods[p.Namespace+"/"+p.Name] = p
	}
	for _, pl := range res.Placements {
		pod := pods[pl.Pod]
		if pod == nil || pod.Spec.NodeName != "" {
			continue
		}
		target := pl.Node
		if n, ok := names[pl.Node]; ok {
			target = n
		}
		a.nominated.remember(pl.Pod)
		a.nominated.nominate(target, pl.Pod, time.Now())
		a.recorder.Eventf(pod, nil, corev1.EventTypeNormal, ReasonNominated, "Provisioning", "Pod should schedule on nodeclaim %s", target)
	}
	extra := v.notReadySummary()
	for _, u := range res.Unschedulable {
		pod := pods[u.Pod]
		if pod == nil {
			continue
		}
		msg := u.Reason
		if extra != "" {
			msg += "; " + extra
		}
		a.recorder.Eventf(pod, nil, corev1.EventTypeWarning, ReasonFailedScheduling, "Provisioning", "Tenon cannot launch a node for this pod: %s", msg)
	}
	_ = ctx
}

// waitForCache waits (up to 10 s) until the informer cache holds every
// named claim.
func (a *Agent) waitForCache(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			if err := a.client.Get(ctx, client.ObjectKey{Name: name}, &v1.NodeClaim{}); err != nil {
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				return false, err
			}
		}
		return true, nil
	})
}

// nodeClaimFor turns a packing claim into a NodeClaim of pool: the pool's
// labels, taints, lifetimes and node class, and requirements that allow
// exactly the options the packer priced (instance types cheapest first).
func nodeClaimFor(c *packing.Claim, pool *state.Pool) (*v1.NodeClaim, error) {
	name := strings.ToLower(pool.Name + "-" + utilrand.String(5))
	var types, zones, capacityTypes []string
	for _, o := range c.Options {
		types = appendUnique(types, o.InstanceType)
		zones = appendUnique(zones, o.Zone)
		capacityTypes = appendUnique(capacityTypes, o.CapacityType)
	}
	var reqs []v1.NodeSelectorRequirementWithMinValues
	for _, spec := range c.Requirements.Specs() {
		var minValues *int32
		if spec.MinValues != nil {
			n := int32(*spec.MinValues)
			minValues = &n
		}
		switch spec.Key {
		case scheduling.LabelHostname:
			continue
		case scheduling.LabelInstanceType, scheduling.LabelTopologyZone, scheduling.LabelCapacityType:
			// Replaced below by the options; keep minValues on types.
			if spec.Key == scheduling.LabelInstanceType && minValues != nil {
				reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: spec.Key, Operator: corev1.NodeSelectorOpIn, Values: types, MinValues: minValues})
			}
			continue
		}
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{
			Key: spec.Key, Operator: corev1.NodeSelectorOperator(spec.Operator), Values: spec.Values, MinValues: minValues,
		})
	}
	if !slices.ContainsFunc(reqs, func(r v1.NodeSelectorRequirementWithMinValues) bool { return r.Key == scheduling.LabelInstanceType }) {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: types})
	}
	reqs = append(reqs,
		v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: zones},
		v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: capacityTypes},
	)
	claim := &v1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeClaimKind},
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      maps.Clone(pool.Labels),
			Annotations: map[string]string{v1.AnnotationNodePoolHash: pool.TemplateHash},
			Finalizers:  []string{v1.TerminationFinalizer},
		},
		Spec: v1.NodeClaimSpec{
			Taints:        apiTaints(pool.Taints),
			StartupTaints: apiTaints(pool.StartupTaints),
			Requirements:  reqs,
			Resources:     v1.ResourceRequirements{Requests: c.Requests.DeepCopy()},
			NodeClassRef:  &v1.NodeClassReference{Group: v1.Group, Kind: v1.NodeClassKind, Name: pool.NodeClass},
			ExpireAfter:   v1.NeverDuration,
		},
	}
	if claim.Labels == nil {
		claim.Labels = map[string]string{}
	}
	claim.Labels[v1.LabelNodePool] = pool.Name
	if pool.ExpireAfter != nil {
		claim.Spec.ExpireAfter = v1.NillableDuration(durationString(*pool.ExpireAfter))
	}
	if pool.TerminationGracePeriod != nil {
		d := v1.Duration(durationString(*pool.TerminationGracePeriod))
		claim.Spec.TerminationGracePeriod = &d
	}
	if errs := claim.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("the nodeclaim for pool %s would be invalid (this is always a bug in the agent): %w", pool.Name, errs.ToAggregate())
	}
	return claim, nil
}

// durationString writes d with the units s, m and h only, as the API
// accepts (whole seconds).
func durationString(d time.Duration) string {
	d = d.Round(time.Second)
	h := d / time.Hour
	m := (d % time.Hour) / time.Minute
	s := (d % time.Minute) / time.Second
	var sb strings.Builder
	if h > 0 {
		fmt.Fprintf(&sb, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&sb, "%dm", m)
	}
	if s > 0 || sb.Len() == 0 {
		fmt.Fprintf(&sb, "%ds", s)
	}
	return sb.String()
}

func apiTaints(in []corev1.Taint) []v1.Taint {
	if len(in) == 0 {
		return nil
	}
	out := make([]v1.Taint, len(in))
	for i, t := range in {
		out[i] = v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	return out
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// nominations remembers which pods were nominated, to measure how long
// they take to run, and which pods each node or claim was nominated for,
// so that disruption leaves a node alone while the scheduler has still to
// bind them (until then the node looks empty).
type nominations struct {
	mu    sync.Mutex
	pods  map[string]bool
	nodes map[string]*nomination
}

// nomination is the pods last nominated to one node, and when.
type nomination struct {
	at   time.Time
	pods []string
}

func newNominations() *nominations {
	return &nominations{pods: map[string]bool{}, nodes: map[string]*nomination{}}
}

func (n *nominations) remember(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pods[key] = true
}

// forget drops key and reports whether it was there.
func (n *nominations) forget(key string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.pods[key]
	delete(n.pods, key)
	return ok
}

// nominate records that pod was just nominated to node (a node or claim
// name).
func (n *nominations) nominate(node, pod string, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	nom := n.nodes[node]
	if nom == nil || now.Sub(nom.at) > nominationWindow {
		nom = &nomination{}
		n.nodes[node] = nom
	}
	nom.at = now
	nom.pods = appendUnique(nom.pods, pod)
}

// waitingFor returns the pods nominated to node within the window; older
// nominations are forgotten.
func (n *nominations) waitingFor(node string, now time.Time) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	nom := n.nodes[node]
	if nom == nil {
		return nil
	}
	if now.Sub(nom.at) > nominationWindow {
		delete(n.nodes, node)
		return nil
	}
	return slices.Clone(nom.pods)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
