package agent

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
)

// A plan that sees a burst (anticipatePods) sizes its nodes for pods the
// controllers have not created yet, and slots hold that room for them.
// But kube-scheduler binds a pod that arrives after its node is Ready
// before the agent can nominate it, by its own score (the emptiest node
// first): pods of one app spread over the room the plan holds for others,
// and the last pods of the burst find no room and buy another node (live,
// 500 pods: four more nodes, 8 % above the plan). So a node launched with
// room for pods still to come, or one of several a plan launches at once
// (awaitingClaims), starts with the awaiting-pods taint valued with its
// claim's name (v1.TaintKeyAwaitingPods, a startup taint of its claim, so
// a kubelet on a real cloud registers with it too), and each pod the plan
// puts there is given the toleration of that value alone as it is
// nominated (hint.go; the next batch or the pass every awaitingInterval
// nominates the pods that came to their slots, slots.fill). The pod binds
// to its node the moment the node registers; every pod the plan did not
// put there stays out of the room held for those to come.
// Measured before, with a taint every pod had to wait out: the burst bound
// only after its last pod came and the taint lifted, kube-scheduler then
// binding the 500 held pods in 18 s at its request rate (49 s to all
// Running where Karpenter took 28 s), and lifting node by node fought
// kube-scheduler's clears of the nominated nodes (each lift retried every
// pending pod, clearing the nominations of the pods of the nodes still
// tainted: 1.020 × the plan). With the tolerations the pods bind as their
// nodes register (500 pods: all bound a second after the last was
// created, 1.000 × the plan).
// The taint is lifted from every node at once as soon as no pod still to
// come is held anywhere (liftAwaiting), which opens the nodes to DaemonSet
// pods and to everything else; at the latest it goes a nomination window
// after the node registered (lifecycle.initialize), so pods that never
// come never keep a node from its pods. An agent that may not patch pods
// (hinter.denied) writes nominated nodes only, and its pods wait for the
// lift as before. Packing and the daemonsets' room ignore the taint
// (state.Node.SchedulingTaints, DaemonSet.RunsOn).

// awaitingTaintFor is the startup taint of the claim named claim when it
// has room for pods to come: valued with the claim's name, so that the
// pods planned there, given the toleration of that value alone
// (hinter.addToleration), bind to it as soon as it registers while every
// other pod stays out of the room held for them.
func awaitingTaintFor(claim string) v1.Taint {
	return v1.Taint{Key: v1.TaintKeyAwaitingPods, Value: awaitingTaintValue(claim), Effect: corev1.TaintEffectNoSchedule}
}

// awaitingTaintValue is the claim's name, or when it is longer than a
// taint value may be (63 characters) a hash of it.
func awaitingTaintValue(claim string) string {
	if len(claim) <= 63 {
		return claim
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(claim))
	return fmt.Sprintf("claim-%016x", h.Sum64())
}

