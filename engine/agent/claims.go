package agent

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// Field indexes the controllers look objects up by.
const (
	indexClaimProviderID = "status.providerID"
	indexNodeProviderID  = "spec.providerID"
	indexPodNodeName     = "spec.nodeName"
	indexPodNominated    = "status.nominatedNodeName"
)

// addIndexes registers the field indexes on the manager's cache.
func addIndexes(ctx context.Context, idx client.FieldIndexer) error {
	indexes := []struct {
		what  string
		obj   client.Object
		field string
		value func(client.Object) string
	}{
		{"nodeclaims", &v1.NodeClaim{}, indexClaimProviderID, func(o client.Object) string { return o.(*v1.NodeClaim).Status.ProviderID }},
		{"nodes", &corev1.Node{}, indexNodeProviderID, func(o client.Object) string { return o.(*corev1.Node).Spec.ProviderID }},
		{"pods", &corev1.Pod{}, indexPodNodeName, func(o client.Object) string { return o.(*corev1.Pod).Spec.NodeName }},
		{"pods", &corev1.Pod{}, indexPodNominated, func(o client.Object) string { return o.(*corev1.Pod).Status.NominatedNodeName }},
	}
	for _, ix := range indexes {
		err := idx.IndexField(ctx, ix.obj, ix.field, func(o client.Object) []string {
			if v := ix.value(o); v != "" {
				return []string{v}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("indexing %s: %w", ix.what, err)
		}
	}
	return nil
}

// claimsOfNode returns the claims a Node registered for, by provider ID.
func claimsOfNode(ctx context.Context, c client.Client, node *corev1.Node) ([]reconcile.Request, error) {
	if node.Spec.ProviderID == "" {
		return nil, nil
	}
	var claims v1.NodeClaimList
	if err := c.List(ctx, &claims, client.MatchingFields{indexClaimProviderID: node.Spec.ProviderID}); err != nil {
		return nil, fmt.Errorf("mapping node %s to its nodeclaim: %w", node.Name, err)
	}
	out := make([]reconcile.Request, 0, len(claims.Items))
	for _, cl := range claims.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: cl.Name}})
	}
	return out, nil
}

// nodeOf returns the Node with the claim's provider ID, or nil.
func nodeOf(ctx context.Context, c client.Client, claim *v1.NodeClaim) (*corev1.Node, error) {
	if claim.Status.ProviderID == "" {
		return nil, nil
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes, client.MatchingFields{indexNodeProviderID: claim.Status.ProviderID}); err != nil {
		return nil, fmt.Errorf("finding the node of nodeclaim %s: %w", claim.Name, err)
	}
	if len(nodes.Items) == 0 {
		return nil, nil
	}
	return &nodes.Items[0], nil
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func isTrue(claim *v1.NodeClaim, condition string) bool {
	return meta.IsStatusConditionTrue(claim.Status.Conditions, condition)
}

func conditionTime(claim *v1.NodeClaim, condition string) time.Time {
	if c := meta.FindStatusCondition(claim.Status.Conditions, condition); c != nil {
		return c.LastTransitionTime.Time
	}
	return claim.CreationTimestamp.Time
}

// setCondition sets a condition on claim, its transition at now when the
// status changes.
func setCondition(claim *v1.NodeClaim, condition string, status metav1.ConditionStatus, reason, message string, now time.Time) {
	meta.SetStatusCondition(&claim.Status.Conditions, metav1.Condition{
		Type: condition, Status: status, Reason: reason, Message: message, ObservedGeneration: claim.Generation, LastTransitionTime: metav1.NewTime(now),
	})
}

// ignoreConflict turns a write conflict into a quiet requeue: the watch
// brings the newer object.
func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}
