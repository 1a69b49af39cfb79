package agent

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// collectGarbage reconciles the cloud with the claims: an instance no claim
// tracks (a claim deleted while its launch was in flight, say) is
// terminated after the orphan grace period, and a registered claim whose
// instance is gone is deleted, so its pods are provisioned again.
func (a *Agent) collectGarbage(ctx context.Context, now time.Time) error {
	instances, err := a.cloud.List(ctx)
	if err != nil {
		return fmt.Errorf("listing the cloud's instances: %w", err)
	}
	var claims v1.NodeClaimList
	if err := a.client.List(ctx, &claims); err != nil {
		return fmt.Errorf("listing nodeclaims: %w", err)
	}
	tracked := map[string]bool{}
	byName := map[string]bool{}
	for _, c := range claims.Items {
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
		if now.Sub(inst.CreationTimestamp.Time) < a.opts.OrphanGracePeriod {
			continue
		}
		a.log.Info("terminating an instance no nodeclaim tracks", "providerID", inst.Status.ProviderID, "age", now.Sub(inst.CreationTimestamp.Time).Round(time.Second).String())
		if err := a.cloud.Delete(ctx, inst); err != nil && !cloud.IsNotFound(err) {
			return fmt.Errorf("terminating orphan instance %s: %w", inst.Status.ProviderID, err)
		}
		a.metrics.nodesTerminated.WithLabelValues(inst.Labels[v1.LabelNodePool], "Orphan").Inc()
	}
	for i := range claims.Items {
		c := &claims.Items[i]
		if c.DeletionTimestamp != nil || c.Status.ProviderID == "" || !isTrue(c, v1.ConditionRegistered) || live[c.Status.ProviderID] {
			continue
		}
		// Confirm with a direct look-up before acting on a list.
		if _, err := a.cloud.Get(ctx, c.Status.ProviderID); !cloud.IsNotFound(err) {
			continue
		}
		a.recorder.Eventf(c, nil, corev1.EventTypeWarning, ReasonGarbageCollected, "Delete", "The instance %s is gone; deleting the nodeclaim", c.Status.ProviderID)
		a.log.Info("deleting a nodeclaim whose instance is gone", "nodeclaim", c.Name, "providerID", c.Status.ProviderID)
		if err := a.disrupt(ctx, c, "InstanceGone", "the instance "+c.Status.ProviderID+" is gone"); err != nil {
			return err
		}
	}
	return nil
}
