package agent

import (
	"context"
	"errors"
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// A plan removes at most a budget's worth of nodes; the walk
// (consolidation.Result.Leaving) knows which nodes the plans after it are
// expected to remove too. The pods a command evicts are recreated by
// their controllers and placed by kube-scheduler, which scores the
// emptiest node best: live, that is an under-used node the next plan
// removes, so those pods were evicted twice (issue 18: 220 evictions for
// 148 pods), and each arrival restarted that node's consolidateAfter
// clock, so the walk took a plan per consolidateAfter. The planned-removal
// taint (PreferNoSchedule: kube-scheduler's TaintToleration score, weight
// 3, outweighs the resource scores) sends pods to the nodes that stay
// wherever they fit there, and nowhere is refused a pod that fits only on
// a leaving node.

// plannedRemovalTaint is on the nodes the walk ends without.
var plannedRemovalTaint = corev1.Taint{Key: v1.TaintKeyPlannedRemoval, Effect: corev1.TaintEffectPreferNoSchedule}

// steer puts the planned-removal taint on the nodes of leaving that the
// agent manages (they have a claim) and that are not already being
// removed, and takes it off every other node that carries it: each plan
// refreshes the forecast, and a plan with nothing to do clears it.
func (d *disruption) steer(ctx context.Context, v *clusterView, leaving []string) error {
	var on, off []string
	for _, n := range v.objects.Nodes {
		has := hasTaint(n, plannedRemovalTaint)
		want := slices.Contains(leaving, n.Name) && v.claimOfNode(n.Name) != nil &&
			n.DeletionTimestamp == nil && !hasTaint(n, disruptedTaint)
		switch {
		case want && !has:
			on = append(on, n.Name)
		case !want && has:
			off = append(off, n.Name)
		}
	}
	if len(on)+len(off) == 0 {
		return nil
	}
	slices.Sort(on)
	slices.Sort(off)
	d.log.Info("steering new pods away from the nodes consolidation expects to remove", "taint", v1.TaintKeyPlannedRemoval, "added", on, "removed", off)
	return errors.Join(d.setTaint(ctx, on, plannedRemovalTaint, true), d.setTaint(ctx, off, plannedRemovalTaint, false))
}
