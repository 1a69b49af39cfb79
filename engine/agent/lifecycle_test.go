package agent

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/fake"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// testAgent is the agent's controllers on a fake API server and the fake
// cloud, reading a fake clock set to the wall clock's now.
func testAgent(t *testing.T, objs ...client.Object) (*controllers, client.WithWatch, *fake.Provider, *clocktesting.FakeClock) {
	t.Helper()
	return testAgentWith(t, nil, objs...)
}

// testAgentWith is testAgent with the controllers' client wrapped (for an
// interceptor).
func testAgentWith(t *testing.T, wrap func(client.WithWatch) client.Client, objs ...client.Object) (*controllers, client.WithWatch, *fake.Provider, *clocktesting.FakeClock) {
	t.Helper()
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := crfake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&v1.NodeClaim{}).
		WithIndex(&corev1.Node{}, indexNodeProviderID, func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }).
		WithIndex(&v1.NodeClaim{}, indexClaimProviderID, func(o client.Object) []string { return []string{o.(*v1.NodeClaim).Status.ProviderID} }).
		WithIndex(&corev1.Pod{}, indexPodNodeName, func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithIndex(&corev1.Pod{}, indexPodNominated, func(o client.Object) []string { return []string{o.(*corev1.Pod).Status.NominatedNodeName} }).
		Build()
	var used client.Client = c
	if wrap != nil {
		used = wrap(c)
	}
	clk := clocktesting.NewFakeClock(time.Now())
	a, provider := testAgentOn(t, used, clk)
	return a, c, provider, clk
}

// testAgentOn is a fresh set of controllers (nothing in memory, as after a
// restart) on an existing fake API server and clock, with a new fake cloud.
func testAgentOn(t *testing.T, c client.Client, clk *clocktesting.FakeClock) (*controllers, *fake.Provider) {
	t.Helper()
	provider, err := fake.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.ClusterName = "test"
	return newControllers(c, provider, events.NewFakeRecorder(100), m, opts, clk, logr.Discard()), provider
}

func testClaim(name string, types ...string) *v1.NodeClaim {
	return &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelNodePool: "p"}, Finalizers: []string{v1.TerminationFinalizer}, CreationTimestamp: metav1.Now()},
		Spec: v1.NodeClaimSpec{
			Requirements: []v1.NodeSelectorRequirementWithMinValues{
				{Key: scheduling.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: types},
				{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1a"}},
				{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
			},
			Resources:    v1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			NodeClassRef: &v1.NodeClassReference{Name: "default"},
		},
	}
}

func reconcileOnce(t *testing.T, a *controllers, name string) reconcile.Result {
	t.Helper()
	res, err := a.lifecycle.reconcileClaim(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return res
}

func getClaim(t *testing.T, c client.Client, name string) *v1.NodeClaim {
	t.Helper()
	claim := &v1.NodeClaim{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: name}, claim); err != nil {
		t.Fatal(err)
	}
	return claim
}

// TestLaunchFallsBackAndRegisters: a shortage of the first option launches
// the next; the Node with the claim's provider ID registers the claim and,
// once Ready, initializes it.
func TestLaunchFallsBackAndRegisters(t *testing.T) {
	a, c, provider, _ := testAgent(t, testClaim("p-abc", "m5.xlarge", "m5.large"))
	provider.SetShortage(cloud.Offering{InstanceType: "m5.xlarge", Zone: "us-east-1a", CapacityType: "on-demand"}, true)
	reconcileOnce(t, a, "p-abc")
	claim := getClaim(t, c, "p-abc")
	if claim.Status.InstanceType != "m5.large" || !isTrue(claim, v1.ConditionLaunched) || claim.Status.ProviderID != "fake://p-abc" {
		t.Fatalf("after launch: %+v", claim.Status)
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-0-1", Labels: map[string]string{}},
		Spec:       corev1.NodeSpec{ProviderID: "fake://p-abc"},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	if err := c.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, a, "p-abc")
	claim = getClaim(t, c, "p-abc")
	if claim.Status.NodeName != "ip-10-0-0-1" || !isTrue(claim, v1.ConditionRegistered) {
		t.Fatalf("after registration: %+v", claim.Status)
	}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "ip-10-0-0-1"}, node); err != nil {
		t.Fatal(err)
	}
	if node.Labels[v1.LabelNodePool] != "p" || node.Labels[v1.LabelNodeRegistered] != "true" || len(node.Finalizers) != 1 {
		t.Errorf("node not linked: labels %v, finalizers %v", node.Labels, node.Finalizers)
	}
	reconcileOnce(t, a, "p-abc")
	if claim = getClaim(t, c, "p-abc"); !isTrue(claim, v1.ConditionInitialized) {
		t.Errorf("a Ready node without startup taints did not initialize the claim: %+v", claim.Status.Conditions)
	}
}

