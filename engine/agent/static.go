package agent

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/static"
)

// staticCapacity keeps static NodePools (spec.replicas) at their size:
// every DisruptionInterval it launches the nodes engine/static says each is
// short (lost nodes, nodes being deleted, a raised replicas), persisting
// their NodeClaims before any cloud call as the provisioner does, and
// waits until the cache has them so the next tick does not launch them
// again. A pool above its replicas shrinks through consolidation's
// Overprovisioned commands (the disruption controller), within budgets
// and PodDisruptionBudgets.
type staticCapacity struct {
	views *viewBuilder
	prov  *provisioner
	log   logr.Logger
	clock agentClock
	// blocked is the last reason logged per pool, so a pool stuck at its
	// limit is reported once, not every tick.
	blocked  map[string]string
	interval time.Duration
}

// Register adds the loop; it runs on the leader only.
func (s *staticCapacity) Register(mgr manager.Manager) error {
	return addEvery(mgr, "static capacity", s.clock, s.interval, s.log, s.reconcile)
}

// reconcile launches what the static pools are short of.
func (s *staticCapacity) reconcile(ctx context.Context, _ time.Time) error {
	if some, err := s.views.anyNodePool(ctx, func(np *v1.NodePool) bool { return np.Spec.Replicas != nil }); err != nil || !some {
		return err
	}
	v, err := s.views.view(ctx)
	if err != nil {
		return err
	}
	claims, statuses := static.Plan(v.snap)
	for _, st := range statuses {
		if st.Blocked != "" && s.blocked[st.Pool] != st.Blocked {
			s.log.Info("static nodepool cannot reach its replicas", "nodepool", st.Pool, "replicas", st.Replicas, "nodes", st.Nodes, "why", st.Blocked)
		}
		s.blocked[st.Pool] = st.Blocked
		if st.Launch > 0 {
			s.log.Info("launching nodes to keep a static nodepool at its replicas", "nodepool", st.Pool, "replicas", st.Replicas, "nodes", st.Nodes, "launching", st.Launch)
		}
	}
	if len(claims) == 0 {
		return nil
	}
	// No awaiting-pods taint: no pod is planned onto these nodes.
	built, names, err := buildClaims(v.snap, claims, nil)
	if err != nil {
		return err
	}
	if err := s.prov.createClaims(ctx, built); err != nil {
		return err
	}
	return s.prov.waitForCache(ctx, slices.Collect(maps.Values(names)))
}