// awaitingToleration tolerates the awaiting-pods taint valued value, and
// no other.
func awaitingToleration(value string) corev1.Toleration {
	return corev1.Toleration{Key: v1.TaintKeyAwaitingPods, Operator: corev1.TolerationOpEqual, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// toleratesAwaiting reports whether pod tolerates the awaiting-pods taint
// valued value already.
func toleratesAwaiting(pod *corev1.Pod, value string) bool {
	taint := corev1.Taint{Key: v1.TaintKeyAwaitingPods, Value: value, Effect: corev1.TaintEffectNoSchedule}
	for i := range pod.Spec.Tolerations {
		if pod.Spec.Tolerations[i].ToleratesTaint(logr.Discard(), &taint, false) {
			return true
		}
	}
	return false
}

// awaitingValues maps the name of every claim that starts with the
// awaiting-pods taint and is not initialized yet, and its node's name once
// it has one, to the taint's value: the toleration a pod nominated there
// needs.
func awaitingValues(claims map[string]*v1.NodeClaim) map[string]string {
	out := map[string]string{}
	for _, c := range claims {
		if c.DeletionTimestamp != nil || isTrue(c, v1.ConditionInitialized) {
			continue
		}
		for _, t := range c.Spec.StartupTaints {
			if t.Key == v1.TaintKeyAwaitingPods && t.Value != "" {
				out[c.Name] = t.Value
				if c.Status.NodeName != "" {
					out[c.Status.NodeName] = t.Value
				}
			}
		}
	}
	return out
}

// awaitingClaims are the claims of res (by the packer's names) to start
// with the awaiting-pods taint: all of them when the plan put a pod that
// controllers have still to create on any, or when it launches more than
// one claim; none otherwise. All, because a pod tried while its nominated
// node is tainted binds to any new node without the taint, in room planned
// for others (live: 4–5 of 120 pods, a node more). And a plan of several
// claims even when every pod is there: kube-scheduler tries the pods
// before their nodes register, finds no node and clears their nominated
// nodes, then binds them by its own score to whichever node registers
// first (live: 120 pods created at once, 1.039 × their plan). One claim
// needs no taint: the plan put on it only pods no other node has room for.
func (p *provisioner) awaitingClaims(v *clusterView, res *packing.Result) map[string]bool {
	out := map[string]bool{}
	if !p.await {
		return out
	}
	claims := map[string]bool{}
	for _, c := range res.Claims {
		claims[c.Name] = true
	}
	if len(claims) < 2 && !slices.ContainsFunc(res.Placements, func(pl packing.Placement) bool { return v.toCome[pl.Pod] && claims[pl.Node] }) {
		return out
	}
	for name := range claims {
		out[name] = true
	}
	return out
}

// liftAwaiting lifts the awaiting-pods taint from every node of v once no
// node holds room for pods still to come (heldOn, by node name, from
// slots.fill): the pods that came are nominated by now. Failures are
// logged: the lifecycle lifts the taint when its window ends anyway.
// hinted is how many nominated nodes the batch wrote just before.
func (p *provisioner) liftAwaiting(ctx context.Context, v *clusterView, heldOn map[string]int, hinted int, now time.Time) {
	for _, n := range heldOn {
		if n > 0 {
			return
		}
	}
	for _, claim := range v.claims {
		if claim.DeletionTimestamp == nil && !isTrue(claim, v1.ConditionRegistered) &&
			slices.ContainsFunc(claim.Spec.StartupTaints, func(t v1.Taint) bool { return t.Key == v1.TaintKeyAwaitingPods }) {
			// Its node registers with the taint: lifting the others now
			// would let its pods bind there first.
			return
		}
	}
	var tainted []*corev1.Node
	for _, node := range v.objects.Nodes {
		if hasAwaitingTaint(node) {
			tainted = append(tainted, node)
		}
	}
	if len(tainted) == 0 {
		return
	}
	// kube-scheduler clears a pod's nominated node when it tries the pod
	// and finds no node (as while the taint is on): write it again where
	// it is gone, so the pods go where they are nominated when the taint
	// lifts.
	rehints := rehintsFor(v, p.nominated.expected(v, v.pending, now), tainted)
	start := time.Now()
	rounds, settled := p.settleHints(ctx, rehints, hinted+len(rehints) > 0)
	if ctx.Err() != nil {
		return
	}
	// All at once: a pod tried while its own node still has the taint
	// would bind to one lifted before, in room planned for others.
	var wg sync.WaitGroup
	for _, node := range tainted {
		wg.Go(func() {
			if err := liftAwaitingTaint(ctx, p.client, node); err != nil {
				p.log.Error(err, "lifting the awaiting-pods taint", "node", node.Name)
			}
		})
	}
	wg.Wait()
	p.log.Info("lifted the awaiting-pods taint: every pod planned on the nodes has come and is nominated", "nodes", len(tainted), "pods", len(rehints),
		"rounds", rounds, "nominationsHeld", settled, "took", time.Since(start).Round(time.Millisecond).String())
}

// settleHints writes the hints (the pods' nominated nodes) the cache does
// not show yet and waits until kube-scheduler has them, writing again the
// ones it cleared meanwhile: it clears a pod's nominated node each time it
// tries the pod and finds no node, and those writes go out at its own
// request rate, seconds after the try (live, 120 pods created at once and
// tried as each tainted node registered: a clear landed after the agent's
// write for 28 of them, which then bound where kube-scheduler scored best,
// 1.053 × the plan). Only the missing ones are written (a 2,000-pod burst
// re-nominated in full took 17 s of the agent's request rate). wait says
// whether anything was written just before, so the settle is needed even
// when every hint shows. It returns the rounds written and whether every
// hint held at the end; at most maxHintRounds rounds, so a scheduler that
// keeps clearing cannot keep the taint on.
func (p *provisioner) settleHints(ctx context.Context, hints []hint, wait bool) (rounds int, held bool) {
	missing := p.lostHints(ctx, hints)
	if len(missing) == 0 && !wait {
		return 0, true
	}
	for {
		if len(missing) > 0 {
			if rounds >= maxHintRounds {
				p.log.Info("kube-scheduler keeps clearing nominated nodes; lifting the awaiting-pods taint anyway", "pods", len(missing), "rounds", rounds)
				return rounds, false
			}
			p.hints.write(ctx, missing)
			rounds++
		}
		// The scheduler sees pods and nodes through separate watches:
		// let the nominated nodes just written reach it before the node
		// update that retries the pods.
		t := time.NewTimer(hintSettle)
		select {
		case <-ctx.Done():
			t.Stop()
			return rounds, false
		case <-t.C:
		}
		if missing = p.lostHints(ctx, hints); len(missing) == 0 {
			return rounds, true
		}
	}
}

// maxHintRounds bounds how often settleHints writes the same hints.
const maxHintRounds = 5

// lostHints are the hints whose pod is still unbound and, as the cache
// shows it now, nominated elsewhere or nowhere.
func (p *provisioner) lostHints(ctx context.Context, hints []hint) []hint {
	var lost []hint
	for _, h := range hints {
		var pod corev1.Pod
		if err := p.client.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: h.name}, &pod); err != nil {
			continue // gone, or unreadable: nothing to hold
		}
		if pod.Spec.NodeName == "" && pod.DeletionTimestamp == nil && pod.Status.NominatedNodeName != h.node {
			lost = append(lost, h)
		}
	}
	return lost
}

