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

// DisruptionInterrupted is the reason recorded on claims the cloud is
// about to take away.
const DisruptionInterrupted = "Interrupted"

// interruptible is a cloud provider with an interruption event source (nil
// when it has none configured).
type interruptible interface {
	InterruptionSource() cloud.InterruptionSource
}

// interruption consumes the cloud's interruption events on the leader: a
// spot interruption, scheduled change or state change deletes the node's
// claim at once — termination taints and drains the node, and the evicted
// pods are provisioned for again — while a rebalance recommendation is
// only recorded as an event.
type interruption struct {
	client    client.Client
	cloud     cloud.CloudProvider
	disrupter *disrupter
	recorder  events.EventRecorder
	metrics   *metrics
	log       logr.Logger
	clock     agentClock
	timings   Timings
}

// Register adds the event loop when the cloud has an event source.
func (in *interruption) Register(mgr manager.Manager) error {
	p, ok := in.cloud.(interruptible)
	if !ok {
		return nil
	}
	src := p.InterruptionSource()
	if src == nil {
		return nil
	}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { in.run(ctx, src); return nil })); err != nil {
		return fmt.Errorf("adding interruption handling: %w", err)
	}
	return nil
}

// run receives and handles events until ctx ends. After a failed receive
// it waits InterruptionRetry, or less if ctx ends first.
func (in *interruption) run(ctx context.Context, src cloud.InterruptionSource) {
	for ctx.Err() == nil {
		evs, err := src.Receive(ctx)
		if err != nil {
			if ctx.Err() == nil {
				in.log.Error(err, "receiving interruption events")
				sleep(ctx, in.clock, in.timings.InterruptionRetry)
			}
			continue
		}
		for _, ev := range evs {
			if err := in.handle(ctx, ev); err != nil {
				in.log.Error(err, "handling an interruption; it will be delivered again", "providerID", ev.ProviderID, "kind", ev.Kind)
				continue
			}
			if err := src.Done(ctx, ev); err != nil {
				in.log.Error(err, "acknowledging an interruption", "providerID", ev.ProviderID)
			}
		}
	}
}

func (in *interruption) handle(ctx context.Context, ev cloud.Interruption) error {
	in.metrics.interruptionReceived.WithLabelValues(string(ev.Kind)).Inc()
	var claims v1.NodeClaimList
	if err := in.client.List(ctx, &claims, client.MatchingFields{indexClaimProviderID: ev.ProviderID}); err != nil {
		return fmt.Errorf("finding the nodeclaim of %s: %w", ev.ProviderID, err)
	}
	if len(claims.Items) == 0 {
		in.log.Info("interruption for an instance no nodeclaim tracks", "providerID", ev.ProviderID, "kind", ev.Kind)
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
		in.recorder.Eventf(claim, nil, corev1.EventTypeNormal, string(ev.Kind), "Interruption", "%s", detail)
		return nil
	}
	if claim.DeletionTimestamp != nil {
		return nil
	}
	return in.disrupter.disrupt(ctx, claim, DisruptionInterrupted, detail)
}
