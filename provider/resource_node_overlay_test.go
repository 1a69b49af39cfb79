package provider

import (
	"fmt"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

func nodeOverlayHCL(body string) string {
	return "resource \"tenon_node_overlay\" \"test\" {\n  name = \"deal\"\n" + body + "\n}\n"
}

// TestNodeOverlayValidationAtPlan: every NodeOverlay rule is met at plan time, at the attribute.
func TestNodeOverlayValidationAtPlan(t *testing.T) {
	runValidationCases(t, "Invalid NodeOverlay", []validationCase{
		{"price and adjustment", nodeOverlayHCL(`  price = "0.1"
  price_adjustment = "-10%"`), ""},
		{"nothing to change", nodeOverlayHCL(`  weight = 3`), ""},
		{"unsigned adjustment", nodeOverlayHCL(`  price_adjustment = "10%"`), "price_adjustment"},
		{"discount beyond 100%", nodeOverlayHCL(`  price_adjustment = "-150%"`), "price_adjustment"},
		{"negative price", nodeOverlayHCL(`  price = "-0.1"`), "price"},
		{"native capacity", nodeOverlayHCL(`  capacity = { cpu = "2" }`), "capacity"},
		{"kubernetes.io resource", nodeOverlayHCL(`  capacity = { "example.kubernetes.io/x" = "2" }`), "capacity"},
		{"zero capacity", nodeOverlayHCL(`  capacity = { "example.com/fpga" = "0" }`), `capacity["example.com/fpga"]`},
		{"capacity not a quantity", nodeOverlayHCL(`  capacity = { "hugepages-2Mi" = "lots" }`), `capacity["hugepages-2Mi"]`},
		{"weight", nodeOverlayHCL(`  price = "0.1"
  weight = 20000`), "weight"},
		{"requirement operator", nodeOverlayHCL(`  price = "0.1"
  requirements = [{ key = "tenon.dev/instance-family", operator = "Has", values = ["m5"] }]`), "requirements[0].operator"},
		{"restricted requirement key", nodeOverlayHCL(`  price = "0.1"
  requirements = [{ key = "karpenter.sh/nodepool", operator = "In", values = ["general"] }]`), "requirements[0].key"},
	})
}

// TestNodeOverlayCRUDInMemory: create, import, update and destroy through the provider with the
// memory target.
func TestNodeOverlayCRUDInMemory(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	cfg := func(adjustment string) string {
		return nodeOverlayHCL(`  requirements = [
    { key = "tenon.dev/nodepool", operator = "In", values = ["general"] },
    { key = "tenon.dev/instance-family", operator = "In", values = ["m6i"] },
  ]
  price_adjustment = "` + adjustment + `"
  capacity         = { "hugepages-2Mi" = "1Gi" }
  weight           = 10`)
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		CheckDestroy: func(*terraform.State) error {
			if target.has(v1.NodeOverlayKind, "deal") {
				return fmt.Errorf("NodeOverlay deal is still in the target after destroy")
			}
			return nil
		},
		Steps: []tfresource.TestStep{
			{Config: cfg("-20%"), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_node_overlay.test", tfjsonpath.New("price_adjustment"), knownvalue.StringExact("-20%")),
				statecheck.ExpectKnownValue("tenon_node_overlay.test", tfjsonpath.New("capacity").AtMapKey("hugepages-2Mi"), knownvalue.StringExact("1Gi")),
			}},
			{ResourceName: "tenon_node_overlay.test", ImportState: true, ImportStateId: "deal", ImportStateVerify: true},
			{Config: cfg("-0.01"), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_node_overlay.test", tfjsonpath.New("price_adjustment"), knownvalue.StringExact("-0.01")),
			}},
		},
	})
}

func TestNodeOverlayPaths(t *testing.T) {
	for api, want := range map[string]string{
		"metadata.name":                  "name",
		"spec.requirements[0].values":    "requirements[0].values",
		"spec.priceAdjustment":           "price_adjustment",
		"spec.price":                     "price",
		"spec.capacity[example.com/a.b]": `capacity["example.com/a.b"]`,
		"spec.weight":                    "weight",
	} {
		got := nodeOverlayKind.paths.toTF(api)
		if got.String() != want {
			t.Errorf("%s -> %s, want %s", api, got, want)
		}
		assertInSchema(t, NewNodeOverlayResource(), got)
	}
}