// rehintsFor are the hints of the pending pods expected (pod key → node)
// on one of the tainted nodes, whatever the cache says of them.
func rehintsFor(v *clusterView, expected map[string]string, tainted []*corev1.Node) []hint {
	names := map[string]bool{}
	for _, n := range tainted {
		names[n.Name] = true
	}
	var out []hint
	for _, pod := range v.objects.Pods {
		if node := expected[pod.Namespace+"/"+pod.Name]; names[node] && pod.Spec.NodeName == "" {
			out = append(out, hint{namespace: pod.Namespace, name: pod.Name, node: node})
		}
	}
	return out
}

// fillAwaiting is the awaiting-pods pass between batches: while a node
// or claim carries the awaiting-pods taint, it nominates the pods that came
// to their slots and lifts the taint once nothing more is to come, every
// awaitingInterval rather than at the batch window's pace (a burst's pods
// arrive for tens of seconds, and a window closes at --batch-max then).
func (p *provisioner) fillAwaiting(ctx context.Context, now time.Time) error {
	var claims v1.NodeClaimList
	if err := p.client.List(ctx, &claims); err != nil {
		return fmt.Errorf("listing nodeclaims: %w", err)
	}
	if !slices.ContainsFunc(claims.Items, func(c v1.NodeClaim) bool {
		return c.DeletionTimestamp == nil && !isTrue(&c, v1.ConditionInitialized) &&
			slices.ContainsFunc(c.Spec.StartupTaints, func(t v1.Taint) bool { return t.Key == v1.TaintKeyAwaitingPods })
	}) {
		return nil
	}
	if !p.mu.TryLock() {
		return nil // a batch is running; it fills the slots itself
	}
	defer p.mu.Unlock()
	v, err := p.view(ctx, now)
	if err != nil {
		return err
	}
	p.fillSlots(ctx, v, now)
	return nil
}

// awaitingInterval paces fillAwaiting.
const awaitingInterval = time.Second

// hintSettle is how long the taint stays after nominated nodes were
// written: watch events reach kube-scheduler within milliseconds, later
// on a loaded control plane. A variable for tests.
var hintSettle = time.Second

func hasAwaitingTaint(node *corev1.Node) bool {
	return slices.ContainsFunc(node.Spec.Taints, isAwaitingTaint)
}

func isAwaitingTaint(t corev1.Taint) bool { return t.Key == v1.TaintKeyAwaitingPods }

// liftAwaitingTaint removes the awaiting-pods taint from node (node, from
// the cache, is not changed). The patch replaces the node's taint list, so
// it is made against the version read (optimistic lock) and read again on
// a conflict: a taint another controller added meanwhile is kept.
func liftAwaitingTaint(ctx context.Context, c client.Client, node *corev1.Node) error {
	current := node
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		lifted := current.DeepCopy()
		lifted.Spec.Taints = slices.DeleteFunc(lifted.Spec.Taints, isAwaitingTaint)
		err := c.Patch(ctx, lifted, client.MergeFromWithOptions(current, client.MergeFromWithOptimisticLock{}))
		if apierrors.IsConflict(err) {
			fresh := &corev1.Node{}
			if getErr := c.Get(ctx, client.ObjectKeyFromObject(node), fresh); getErr != nil {
				return getErr
			}
			current = fresh
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("removing taint %s from node %s: %w", v1.TaintKeyAwaitingPods, node.Name, err)
	}
	return nil
}

// awaitingExpired reports whether a registered claim's node has waited
// out its nomination window with the awaiting-pods taint, and otherwise
// how long is left. The window runs from the later of its registration
// and lastArrival, the last time pods came to the room slots held (a
// burst of thousands of pods arrives for longer than a window: lifted
// while they still come, its later pods bind wherever kube-scheduler
// scores best; live, 2,000 pods ended 11 % above their plan), but ends at
// the latest maxAwaitWindows windows after registration, so pods that
// trickle in forever do not keep the node from the pods already there.
func awaitingExpired(claim *v1.NodeClaim, now time.Time, window time.Duration, lastArrival time.Time) (bool, time.Duration) {
	registered := conditionTime(claim, v1.ConditionRegistered)
	end := registered.Add(window)
	if lastArrival.After(registered) {
		end = lastArrival.Add(window)
	}
	if limit := registered.Add(maxAwaitWindows * window); end.After(limit) {
		end = limit
	}
	if !now.Before(end) {
		return true, 0
	}
	return false, end.Sub(now)
}

// maxAwaitWindows bounds how many nomination windows after registration a
// node keeps the awaiting-pods taint while pods keep coming.
const maxAwaitWindows = 4

// arrivals is when pods last came to the room slots held for them
// (provisioner.fillSlots), read by the lifecycle; nil-safe.
type arrivals struct {
	mu   sync.Mutex
	last time.Time
}

func (a *arrivals) mark(t time.Time) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.After(a.last) {
		a.last = t
	}
}

func (a *arrivals) at() time.Time {
	if a == nil {
		return time.Time{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}
