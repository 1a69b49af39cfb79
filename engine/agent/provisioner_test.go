package agent

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestNominatedPodsBuyNoSecondNode is issue 18's first bug: batches
// overlap, and a pod already nominated to a claim in flight must not buy
// another node. The first batch launches a claim for two pods; a second
// batch, with two bigger pods more, must launch only for the new ones: the
// claims' planned requests add up to the pods' requests once, not to more.
func TestNominatedPodsBuyNoSecondNode(t *testing.T) {
	ctx := context.Background()
	a, c, _, _ := testAgent(t, emptyNodeClass(), emptyNodePool("30s"), pendingPod("b-1", "1500m"), pendingPod("b-2", "1500m"))
	if err := a.provisioner.provision(ctx); err != nil {
		t.Fatalf("first batch: %v", err)
	}
	first := claimedCPU(t, c)
	if first.MilliValue() != 3000 {
		t.Fatalf("the first batch planned %s of cpu for 3 cpu of pods", first.String())
	}
	// The second batch: the first pods still wait for their claim, and two
	// bigger pods arrive (the packer fills existing capacity biggest
	// first, so they would take the claim's room from the first pods).
	for _, p := range []*corev1.Pod{pendingPod("a-1", "1900m"), pendingPod("a-2", "1900m")} {
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.provisioner.provision(ctx); err != nil {
		t.Fatalf("second batch: %v", err)
	}
	if got := claimedCPU(t, c); got.MilliValue() != 6800 {
		t.Errorf("the claims plan %s of cpu for 6.8 cpu of pods: a nominated pod was planned twice", got.String())
	}
}

// claimedCPU sums the cpu the NodeClaims were created for (their pods'
// requests; the test pools have no daemonsets).
func claimedCPU(t *testing.T, c client.Client) resource.Quantity {
	t.Helper()
	var claims v1.NodeClaimList
	if err := c.List(context.Background(), &claims); err != nil {
		t.Fatal(err)
	}
	var sum resource.Quantity
	for _, cl := range claims.Items {
		sum.Add(cl.Spec.Resources.Requests[corev1.ResourceCPU])
	}
	return sum
}
