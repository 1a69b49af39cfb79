package agent

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestScalingOwner: a command waits while a controller with a pod on its
// nodes is not at its desired count (scaling down or up), not for one at
// its count, one elsewhere, or one that reports ReplicaFailure.
func TestScalingOwner(t *testing.T) {
	rs := func(name string, replicas int32, failing bool) *appsv1.ReplicaSet {
		r := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)}}
		if failing {
			r.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue}}
		}
		return r
	}
	pods := func(owner, node string, n int) []client.Object {
		var out []client.Object
		for i := range n {
			out = append(out, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s-%d", owner, i),
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner, UID: types.UID("uid-" + owner), Controller: ptr.To(true)}}},
				Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		objs    []client.Object
		waiting bool
	}{
		{"at its count", append(pods("web", "n1", 3), rs("web", 3, false)), false},
		{"scaling down", append(pods("web", "n1", 3), rs("web", 1, false)), true},
		{"scaling up", append(pods("web", "n1", 3), rs("web", 5, false)), true},
		{"on another node", append(pods("web", "n2", 3), rs("web", 1, false)), false},
		{"cannot create its pods", append(pods("web", "n1", 3), rs("web", 5, true)), false},
	} {
		scheme, err := NewScheme()
		if err != nil {
			t.Fatal(err)
		}
		c := crfake.NewClientBuilder().WithScheme(scheme).WithObjects(tc.objs...).Build()
		why, err := scalingOwner(context.Background(), c, []string{"n1"})
		if err != nil {
			t.Fatal(err)
		}
		if (why != "") != tc.waiting {
			t.Errorf("%s: scalingOwner = %q, want waiting %v", tc.name, why, tc.waiting)
		}
	}
}
