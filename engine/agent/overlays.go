package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/overlay"
)

// ReasonOverlayInvalid is the reason of an invalid NodeOverlay's Ready condition and event (the
// others are the engine's outcomes, v1.ReasonOverlayApplied, Conflict and NoMatch).
const ReasonOverlayInvalid = "Invalid"

// admitOverlays takes the valid NodeOverlays; state.Build applies them to the pools' instance
// types, so packing, consolidation and the claims' prices see the overlaid values.
func (v *clusterView) admitOverlays(items []v1.NodeOverlay) {
	for i := range items {
		o := &items[i]
		if errs := o.Validate(); len(errs) > 0 {
			v.invalid[v1.NodeOverlayKind+"/"+o.Name] = errs.ToAggregate().Error()
			continue
		}
		v.objects.NodeOverlays = append(v.objects.NodeOverlays, o)
	}
}

// updateOverlays writes each NodeOverlay's Ready condition and the pools it changes, and records
// an event when its outcome changes: Warning when it is in conflict, selects nothing or is
// invalid (naming the overlay it clashed with, the pool, instance type and field), Normal when
// it applies again.
func (s *poolStatus) updateOverlays(ctx context.Context, v *clusterView) error {
	var overlays v1.NodeOverlayList
	if err := s.client.List(ctx, &overlays); err != nil {
		if meta.IsNoMatchError(err) {
			return nil // the cluster's CRDs predate NodeOverlays
		}
		return fmt.Errorf("listing nodeoverlays: %w", err)
	}
	outcomes := map[string]overlay.Status{}
	for _, st := range v.snap.Overlays {
		outcomes[st.Name] = st
	}
	for i := range overlays.Items {
		o := &overlays.Items[i]
		before := o.Status.DeepCopy()
		cond, pools := overlayStatus(v, o, outcomes)
		meta.SetStatusCondition(&o.Status.Conditions, cond)
		o.Status.NodePools = pools
		if equality.Semantic.DeepEqual(before, &o.Status) {
			continue
		}
		if err := s.client.Status().Update(ctx, o); err != nil {
			return ignoreConflict(client.IgnoreNotFound(fmt.Errorf("updating the status of nodeoverlay %s: %w", o.Name, err)))
		}
		was := meta.FindStatusCondition(before.Conditions, v1.ConditionReady)
		if was != nil && was.Reason == cond.Reason && was.Message == cond.Message {
			continue
		}
		if cond.Status == metav1.ConditionTrue {
			s.recorder.Eventf(o, nil, corev1.EventTypeNormal, cond.Reason, "Status", "NodeOverlay %s", cond.Message)
		} else {
			s.recorder.Eventf(o, nil, corev1.EventTypeWarning, cond.Reason, "Status", "NodeOverlay %s", cond.Message)
		}
	}
	return nil
}

// overlayStatus is an overlay's Ready condition and pool counts from the view.
func overlayStatus(v *clusterView, o *v1.NodeOverlay, outcomes map[string]overlay.Status) (metav1.Condition, []v1.NodeOverlayPoolStatus) {
	cond := metav1.Condition{Type: v1.ConditionReady, ObservedGeneration: o.Generation}
	if why, bad := v.invalid[v1.NodeOverlayKind+"/"+o.Name]; bad {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, ReasonOverlayInvalid, truncate("is invalid and applied nowhere: "+why, 1000)
		return cond, nil
	}
	st, ok := outcomes[o.Name]
	if !ok {
		// Listed after the view was built: the next round reports it.
		cond.Status, cond.Reason, cond.Message = metav1.ConditionUnknown, "Pending", "has not been evaluated yet"
		return cond, nil
	}
	cond.Reason, cond.Message = string(st.Outcome), truncate(st.Message, 1000)
	cond.Status = metav1.ConditionFalse
	if st.Outcome == overlay.Applied {
		cond.Status = metav1.ConditionTrue
	}
	var pools []v1.NodeOverlayPoolStatus
	for _, name := range slices.Sorted(maps.Keys(st.Pools)) {
		pools = append(pools, v1.NodeOverlayPoolStatus{Name: name, InstanceTypes: int32(min(st.Pools[name], 1<<30))}) //nolint:gosec // bounded above
	}
	return cond, pools
}
