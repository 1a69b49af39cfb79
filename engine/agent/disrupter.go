package agent

import (
	"context"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// annotationDisruptionReason records on a claim why the agent deleted it
// (Empty, Expired, Interrupted, ...), for events and metrics.
const annotationDisruptionReason = v1.Group + "/disruption-reason"

// disrupter deletes claims for a reason, the one way disruption, garbage
// collection and interruption remove a node: it records the reason on the
// claim, counts the decision, and deletes the claim (termination drains
// it).
type disrupter struct {
	client   client.Client
	recorder events.EventRecorder
	metrics  *metrics
	log      logr.Logger
}

// disrupt deletes a claim for reason; termination drains it.
func (d *disrupter) disrupt(ctx context.Context, c *v1.NodeClaim, reason, detail string) error {
	patch := client.MergeFrom(c.DeepCopy())
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annotationDisruptionReason] = reason
	if err := d.client.Patch(ctx, c, patch); err != nil {
		return client.IgnoreNotFound(err)
	}
	d.metrics.disruptionDecisions.WithLabelValues(reason, "delete").Inc()
	d.recorder.Eventf(c, nil, corev1.EventTypeNormal, ReasonDisrupting, "Disrupt", "Disrupting (%s): %s", reason, detail)
	d.log.Info("disrupting nodeclaim", "nodeclaim", c.Name, "reason", reason, "detail", detail)
	return client.IgnoreNotFound(d.client.Delete(ctx, c))
}
