package agent

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Intervals of the periodic loops.
const (
	gcInterval      = 10 * time.Second
	statusInterval  = 5 * time.Second
	requeueInterval = 10 * time.Second
)

// setupLoops adds the periodic work, which runs only on the leader:
// disruption, garbage collection, pool status, and a retry of pods still
// unschedulable (a limit may have freed up without any pod changing).
func (a *Agent) setupLoops(mgr manager.Manager) error {
	loops := []struct {
		name     string
		interval time.Duration
		run      func(context.Context, time.Time) error
	}{
		{"disruption", a.opts.DisruptionInterval, a.disruptEmpty},
		{"consolidation", consolidationInterval, a.consolidate},
		{"garbage-collection", gcInterval, a.collectGarbage},
		{"pool-status", statusInterval, a.updateStatus},
		{"unschedulable-retry", requeueInterval, a.retryUnschedulable},
	}
	for _, l := range loops {
		log := a.log.WithName(l.name)
		err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
			t := time.NewTicker(l.interval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return nil
				case now := <-t.C:
					if err := l.run(ctx, now); err != nil && ctx.Err() == nil {
						log.Error(err, "loop failed; retrying on the next tick")
					}
				}
			}
		}))
		if err != nil {
			return fmt.Errorf("adding the %s loop: %w", l.name, err)
		}
	}
	return nil
}

// retryUnschedulable starts a batch when pods are still unschedulable.
func (a *Agent) retryUnschedulable(ctx context.Context, _ time.Time) error {
	var pods corev1.PodList
	if err := a.client.List(ctx, &pods); err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	for i := range pods.Items {
		if isUnschedulable(&pods.Items[i]) {
			a.batcher.Trigger()
			return nil
		}
	}
	return nil
}
