package kwok

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// AnnotationInterruption on a KWOK node simulates the cloud's interruption
// notice: its value is the kind (SpotInterruption, RebalanceRecommendation,
// ScheduledChange or StateChange). The provider's InterruptionSource
// delivers it as an event and removes the annotation when the agent is done
// with it, as a queue would the message.
const AnnotationInterruption = "kwok.tenon.dev/interruption"

// spotWarning is how long a spot instance lives after its notice.
const spotWarning = 2 * time.Minute

// pollInterval is how long Receive waits when no node is annotated.
const pollInterval = time.Second

// InterruptionSource returns the annotation-driven source of simulated
// interruption events.
func (p *Provider) InterruptionSource() cloud.InterruptionSource {
	return &interruptions{p: p}
}

type interruptions struct{ p *Provider }

var _ cloud.InterruptionSource = (*interruptions)(nil)

// Receive returns an event per annotated node of this cluster, waiting up
// to a second when there is none.
func (s *interruptions) Receive(ctx context.Context) ([]cloud.Interruption, error) {
	for i := 0; ; i++ {
		var nodes corev1.NodeList
		if err := s.p.client.List(ctx, &nodes); err != nil {
			return nil, fmt.Errorf("listing kwok nodes for interruptions: %w", err)
		}
		var out []cloud.Interruption
		now := time.Now()
		for i := range nodes.Items {
			n := &nodes.Items[i]
			kind, ok := n.Annotations[AnnotationInterruption]
			if !ok || !s.p.ours(n) {
				continue
			}
			ev := cloud.Interruption{Kind: cloud.InterruptionKind(kind), ProviderID: n.Spec.ProviderID, Time: now, Handle: n.Name,
				Detail: "simulated by the " + AnnotationInterruption + " annotation"}
			if ev.Kind == cloud.SpotInterruption {
				ev.Deadline = now.Add(spotWarning)
			}
			s.p.opts.Logger.Info("simulated interruption", "node", n.Name, "kind", kind)
			out = append(out, ev)
		}
		if len(out) > 0 || i > 0 {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// Done removes the annotation from the node.
func (s *interruptions) Done(ctx context.Context, ev cloud.Interruption) error {
	n := &corev1.Node{}
	if err := s.p.client.Get(ctx, client.ObjectKey{Name: ev.Handle}, n); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading node %s: %w", ev.Handle, err)
	}
	if _, ok := n.Annotations[AnnotationInterruption]; !ok {
		return nil
	}
	patch := client.MergeFrom(n.DeepCopy())
	delete(n.Annotations, AnnotationInterruption)
	if err := s.p.client.Patch(ctx, n, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing the interruption annotation of node %s: %w", ev.Handle, err)
	}
	return nil
}
