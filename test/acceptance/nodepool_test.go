package acceptance_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func nodePoolConfig(c *cluster, name string, weight int, extra string) string {
	return c.providerBlock() + fmt.Sprintf(`
resource "tenon_nodepool" "test" {
  name = %q
  template = {
    metadata = { labels = { "example.com/team" = "platform" } }
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] },
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge", "c5.large"], min_values = 2 },
    ]
    taints     = [{ key = "example.com/dedicated", value = "batch", effect = "NoSchedule" }]
    node_class = "default"
  }
  limits = { cpu = "100", memory = "1000Gi" }
  weight = %d
  %s
}
`, name, weight, extra)
}

// TestNodePool: create -> import -> update in place -> drift restored -> replace -> destroy.
func TestNodePool(t *testing.T) {
	c := requireCluster(t)
	ctx := context.Background()
	res := "tenon_nodepool.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		CheckDestroy:             checkGone(ctx, c, nodePools, "acc-pool", "acc-pool-renamed"),
		Steps: []resource.TestStep{
			{
				Config: nodePoolConfig(c, "acc-pool", 10, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("id"), knownvalue.StringExact("acc-pool")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("limits").AtMapKey("cpu"), knownvalue.StringExact("100")),
					// CRD defaults, filled by the provider so that the plan shows them.
					statecheck.ExpectKnownValue(res, tfjsonpath.New("template").AtMapKey("expire_after"), knownvalue.StringExact("720h")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("disruption").AtMapKey("consolidation_policy"), knownvalue.StringExact("WhenEmptyOrUnderutilized")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("disruption").AtMapKey("budgets").AtSliceIndex(0).AtMapKey("nodes"), knownvalue.StringExact("10%")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("status").AtMapKey("nodes"), knownvalue.Int64Exact(0)),
				},
				Check: checkLive(ctx, c, nodePools, "acc-pool", func(u *unstructured.Unstructured) error {
					if err := expectInt(u, 10, "spec", "weight"); err != nil {
						return err
					}
					if err := expectString(u, "default", "spec", "template", "spec", "nodeClassRef", "name"); err != nil {
						return err
					}
					return expectManager(u)
				}),
			},
			{
				ResourceName:      res,
				ImportState:       true,
				ImportStateId:     "acc-pool",
				ImportStateVerify: true,
			},
			{
				Config: nodePoolConfig(c, "acc-pool", 20, `disruption = {
    consolidation_policy = "WhenEmpty"
    consolidate_after    = "30s"
    min_savings_per_hour = "0.05"
    min_savings_percent  = 20
    budgets = [
      { nodes = "20%" },
      { nodes = "0", schedule = "0 9 * * mon-fri", duration = "8h", reasons = ["Underutilized"] },
    ]
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: checkLive(ctx, c, nodePools, "acc-pool", func(u *unstructured.Unstructured) error {
					if err := expectInt(u, 20, "spec", "weight"); err != nil {
						return err
					}
					if err := expectString(u, "0.05", "spec", "disruption", "minSavingsPerHour"); err != nil {
						return err
					}
					if err := expectInt(u, 20, "spec", "disruption", "minSavingsPercent"); err != nil {
						return err
					}
					return expectString(u, "WhenEmpty", "spec", "disruption", "consolidationPolicy")
				}),
			},
			{
				// Drift: someone edits the pool with kubectl; the plan shows it, apply restores it.
				PreConfig: func() {
					patch(t, c, nodePools, "acc-pool", `{"spec":{"weight":55,"template":{"spec":{"expireAfter":"24h"}}}}`)
				},
				Config: nodePoolConfig(c, "acc-pool", 20, `disruption = {
    consolidation_policy = "WhenEmpty"
    consolidate_after    = "30s"
    min_savings_per_hour = "0.05"
    min_savings_percent  = 20
    budgets = [
      { nodes = "20%" },
      { nodes = "0", schedule = "0 9 * * mon-fri", duration = "8h", reasons = ["Underutilized"] },
    ]
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(res, tfjsonpath.New("weight"), knownvalue.Int64Exact(20)),
				}},
				Check: checkLive(ctx, c, nodePools, "acc-pool", func(u *unstructured.Unstructured) error {
					if err := expectInt(u, 20, "spec", "weight"); err != nil {
						return err
					}
					return expectString(u, "720h", "spec", "template", "spec", "expireAfter")
				}),
			},
			{
				// The name is immutable: a new name replaces the object.
				Config: nodePoolConfig(c, "acc-pool-renamed", 20, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkGone(ctx, c, nodePools, "acc-pool"),
					checkLive(ctx, c, nodePools, "acc-pool-renamed", expectManager),
				),
			},
		},
	})
}

// patch changes an object as kubectl would, with another field manager.
func patch(t *testing.T, c *cluster, gvr schema.GroupVersionResource, name, body string) {
	t.Helper()
	_, err := c.dynamic.Resource(gvr).Patch(context.Background(), name, types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: "kubectl-edit"})
	if err != nil {
		t.Fatalf("patching %s %s: %v", gvr.Resource, name, err)
	}
}

func checkLive(ctx context.Context, c *cluster, gvr schema.GroupVersionResource, name string, check func(*unstructured.Unstructured) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := c.dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading %s %s: %w", gvr.Resource, name, err)
		}
		return check(u)
	}
}

func checkGone(ctx context.Context, c *cluster, gvr schema.GroupVersionResource, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, name := range names {
			_, err := c.dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				return fmt.Errorf("%s %s still exists", gvr.Resource, name)
			}
			if !apierrors.IsNotFound(err) {
				return err
			}
		}
		return nil
	}
}

func expectInt(u *unstructured.Unstructured, want int64, fields ...string) error {
	got, ok, err := unstructured.NestedInt64(u.Object, fields...)
	if err != nil || !ok || got != want {
		return fmt.Errorf("%s %s: %v = %d (set %v, %w), want %d", u.GetKind(), u.GetName(), fields, got, ok, err, want)
	}
	return nil
}

func expectString(u *unstructured.Unstructured, want string, fields ...string) error {
	got, ok, err := unstructured.NestedString(u.Object, fields...)
	if err != nil || !ok || got != want {
		return fmt.Errorf("%s %s: %v = %q (set %v, %w), want %q", u.GetKind(), u.GetName(), fields, got, ok, err, want)
	}
	return nil
}

// expectManager checks that the provider wrote the object with server-side apply.
func expectManager(u *unstructured.Unstructured) error {
	for _, mf := range u.GetManagedFields() {
		if mf.Manager == "tenon-terraform" && mf.Operation == metav1.ManagedFieldsOperationApply {
			return nil
		}
	}
	return fmt.Errorf("%s %s has no apply entry of field manager tenon-terraform: %+v", u.GetKind(), u.GetName(), u.GetManagedFields())
}

func checkLiveNamespaced(ctx context.Context, c *cluster, gvr schema.GroupVersionResource, ns, name string, check func(*unstructured.Unstructured) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := c.dynamic.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading %s %s/%s: %w", gvr.Resource, ns, name, err)
		}
		return check(u)
	}
}

func checkGoneNamespaced(ctx context.Context, c *cluster, gvr schema.GroupVersionResource, ns, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := c.dynamic.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			return fmt.Errorf("%s %s/%s still exists", gvr.Resource, ns, name)
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}
}
