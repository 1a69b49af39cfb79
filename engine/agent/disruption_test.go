package agent

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestEmptyNodeKeptForPendingPods: an initialized node with no workload
// pods is removed after consolidateAfter, unless a pending pod would be
// placed on it. The agent here has no nomination in memory (as after a
// restart), so only the solve of the pending pods can keep the node.
func TestEmptyNodeKeptForPendingPods(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cpu      string // the pending pod's request; "" for none
		wantKept bool
	}{
		{name: "no pending pod", wantKept: false},
		{name: "a pending pod that fits", cpu: "1", wantKept: true},
		{name: "a pending pod too big for it", cpu: "64", wantKept: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []client.Object{emptyNodeClass(), emptyNodePool(), emptyNode(), initializedClaim()}
			if tc.cpu != "" {
				objs = append(objs, pendingPod("waiting", tc.cpu))
			}
			a, c, _ := testAgent(t, objs...)
			// consolidateAfter is 0s: one look records Empty and acts on it.
			if err := a.disruptEmpty(context.Background(), time.Now()); err != nil {
				t.Fatalf("disruptEmpty: %v", err)
			}
			// The claim's termination finalizer keeps it, marked for deletion.
			if kept := getClaim(t, c, "p-abc").DeletionTimestamp == nil; kept != tc.wantKept {
				t.Errorf("claim kept = %v, want %v", kept, tc.wantKept)
			}
		})
	}
}

func emptyNodeClass() *v1.NodeClass {
	return &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
}

func emptyNodePool() *v1.NodePool {
	pool := &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	pool.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Name: "default"}
	pool.Spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{
		{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
	}
	pool.Spec.Disruption = &v1.Disruption{ConsolidateAfter: "0s"}
	return pool
}

func initializedClaim() *v1.NodeClaim {
	c := testClaim("p-abc", "m5.large")
	c.Status = v1.NodeClaimStatus{ProviderID: "fake://p-abc", NodeName: "n1", InstanceType: "m5.large"}
	for _, t := range []string{v1.ConditionLaunched, v1.ConditionRegistered, v1.ConditionInitialized} {
		c.Status.Conditions = append(c.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: metav1.Now()})
	}
	return c
}

func emptyNode() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{
			v1.LabelNodePool: "p", v1.LabelNodeRegistered: "true", v1.LabelNodeInitialized: "true",
			scheduling.LabelInstanceType: "m5.large", scheduling.LabelTopologyZone: "us-east-1a", scheduling.LabelCapacityType: "on-demand",
			corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux", corev1.LabelHostname: "n1",
		}},
		Spec: corev1.NodeSpec{ProviderID: "fake://p-abc"},
		Status: corev1.NodeStatus{
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourceMemory: resource.MustParse("7Gi"), corev1.ResourcePods: resource.MustParse("29")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")},
		},
	}
}

func pendingPod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{v1.LabelNodePool: "p"},
			Containers: []corev1.Container{{Name: "app", Image: "pause", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}},
	}
}

// TestConsolidationBlockedByPendingPods: a consolidation command that
// removes a node pending pods would be placed on does not run.
func TestConsolidationBlockedByPendingPods(t *testing.T) {
	a, _, _ := testAgent(t)
	v := &clusterView{claims: map[string]*v1.NodeClaim{"p-abc": initializedClaim()}, pending: map[string]bool{}}
	cmd := consolidation.Command{Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n1"}}
	for _, tc := range []struct {
		name    string
		landing map[string]bool
		blocked bool
	}{
		{name: "no pending pod lands there", landing: map[string]bool{"other": true}},
		{name: "a pending pod lands on the node", landing: map[string]bool{"n1": true}, blocked: true},
		{name: "a pending pod lands on its claim", landing: map[string]bool{"p-abc": true}, blocked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why := a.blocked(v, cmd, tc.landing, time.Now())
			if (why != "") != tc.blocked {
				t.Errorf("blocked(...) = %q, want blocked %v", why, tc.blocked)
			}
		})
	}
}
