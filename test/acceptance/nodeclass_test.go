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

func awsNodeClassConfig(c *cluster, team string) string {
	return c.providerBlock() + fmt.Sprintf(`
resource "tenon_node_class" "test" {
  name = "acc-class"
  aws = {
    role                  = "KarpenterNodeRole-prod"
    subnet_selector_terms = [{ tags = { "tenon.dev/discovery" = "prod" } }]
    tags                  = { team = %q }
    block_device_mappings = [{
      device_name = "/dev/xvda"
      root_volume = true
      ebs         = { volume_size = "100Gi", volume_type = "gp3", encrypted = true }
    }]
    kubelet = { max_pods = 110 }
  }
}
`, team)
}

func kwokNodeClassConfig(c *cluster) string {
	return c.providerBlock() + `
resource "tenon_node_class" "test" {
  name = "acc-class"
  kwok = {}
}
`
}

// TestNodeClass: create -> import -> update in place -> drift restored -> replace (aws to
// kwok, which the API forbids in place) -> destroy.
func TestNodeClass(t *testing.T) {
	c := requireCluster(t)
	ctx := context.Background()
	res := "tenon_node_class.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		CheckDestroy:             checkGone(ctx, c, nodeClasses, "acc-class"),
		Steps: []resource.TestStep{
			{
				Config: awsNodeClassConfig(c, "platform"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("aws").AtMapKey("ami_family"), knownvalue.StringExact("AL2023")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("aws").AtMapKey("metadata_options").AtMapKey("http_tokens"), knownvalue.StringExact("required")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("status").AtMapKey("ready"), knownvalue.Bool(false)),
				},
				Check: checkLive(ctx, c, nodeClasses, "acc-class", func(u *unstructured.Unstructured) error {
					if err := expectString(u, "platform", "spec", "aws", "tags", "team"); err != nil {
						return err
					}
					return expectManager(u)
				}),
			},
			{ResourceName: res, ImportState: true, ImportStateId: "acc-class", ImportStateVerify: true},
			{
				Config: awsNodeClassConfig(c, "data"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: checkLive(ctx, c, nodeClasses, "acc-class", func(u *unstructured.Unstructured) error {
					return expectString(u, "data", "spec", "aws", "tags", "team")
				}),
			},
			{
				PreConfig: func() {
					patch(t, c, nodeClasses, "acc-class", `{"spec":{"aws":{"tags":{"team":"someone-else"},"kubelet":{"maxPods":20}}}}`)
				},
				Config: awsNodeClassConfig(c, "data"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: checkLive(ctx, c, nodeClasses, "acc-class", func(u *unstructured.Unstructured) error {
					if err := expectString(u, "data", "spec", "aws", "tags", "team"); err != nil {
						return err
					}
					return expectInt(u, 110, "spec", "aws", "kubelet", "maxPods")
				}),
			},
			{
				Config: kwokNodeClassConfig(c),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionReplace),
				}},
				Check: checkLive(ctx, c, nodeClasses, "acc-class", func(u *unstructured.Unstructured) error {
					if _, ok, _ := unstructured.NestedMap(u.Object, "spec", "aws"); ok {
						return fmt.Errorf("NodeClass acc-class still has an aws block after the replacement")
					}
					_, ok, err := unstructured.NestedMap(u.Object, "spec", "kwok")
					if !ok || err != nil {
						return fmt.Errorf("NodeClass acc-class has no kwok block (%w)", err)
					}
					return nil
				}),
			},
			{ResourceName: res, ImportState: true, ImportStateId: "acc-class", ImportStateVerify: true},
		},
	})
}
