package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
)

// ReasonUnconsolidatable is the event a kept node's claim and Node get when the reason
// consolidation keeps it changes.
const ReasonUnconsolidatable = "Unconsolidatable"

// keptReason classifies why consolidation keeps a node, for the condition's reason.
func keptReason(k consolidation.Kept) string {
	switch k.Held {
	case consolidation.HeldByDoNotDisrupt:
		return "DoNotDisrupt"
	case consolidation.HeldByBudget:
		return "DisruptionBudget"
	case consolidation.HeldByPendingPods:
		return "PendingPods"
	case consolidation.HeldByUnhealthyThreshold:
		return "UnhealthyThreshold"
	}
	return "Kept"
}

// explainKept answers "why isn't this node consolidated?" on the cluster: every claim whose
// node the plan keeps carries Unconsolidatable=True with consolidation's reason, and gets an
// Unconsolidatable event (on the claim and on its Node) only when that reason changes, so a
// steady cluster emits nothing and the answer survives an agent restart. A claim a command
// takes, or that consolidation no longer considers, loses the condition.
func (d *disruption) explainKept(ctx context.Context, v *clusterView, res *consolidation.Result) error {
	kept := map[string]consolidation.Kept{}
	for _, k := range res.Kept {
		kept[k.Node] = k
	}
	claimNode := map[string]string{}
	for _, n := range v.snap.Nodes {
		if n.Claim != "" {
			claimNode[n.Claim] = n.Name
		}
	}
	for _, name := range sortedKeys(v.claims) {
		c := v.claims[name]
		if c.DeletionTimestamp != nil {
			continue
		}
		node := claimNode[c.Name]
		k, isKept := kept[node]
		if !needsUpdate(c, k, isKept) {
			continue // the steady state: no read, no write
		}
		var claim *v1.NodeClaim
		changed := false
		// The conditions recorder may have written the claim since the view was taken: work on
		// the latest copy.
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			claim = &v1.NodeClaim{}
			if err := d.client.Get(ctx, client.ObjectKeyFromObject(c), claim); err != nil {
				return err
			}
			switch {
			case !needsUpdate(claim, k, isKept):
				changed = false
				return nil
			case isKept:
				setCondition(claim, v1.ConditionUnconsolidatable, metav1.ConditionTrue, keptReason(k), k.Reason, d.clock.Now())
			default:
				meta.RemoveStatusCondition(&claim.Status.Conditions, v1.ConditionUnconsolidatable)
			}
			changed = true
			return d.client.Status().Update(ctx, claim)
		})
		if err != nil {
			if err := ignoreConflict(client.IgnoreNotFound(err)); err != nil {
				return fmt.Errorf("recording why nodeclaim %s is kept: %w", c.Name, err)
			}
			continue
		}
		if !changed {
			continue
		}
		if isKept {
			note := "Consolidation keeps the node: " + k.Reason
			d.disrupter.recorder.Eventf(claim, nil, corev1.EventTypeNormal, ReasonUnconsolidatable, "Consolidate", "%s", note)
			if claim.Status.NodeName != "" {
				ref := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: claim.Status.NodeName}}
				d.disrupter.recorder.Eventf(ref, nil, corev1.EventTypeNormal, ReasonUnconsolidatable, "Consolidate", "%s", note)
			}
		}
	}
	return nil
}

// needsUpdate reports whether c's Unconsolidatable condition differs from what the plan says:
// kept with k's reason, or not kept.
func needsUpdate(c *v1.NodeClaim, k consolidation.Kept, isKept bool) bool {
	current := meta.FindStatusCondition(c.Status.Conditions, v1.ConditionUnconsolidatable)
	if !isKept {
		return current != nil
	}
	return current == nil || current.Status != metav1.ConditionTrue || current.Message != k.Reason
}
