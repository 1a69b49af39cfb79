package agent

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// DisruptionInterrupted is the reason recorded on claims the cloud is
// about to take away.
const DisruptionInterrupted = "Interrupted"

// interruptible is a cloud provider with an interruption event source (nil
// when it has none configured).
type interruptible interface {
	InterruptionSource() cloud.InterruptionSource
}

// setupInterruption consumes the provider's interruption events on the
// leader: a spot interruption, scheduled change or state change deletes the
// node's claim at once — termination taints and drains the node, and the
// evicted pods are provisioned for again — while a rebalance
// recommendation is only recorded as an event.
func (a *Agent) setupInterruption(mgr manager.Manager) error {
	p, ok := a.cloud.(interruptible)
	if !ok {
		return nil
	}
	src := p.InterruptionSource()
	if src == nil {
		return nil
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		for ctx.Err() == nil {
			events, err := src.Receive(ctx)
			if err != nil {
				if ctx.Err() == nil {
					a.log.Error(err, "receiving interruption events")
					time.Sleep(time.Second)
				}
				continue
			}
			for _, ev := range events {
				if err := a.handleInterruption(ctx, ev); err != nil {
					a.log.Error(err, "handling an interruption; it will be delivered again", "providerID", ev.ProviderID, "kind", ev.Kind)
					continue
				}
				if err := src.Done(ctx, ev); err != nil {
					a.log.Error(err, "acknowledging an interruption", "providerID", ev.ProviderID)
				}
			}
		}
		return nil
	}))
}

func (a *Agent) handleInterruption(ctx context.Context, ev cloud.Interruption) error {
	a.metrics.interruptionReceived.WithLabelValues(string(ev.Kind)).Inc()
	var claims v1.NodeClaimList
	if err := a.client.List(ctx, &claims, client.MatchingFields{indexClaimProviderID: ev.ProviderID}); err != nil {
		return fmt.Errorf("finding the nodeclaim of %s: %w", ev.ProviderID, err)
	}
	if len(claims.Items) == 0 {
		a.log.Info("interruption for an instance no nodeclaim tracks", "providerID", ev.ProviderID, "kind", ev.Kind)
		return nil
	}
	claim := &claims.Items[0]
	detail := fmt.Sprintf("%s for %s", ev.Kind, ev.ProviderID)
	if !ev.Deadline.IsZero() {
		detail += fmt.Sprintf(", gone at %s", ev.Deadline.UTC().Format(time.RFC3339))
	}
	if ev.Detail != "" {
		detail += ": " + ev.Detail
	}
	if ev.Kind == cloud.RebalanceRecommendation {
		a.recorder.Eventf(claim, nil, corev1.EventTypeNormal, string(ev.Kind), "Interruption", "%s", detail)
		return nil
	}
	if claim.DeletionTimestamp != nil {
		return nil
	}
	return a.disrupt(ctx, claim, DisruptionInterrupted, detail)
}
