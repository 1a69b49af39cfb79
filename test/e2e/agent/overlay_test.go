package agent_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// overlayPod is a bare pod pinned to pool that needs most of a .large node (2 vCPU), so no two
// share one.
func overlayPod(name, pool string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
  labels: {app: overlay}
spec:
  terminationGracePeriodSeconds: 0
  nodeSelector: {tenon.dev/nodepool: %[2]s}
  containers:
    - name: c
      image: registry.k8s.io/pause:3.10
      resources:
        requests: {cpu: 1500m, memory: 1Gi}
`, name, pool)
}

// overlayYAML is a NodeOverlay on one family of pool's instance types.
func overlayYAML(name, pool, family, change string) string {
	return fmt.Sprintf(`
apiVersion: tenon.dev/v1
kind: NodeOverlay
metadata:
  name: %[1]s
spec:
  requirements:
    - {key: tenon.dev/nodepool, operator: In, values: [%[2]s]}
    - {key: tenon.dev/instance-family, operator: In, values: [%[3]s]}
  %[4]s
  weight: 7
`, name, pool, family, change)
}

// TestOverlayDiscountChangesTheTypeLaunched is issue 23 item 4 live: in a pool of c6i and m6i
// types, a pod gets the cheaper c6i.large; once a NodeOverlay discounts m6i by 50 %, the next
// pod gets an m6i.large, whose NodeClaim records the discounted price. The overlay's status says
// it is applied to the pool; a second overlay of the same weight on the same types is reported
// in conflict, naming the first, with a Warning event.
func TestOverlayDiscountChangesTheTypeLaunched(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "overlay")
	const pool = "ovl"
	apply(t, e, ns, kwokClass(pool)+"\n---\n"+poolYAML(pool, pool, `        - key: tenon.dev/instance-family
          operator: In
          values: [c6i, m6i]
  disruption:
    consolidateAfter: Never`))
	startAgent(t, e, "overlay")
	cleanupPool(t, e, ns, pool)
	t.Cleanup(func() {
		ctx := context.Background()
		_ = e.client.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(ns))
		for _, name := range []string{"m6i-deal", "another-m6i-deal"} {
			_ = e.client.Delete(ctx, &v1.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})

	apply(t, e, ns, overlayPod("before", pool))
	if typ := runningType(t, e, ns, "before"); typ != "c6i.large" {
		t.Fatalf("without an overlay the pod runs on %s, want c6i.large, the cheapest type that fits", typ)
	}

	apply(t, e, ns, overlayYAML("m6i-deal", pool, "m6i", `priceAdjustment: "-50%"`))
	waitFor(t, 30*time.Second, "the overlay reported applied", func() (bool, string) {
		o := getOverlay(t, e, "m6i-deal")
		c := meta.FindStatusCondition(o.Status.Conditions, v1.ConditionReady)
		return c != nil && c.Reason == v1.ReasonOverlayApplied && len(o.Status.NodePools) == 1 && o.Status.NodePools[0].Name == pool,
			fmt.Sprintf("status %+v", o.Status)
	})

	apply(t, e, ns, overlayPod("after", pool))
	if typ := runningType(t, e, ns, "after"); typ != "m6i.large" {
		t.Fatalf("with m6i discounted by 50%% the pod runs on %s, want m6i.large", typ)
	}
	node := podNode(t, e, ns, "after")
	claim := &v1.NodeClaim{}
	waitFor(t, 30*time.Second, "the claim's discounted price", func() (bool, string) {
		if err := e.client.Get(context.Background(), client.ObjectKey{Name: node.Name}, claim); err != nil {
			return false, err.Error()
		}
		price, err := strconv.ParseFloat(claim.Status.PricePerHour, 64)
		return err == nil && price > 0 && price < 0.06, "pricePerHour " + claim.Status.PricePerHour
	})

	apply(t, e, ns, overlayYAML("another-m6i-deal", pool, "m6i", `price: "0.01"`))
	waitFor(t, 30*time.Second, "the conflict reported", func() (bool, string) {
		o := getOverlay(t, e, "another-m6i-deal")
		c := meta.FindStatusCondition(o.Status.Conditions, v1.ConditionReady)
		return c != nil && c.Reason == v1.ReasonOverlayConflict && strings.Contains(c.Message, "conflicts with NodeOverlay m6i-deal (weight 7)"),
			fmt.Sprintf("status %+v", o.Status)
	})
	waitFor(t, 30*time.Second, "a Warning event on the overlay in conflict", func() (bool, string) {
		var events corev1.EventList
		_ = e.client.List(context.Background(), &events)
		for _, ev := range events.Items {
			if ev.InvolvedObject.Name == "another-m6i-deal" && ev.Reason == v1.ReasonOverlayConflict && ev.Type == corev1.EventTypeWarning {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events", len(events.Items))
	})
}

// runningType waits for pod name to run and returns its node's instance type.
func runningType(t *testing.T, e env, ns, name string) string {
	t.Helper()
	waitFor(t, 90*time.Second, "pod "+name+" Running", func() (bool, string) {
		pod := &corev1.Pod{}
		if err := e.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, pod); err != nil {
			return false, err.Error()
		}
		return pod.Status.Phase == corev1.PodRunning, string(pod.Status.Phase)
	})
	return podNode(t, e, ns, name).Labels[corev1.LabelInstanceTypeStable]
}

func getOverlay(t *testing.T, e env, name string) *v1.NodeOverlay {
	t.Helper()
	o := &v1.NodeOverlay{}
	if err := e.client.Get(context.Background(), client.ObjectKey{Name: name}, o); err != nil {
		t.Fatalf("getting nodeoverlay %s: %v", name, err)
	}
	return o
}
