package agent

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// scalingOwner says which ReplicaSet or StatefulSet with a pod on one of
// nodes does not have its desired count of pods right now, or "". Such a
// controller is creating or deleting pods, and the PodDisruptionBudgets
// over them lag: the Eviction API grants evictions from a budget's status,
// so evicting while a Deployment scales down can take the budget below
// its minimum (bench-e2e counted one such budget per scale-down). The
// next plan decides again once the controller is at its count.
func scalingOwner(ctx context.Context, c client.Reader, nodes []string) (string, error) {
	on := map[string]bool{}
	for _, n := range nodes {
		on[n] = true
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods); err != nil {
		return "", fmt.Errorf("listing pods: %w", err)
	}
	owners := map[types.UID]bool{}
	for i := range pods.Items {
		if p := &pods.Items[i]; on[p.Spec.NodeName] {
			if ref := metav1.GetControllerOf(p); ref != nil {
				owners[ref.UID] = true
			}
		}
	}
	if len(owners) == 0 {
		return "", nil
	}
	live := livePodsByOwner(pods.Items)
	count := func(uid types.UID) int {
		if o := live[uid]; o != nil {
			return o.count
		}
		return 0
	}
	var rss appsv1.ReplicaSetList
	if err := c.List(ctx, &rss); err != nil {
		return "", fmt.Errorf("listing replicasets: %w", err)
	}
	for i := range rss.Items {
		rs := &rss.Items[i]
		// A ReplicaSet that cannot create its pods (a quota) is not waited for.
		if owners[rs.UID] && rs.Spec.Replicas != nil && count(rs.UID) != int(*rs.Spec.Replicas) && !replicaFailure(rs.Status.Conditions) {
			return fmt.Sprintf("ReplicaSet %s/%s is scaling (%d pods, %d desired)", rs.Namespace, rs.Name, count(rs.UID), *rs.Spec.Replicas), nil
		}
	}
	var sss appsv1.StatefulSetList
	if err := c.List(ctx, &sss); err != nil {
		return "", fmt.Errorf("listing statefulsets: %w", err)
	}
	for i := range sss.Items {
		ss := &sss.Items[i]
		if owners[ss.UID] && ss.Spec.Replicas != nil && count(ss.UID) != int(*ss.Spec.Replicas) {
			return fmt.Sprintf("StatefulSet %s/%s is scaling (%d pods, %d desired)", ss.Namespace, ss.Name, count(ss.UID), *ss.Spec.Replicas), nil
		}
	}
	return "", nil
}
