package agent

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// bufferPool is pool p keeping room for pods placeholders of 1 CPU.
func bufferPool(pods int32) *v1.NodePool {
	pool := emptyNodePool("0s")
	pool.Spec.Buffer = &v1.CapacityBuffer{Pods: &pods, Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}
	return pool
}

// TestCapacityBufferLaunchesOnce: the loop launches a node for a buffer no room holds, does not
// launch it again on the next ticks while its claim is in flight, and consolidation keeps that
// claim although no pod is planned onto it.
func TestCapacityBufferLaunchesOnce(t *testing.T) {
	a, c, _, clk := testAgent(t, emptyNodeClass(), bufferPool(2))
	ctx := context.Background()
	count := func() []v1.NodeClaim {
		var claims v1.NodeClaimList
		if err := c.List(ctx, &claims); err != nil {
			t.Fatal(err)
		}
		return claims.Items
	}
	if err := a.buffers.reconcile(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	first := count()
	if len(first) == 0 {
		t.Fatal("no claim launched for a buffer no room holds")
	}
	for range 2 {
		if err := a.buffers.reconcile(ctx, clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if got := count(); len(got) != len(first) {
		t.Fatalf("%d claims after three ticks, %d after the first: the buffer was launched again", len(got), len(first))
	}
	for _, cl := range first {
		if len(cl.Spec.StartupTaints) != 0 {
			t.Errorf("a buffer's claim starts with taints %v; no pod awaits it", cl.Spec.StartupTaints)
		}
	}
	removed, kept := planNodes(t, a, clk.Now())
	if len(removed) > 0 {
		t.Fatalf("consolidation removes the buffer's claim: %v (kept %v)", removed, kept)
	}
}

// TestCapacityBufferNoneWithoutBuffers: a pool without a buffer launches nothing.
func TestCapacityBufferNoneWithoutBuffers(t *testing.T) {
	a, c, _, clk := testAgent(t, emptyNodeClass(), emptyNodePool("0s"))
	if err := a.buffers.reconcile(context.Background(), clk.Now()); err != nil {
		t.Fatal(err)
	}
	var claims v1.NodeClaimList
	if err := c.List(context.Background(), &claims); err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) != 0 {
		t.Fatalf("%d claims without a buffer", len(claims.Items))
	}
}
