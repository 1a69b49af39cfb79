package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// cordon puts the disruption taint (NoSchedule) on the nodes a plan's
// commands remove before the first of them runs, as termination would
// once their claims are deleted: the pods an earlier command evicts must
// not land on a node a later command removes (they would be evicted
// twice), nor new pods while replacements launch. The Snapshot counts a
// tainted node as marked for deletion, so no plan sends pods to it.
func (d *disruption) cordon(ctx context.Context, nodes []string) error {
	return d.setTaint(ctx, nodes, disruptedTaint, true)
}

// uncordon takes the disruption taint off nodes a command no longer
// removes (it was abandoned, or an error stopped the plan).
func (d *disruption) uncordon(ctx context.Context, nodes []string) error {
	return d.setTaint(ctx, nodes, disruptedTaint, false)
}

// setTaint puts taint on nodes (on) or takes it off; a node gone is
// skipped.
func (d *disruption) setTaint(ctx context.Context, nodes []string, taint corev1.Taint, on bool) error {
	var errs []error
	for _, name := range nodes {
		node := &corev1.Node{}
		if err := d.client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			errs = append(errs, client.IgnoreNotFound(err))
			continue
		}
		if hasTaint(node, taint) == on {
			continue
		}
		patch := client.MergeFrom(node.DeepCopy())
		if on {
			node.Spec.Taints = append(node.Spec.Taints, taint)
		} else {
			node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool {
				return t.Key == taint.Key && t.Effect == taint.Effect
			})
		}
		if err := d.client.Patch(ctx, node, patch); err != nil {
			errs = append(errs, fmt.Errorf("setting taint %s:%s of node %s to %v: %w", taint.Key, taint.Effect, name, on, client.IgnoreNotFound(err)))
		}
	}
	return errors.Join(errs...)
}

// staleCordons names the nodes of v that carry the disruption taint
// although nothing removes them: their claim is not being deleted, they
// are not, and no command holds them (an agent restarted mid-command left
// the taint). Nodes without a claim are not the agent's and are left.
func staleCordons(v *clusterView, inflight *inFlight) []string {
	var out []string
	for _, n := range v.objects.Nodes {
		claim := v.claimOfNode(n.Name)
		if claim == nil || claim.DeletionTimestamp != nil || n.DeletionTimestamp != nil || !hasTaint(n, disruptedTaint) {
			continue
		}
		if inflight.get(n.Name) == "" {
			out = append(out, n.Name)
		}
	}
	slices.Sort(out)
	return out
}
