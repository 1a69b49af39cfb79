package provider

import (
	"context"
	"fmt"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

// TestNodePoolReplicasInMemory: replicas reaches the NodePool and reads
// back, changes in place, and removing it replaces the NodePool (the API
// forbids turning a static pool dynamic in place).
func TestNodePoolReplicasInMemory(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	cfg := func(replicas string) string {
		return nodePoolHCL(`  name = "baseline"
  template = { node_class = "default" }
  limits = { nodes = "4" }
` + replicas)
	}
	want := func(n *int64) func(*terraform.State) error {
		return func(*terraform.State) error {
			np := &v1.NodePool{TypeMeta: metav1.TypeMeta{Kind: v1.NodePoolKind}, ObjectMeta: metav1.ObjectMeta{Name: "baseline"}}
			if err := target.Get(context.Background(), np); err != nil {
				return err
			}
			if (np.Spec.Replicas == nil) != (n == nil) || n != nil && *np.Spec.Replicas != *n {
				return fmt.Errorf("the NodePool's replicas is %v, want %v", np.Spec.Replicas, n)
			}
			return nil
		}
	}
	three, five := int64(3), int64(5)
	path := tfjsonpath.New("replicas")
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		Steps: []tfresource.TestStep{
			{Config: cfg("  replicas = 3"), Check: want(&three), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", path, knownvalue.Int64Exact(3)),
			}},
			{ResourceName: "tenon_nodepool.test", ImportState: true, ImportStateId: "baseline", ImportStateVerify: true},
			{Config: cfg("  replicas = 5"), Check: want(&five), ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("tenon_nodepool.test", plancheck.ResourceActionUpdate),
			}}},
			{Config: cfg(""), Check: want(nil), ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("tenon_nodepool.test", plancheck.ResourceActionDestroyBeforeCreate),
			}}},
		},
	})
}