// TestRegistrationRepointsNominatedPods: the provisioner writes a claim's
// name into its pods' status.nominatedNodeName before the node exists
// (hint.go); a node that registers under another name (AWS) takes them
// over, so kube-scheduler tries it first. Other pods are left alone.
func TestRegistrationRepointsNominatedPods(t *testing.T) {
	mine, other := pendingPod("mine", "1"), pendingPod("other", "1")
	mine.Status.NominatedNodeName, other.Status.NominatedNodeName = "p-abc", "p-other"
	a, c, _, _ := testAgent(t, testClaim("p-abc", "m5.large"), mine, other)
	reconcileOnce(t, a, "p-abc")
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-0-1", Labels: map[string]string{}},
		Spec:       corev1.NodeSpec{ProviderID: "fake://p-abc"},
	}
	if err := c.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, a, "p-abc")
	for name, want := range map[string]string{"mine": "ip-10-0-0-1", "other": "p-other"} {
		pod := &corev1.Pod{}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, pod); err != nil {
			t.Fatal(err)
		}
		if pod.Status.NominatedNodeName != want {
			t.Errorf("pod %s nominated to %q after registration; want %q", name, pod.Status.NominatedNodeName, want)
		}
	}
}

// TestRegistrationLabelsWhatAKubeletMayNot: labels in the kubernetes.io and
// k8s.io domains (a kubelet may not set them on itself) come from the claim's
// labels and single-valued requirements when the node registers; labels the
// node already carries, such as its zone, are left as they are. The
// well-known labels get their Karpenter aliases.
func TestRegistrationLabelsWhatAKubeletMayNot(t *testing.T) {
	claim := testClaim("p-lbl", "m5.large")
	claim.Labels["storage.k8s.io/tier"] = "fast"
	claim.Spec.Requirements = append(claim.Spec.Requirements,
		v1.NodeSelectorRequirementWithMinValues{Key: "kubernetes.io/test", Operator: corev1.NodeSelectorOpIn, Values: []string{"test-value"}},
		v1.NodeSelectorRequirementWithMinValues{Key: "subdomain.kubernetes.io/test", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
		v1.NodeSelectorRequirementWithMinValues{Key: "example.com/multi", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}},
		v1.NodeSelectorRequirementWithMinValues{Key: "example.com/not", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}},
	)
	a, c, _, _ := testAgent(t, claim)
	reconcileOnce(t, a, "p-lbl")
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-0-2", Labels: map[string]string{scheduling.LabelTopologyZone: "us-east-1a"}},
		Spec:       corev1.NodeSpec{ProviderID: "fake://p-lbl"},
	}
	if err := c.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, a, "p-lbl")
	if err := c.Get(context.Background(), client.ObjectKey{Name: node.Name}, node); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"kubernetes.io/test": "test-value", "subdomain.kubernetes.io/test": "a", "storage.k8s.io/tier": "fast",
		v1.LabelNodePool: "p", scheduling.LabelTopologyZone: "us-east-1a", scheduling.LabelCapacityType: "on-demand",
		// Karpenter's spellings, for workloads written for Karpenter.
		"karpenter.sh/nodepool": "p", "karpenter.sh/capacity-type": "on-demand",
	}
	for k, v := range want {
		if node.Labels[k] != v {
			t.Errorf("label %s = %q, want %q (labels %v)", k, node.Labels[k], v, node.Labels)
		}
	}
	for _, k := range []string{"example.com/multi", "example.com/not"} {
		if _, ok := node.Labels[k]; ok {
			t.Errorf("label %s set from a requirement that does not pin one value", k)
		}
	}
}

// TestLaunchFailures: no capacity anywhere deletes the claim (the next
// batch chooses again); a launch older than the launch timeout is given up.
func TestLaunchFailures(t *testing.T) {
	t.Run("insufficient capacity", func(t *testing.T) {
		a, c, provider, _ := testAgent(t, testClaim("p-ice", "m5.large"))
		provider.SetShortage(cloud.Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "on-demand"}, true)
		reconcileOnce(t, a, "p-ice")
		if claim := getClaim(t, c, "p-ice"); claim.DeletionTimestamp == nil {
			t.Error("the claim was not deleted after insufficient capacity")
		}
	})
	t.Run("launch timeout", func(t *testing.T) {
		old := testClaim("p-old", "m5.large")
		old.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * time.Minute))
		a, c, provider, _ := testAgent(t, old)
		reconcileOnce(t, a, "p-old")
		if claim := getClaim(t, c, "p-old"); claim.DeletionTimestamp == nil {
			t.Error("a claim past the launch timeout was not deleted")
		}
		if n := provider.CallCount(fake.MethodCreate); n != 0 {
			t.Errorf("the cloud was called %d times for a timed-out claim", n)
		}
	})
}

// TestTerminateDeletesInstanceAndReleases: a deleted, launched claim with
// no node deletes its instance and drops its finalizer.
func TestTerminateDeletesInstanceAndReleases(t *testing.T) {
	a, c, provider, _ := testAgent(t, testClaim("p-del", "m5.large"))
	reconcileOnce(t, a, "p-del")
	if list, _ := provider.List(context.Background()); len(list) != 1 {
		t.Fatalf("instances after launch: %d", len(list))
	}
	if err := c.Delete(context.Background(), getClaim(t, c, "p-del")); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, a, "p-del")
	if list, _ := provider.List(context.Background()); len(list) != 0 {
		t.Errorf("instances after termination: %d", len(list))
	}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "p-del"}, &v1.NodeClaim{}); err == nil {
		t.Error("the claim still exists: its finalizer was not dropped")
	}
}
