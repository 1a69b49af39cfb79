package acceptance_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func provisionerConfig(c *cluster, name string, ttl int) string {
	return c.providerBlock() + fmt.Sprintf(`
resource "tenon_provisioner" "test" {
  name   = %q
  labels = { team = "platform" }
  requirements = [
    { key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] },
    { key = "tenon.dev/instance-generation", operator = "Gt", values = ["4"] },
  ]
  taints                    = [{ key = "example.com/dedicated", value = "batch", effect = "NoSchedule" }]
  limits                    = { cpu = "100", memory = "1000Gi" }
  ttl_seconds_after_empty   = %d
  ttl_seconds_until_expired = 2592000
  kubelet_configuration     = { max_pods = 110 }
  aws = {
    instance_profile = "KarpenterNodeInstanceProfile-prod"
    subnet_selector  = { "karpenter.sh/discovery" = "prod" }
    ami_family       = "Bottlerocket"
  }
}
`, name, ttl)
}

// TestProvisioner: create -> import -> update in place -> drift restored -> replace
// (rename) -> destroy.
func TestProvisioner(t *testing.T) {
	c := requireCluster(t)
	ctx := context.Background()
	res := "tenon_provisioner.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		CheckDestroy:             checkGone(ctx, c, provisioners, "acc-prov", "acc-prov-2"),
		Steps: []resource.TestStep{
			{
				Config: provisionerConfig(c, "acc-prov", 30),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("aws").AtMapKey("ami_family"), knownvalue.StringExact("Bottlerocket")),
				},
				Check: checkLive(ctx, c, provisioners, "acc-prov", func(u *unstructured.Unstructured) error {
					if err := expectString(u, "100", "spec", "limits", "resources", "cpu"); err != nil {
						return err
					}
					return expectManager(u)
				}),
			},
			{ResourceName: res, ImportState: true, ImportStateId: "acc-prov", ImportStateVerify: true},
			{
				Config: provisionerConfig(c, "acc-prov", 60),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: checkLive(ctx, c, provisioners, "acc-prov", func(u *unstructured.Unstructured) error {
					return expectInt(u, 60, "spec", "ttlSecondsAfterEmpty")
				}),
			},
			{
				PreConfig: func() {
					patch(t, c, provisioners, "acc-prov", `{"spec":{"ttlSecondsAfterEmpty":5,"labels":{"team":"intruder"}}}`)
				},
				Config: provisionerConfig(c, "acc-prov", 60),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: checkLive(ctx, c, provisioners, "acc-prov", func(u *unstructured.Unstructured) error {
					if err := expectInt(u, 60, "spec", "ttlSecondsAfterEmpty"); err != nil {
						return err
					}
					return expectString(u, "platform", "spec", "labels", "team")
				}),
			},
			{
				Config: provisionerConfig(c, "acc-prov-2", 60),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkGone(ctx, c, provisioners, "acc-prov"),
					checkLive(ctx, c, provisioners, "acc-prov-2", expectManager),
				),
			},
		},
	})
}
