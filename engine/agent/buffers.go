package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// capacityBuffers keeps NodePools' capacity buffers (spec.buffer): every
// DisruptionInterval it plans the pending pods and then each buffer's
// placeholder pods (engine/buffer.Solve), and launches the claims the
// placeholders need alone, persisting them before any cloud call as the
// provisioner does. Real pods never wait for this loop: kube-scheduler binds
// them to the buffer's room at once, since it is free on the nodes, and the
// next tick finds the buffer short and launches for it. It holds the
// provisioner's lock, so a batch and a buffer launch never plan on the same
// room twice, and waits until the cache has its claims so the next tick
// does not launch them again. Consolidation keeps the room (engine/buffer's
// Bind, in every plan).
type capacityBuffers struct {
	views *viewBuilder
	prov  *provisioner
	log   logr.Logger
	clock agentClock
	// last is the last state logged per pool, so a buffer is reported when
	// it changes, not every tick.
	last     map[string]string
	interval time.Duration
	timeout  time.Duration
	// window is how long a claim launched for a buffer is held from
	// disruption while it launches and registers (hold).
	window time.Duration

	mu sync.Mutex
	// launched are the claims this loop created, by name, with when.
	launched map[string]time.Time
}

// Register adds the loop; it runs on the leader only.
func (b *capacityBuffers) Register(mgr manager.Manager) error {
	return addEvery(mgr, "capacity buffers", b.clock, b.interval, b.log, b.reconcile)
}

// reconcile launches what the buffers are short of.
func (b *capacityBuffers) reconcile(ctx context.Context, _ time.Time) error {
	if some, err := b.views.anyNodePool(ctx, func(np *v1.NodePool) bool { return np.Spec.Buffer != nil }); err != nil || !some {
		return err
	}
	b.prov.mu.Lock()
	defer b.prov.mu.Unlock()
	v, err := b.views.view(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(v.snap.Pools, func(p *state.Pool) bool { return p.Buffer != nil }) {
		return nil
	}
	if name := b.inTransit(v); name != "" {
		// Its room is not in the view yet: planning now would launch it twice.
		return nil
	}
	solveCtx, cancel := context.WithTimeout(ctx, b.timeout)
	res, err := buffer.Solve(solveCtx, v.snap, v.snap.PendingPods())
	cancel()
	if err != nil {
		return fmt.Errorf("planning the capacity buffers: %w", err)
	}
	b.report(res)
	if len(res.BufferClaims) == 0 {
		return nil
	}
	// No awaiting-pods taint: no real pod is planned onto these nodes.
	built, names, err := buildClaims(v.snap, res.BufferClaims, nil)
	if err != nil {
		return err
	}
	if err := b.prov.createClaims(ctx, built); err != nil {
		return err
	}
	b.mu.Lock()
	for _, name := range names {
		b.launched[name] = b.clock.Now()
	}
	b.mu.Unlock()
	return b.prov.waitForCache(ctx, slices.Collect(maps.Values(names)))
}

// inTransit names a claim this loop launched that exists but is in the
// view neither as an in-flight claim nor as a node (launched, its node not
// yet in the cache), or "". Claims gone from the cluster are forgotten.
func (b *capacityBuffers) inTransit(v *clusterView) string {
	visible := map[string]bool{}
	for _, n := range v.snap.Nodes {
		visible[n.Claim] = true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for name := range b.launched {
		c, exists := v.claims[name]
		switch {
		case !exists || c.DeletionTimestamp != nil:
			delete(b.launched, name)
		case !visible[name]:
			return name
		}
	}
	return ""
}

// hold marks nominated the nodes of claims this loop launched that have
// not initialized yet, for at most window after their launch: until then
// their allocatable and taints may not be known, so the placeholders
// (engine/buffer.Bind) cannot be placed on them and emptiness would remove
// them at once. Real pods' claims are held the same way by nominations.
// Once initialized, Bind keeps them.
func (b *capacityBuffers) hold(v *clusterView, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for name, at := range b.launched {
		if now.Sub(at) > b.window {
			delete(b.launched, name)
		}
	}
	for _, n := range v.snap.Nodes {
		if _, ok := b.launched[n.Claim]; ok && (n.InFlight || !n.Initialized) {
			n.Nominated = true
		}
	}
}

// report logs each buffer whose room changed: how much of it exists, what
// is launched for it, and why some cannot be placed.
func (b *capacityBuffers) report(res *buffer.Result) {
	for _, s := range res.Buffers {
		line := fmt.Sprintf("%d/%d/%d/%d", s.Pods, s.Existing, s.New, s.Unplaced)
		if b.last[s.Pool] == line {
			continue
		}
		b.last[s.Pool] = line
		switch {
		case s.Unplaced > 0:
			b.log.Info("capacity buffer cannot be placed in full", "nodepool", s.Pool, "pods", s.Pods, "ready", s.Existing, "launching", s.New, "unplaced", s.Unplaced, "why", s.Reason)
		case s.New > 0:
			b.log.Info("launching nodes for a capacity buffer", "nodepool", s.Pool, "pods", s.Pods, "ready", s.Existing, "launching", s.New, "costPerHour", s.CostPerHour)
		default:
			b.log.Info("capacity buffer ready", "nodepool", s.Pool, "pods", s.Pods)
		}
	}
}
