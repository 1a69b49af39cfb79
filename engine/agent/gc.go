package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// garbageCollector reconciles the cloud with the claims: an instance no
// claim tracks (a claim deleted while its launch was in flight, say) is
// terminated after the orphan grace period, and a registered claim whose
// instance is gone is deleted, so its pods are provisioned again.
type garbageCollector struct {
	client    client.Client
	cloud     cloud.CloudProvider
	disrupter *disrupter
	recorder  events.EventRecorder
	metrics   *metrics
	log       logr.Logger
	clock     agentClock
	timings   Timings
}

// Register adds the collection, every GCInterval on the leader.
func (g *garbageCollector) Register(mgr manager.Manager) error {
	return addEvery(mgr, "garbage-collection", g.clock, g.timings.GCInterval, g.log, g.collect)
}

// collect terminates the orphan instances and deletes the claims whose
// instance is gone.
func (g *garbageCollector) collect(ctx context.Context, now time.Time) error {
	instances, err := g.cloud.List(ctx)
	if err != nil {
		return fmt.Errorf("listing the cloud's instances: %w", err)
	}
	var claims v1.NodeClaimList
	if err := g.client.List(ctx, &claims); err != nil {
		return fmt.Errorf("listing nodeclaims: %w", err)
	}
	live, err := g.terminateOrphans(ctx, instances, claims.Items, now)
	if err != nil {
		return err
	}
	return g.deleteLost(ctx, claims.Items, live)
}

// terminateOrphans terminates the instances no claim tracks once they are
// older than the grace period, and returns the provider IDs of every
// instance.
func (g *garbageCollector) terminateOrphans(ctx context.Context, instances []*v1.NodeClaim, claims []v1.NodeClaim, now time.Time) (map[string]bool, error) {
	tracked := map[string]bool{}
	byName := map[string]bool{}
	for _, c := range claims {
		tracked[c.Status.ProviderID] = true
		byName[c.Name] = true
	}
	live := map[string]bool{}
	for _, inst := range instances {
		live[inst.Status.ProviderID] = true
		if tracked[inst.Status.ProviderID] || inst.DeletionTimestamp != nil {
			continue
		}
		// A claim whose status has not recorded the launch yet still owns
		// its instance: providers name instances after claims.
		if byName[inst.Name] {
			continue
		}
		if now.Sub(inst.CreationTimestamp.Time) < g.timings.OrphanGracePeriod {
			continue
		}
		g.log.Info("terminating an instance no nodeclaim tracks", "providerID", inst.Status.ProviderID, "age", now.Sub(inst.CreationTimestamp.Time).Round(time.Second).String())
		if err := g.cloud.Delete(ctx, inst); err != nil && !cloud.IsNotFound(err) {
			return nil, fmt.Errorf("terminating orphan instance %s: %w", inst.Status.ProviderID, err)
		}
		g.metrics.nodesTerminated.WithLabelValues(inst.Labels[v1.LabelNodePool], "Orphan").Inc()
	}
	return live, nil
}

// deleteLost deletes the registered claims whose instance is not among
// live, once the cloud confirms it is gone.
func (g *garbageCollector) deleteLost(ctx context.Context, claims []v1.NodeClaim, live map[string]bool) error {
	for i := range claims {
		c := &claims[i]
		if c.DeletionTimestamp != nil || c.Status.ProviderID == "" || !isTrue(c, v1.ConditionRegistered) || live[c.Status.ProviderID] {
			continue
		}
		// Confirm with a direct look-up before acting on a list.
		if _, err := g.cloud.Get(ctx, c.Status.ProviderID); !cloud.IsNotFound(err) {
			continue
		}
		g.recorder.Eventf(c, nil, corev1.EventTypeWarning, ReasonGarbageCollected, "Delete", "The instance %s is gone; deleting the nodeclaim", c.Status.ProviderID)
		g.log.Info("deleting a nodeclaim whose instance is gone", "nodeclaim", c.Name, "providerID", c.Status.ProviderID)
		if err := g.disrupter.disrupt(ctx, c, "InstanceGone", "the instance "+c.Status.ProviderID+" is gone"); err != nil {
			return err
		}
	}
	return nil
}
