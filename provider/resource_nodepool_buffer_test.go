package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// TestNodePoolBufferInMemory: the buffer block reaches the NodePool and reads back (import
// included), changes in place, and removing it removes the buffer.
func TestNodePoolBufferInMemory(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	cfg := func(buffer string) string {
		return nodePoolHCL("  name = \"web\"\n  template = { node_class = \"default\" }\n" + buffer)
	}
	want := func(pods, percent int32, zone string) func(*terraform.State) error {
		return func(*terraform.State) error {
			np := &v1.NodePool{TypeMeta: metav1.TypeMeta{Kind: v1.NodePoolKind}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
			if err := target.Get(context.Background(), np); err != nil {
				return err
			}
			b := np.Spec.Buffer
			switch {
			case pods < 0:
				if b != nil {
					return fmt.Errorf("the NodePool still has a buffer: %+v", b)
				}
				return nil
			case b == nil || b.Pods == nil || *b.Pods != pods || (percent == 0) != (b.Percent == nil):
				return fmt.Errorf("the NodePool's buffer is %+v, want pods %d percent %d", b, pods, percent)
			case percent != 0 && *b.Percent != percent, b.Resources.Cpu().String() != "1", b.Resources.Memory().String() != "2Gi":
				return fmt.Errorf("the NodePool's buffer is %+v", b)
			case zone != "" && (len(b.Requirements) != 1 || b.Requirements[0].Values[0] != zone):
				return fmt.Errorf("the NodePool's buffer requirements are %+v, want zone %s", b.Requirements, zone)
			}
			return nil
		}
	}
	update := tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("tenon_nodepool.test", plancheck.ResourceActionUpdate)}}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		Steps: []tfresource.TestStep{
			{Config: cfg(`  buffer = { pods = 4, resources = { cpu = "1", memory = "2Gi" } }`), Check: want(4, 0, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("tenon_nodepool.test", tfjsonpath.New("buffer").AtMapKey("pods"), knownvalue.Int64Exact(4)),
				}},
			{ResourceName: "tenon_nodepool.test", ImportState: true, ImportStateId: "web", ImportStateVerify: true},
			{Config: cfg(`  buffer = {
    pods      = 10
    percent   = 20
    resources = { cpu = "1", memory = "2Gi" }
    requirements = [{ key = "topology.kubernetes.io/zone", operator = "In", values = ["us-east-1a"] }]
  }`), Check: want(10, 20, "us-east-1a"), ConfigPlanChecks: update},
			{Config: cfg(""), Check: want(-1, 0, ""), ConfigPlanChecks: update},
		},
	})
}

// TestNodePoolBufferValidationAtPlan: the API's buffer rules stop a plan at the attribute.
func TestNodePoolBufferValidationAtPlan(t *testing.T) {
	top := func(inner string) string {
		return nodePoolHCL("  name = \"pool\"\n  template = { node_class = \"default\" }\n" + inner)
	}
	runValidationCases(t, "Invalid NodePool", []validationCase{
		{"buffer without a size", top(`  buffer = { resources = { cpu = "1" } }`), "buffer"},
		{"buffer pods too many", top(`  buffer = { pods = 10001, resources = { cpu = "1" } }`), "buffer.pods"},
		{"buffer percent beyond int32", top(`  buffer = { percent = 99999999999, resources = { cpu = "1" } }`), "buffer.percent"},
		{"buffer resource not a quantity", top(`  buffer = { pods = 1, resources = { cpu = "one" } }`), `buffer.resources["cpu"]`},
		{"buffer resource zero", top(`  buffer = { pods = 1, resources = { cpu = "0" } }`), `buffer.resources["cpu"]`},
		{"buffer requirement operator", top(`  buffer = { pods = 1, resources = { cpu = "1" }, requirements = [{ key = "topology.kubernetes.io/zone", operator = "Is", values = ["a"] }] }`), "buffer.requirements[0].operator"},
		{"buffer on a static pool", top(`  replicas = 2
  buffer = { pods = 1, resources = { cpu = "1" } }`), "buffer"},
	})
}

// TestSimulationPricesTheBuffer: tenon_simulation on examples/capacity-buffer's policy prices the
// buffer in cost_per_hour and reports its part in buffer_cost_per_hour, as tenon simulate does.
func TestSimulationPricesTheBuffer(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	policy, err := os.ReadFile(filepath.Join("..", "examples", "capacity-buffer", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`data "tenon_simulation" "test" {
  workloads = [{ name = "web", replicas = 6, requests = { cpu = "1", memory = "2Gi" }, node_selector = { "tenon.dev/nodepool" = "web" } }]
  manifests = [<<-EOT
%s
EOT
  ]
}`, policy)
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(newMemoryTarget()),
		Steps: []tfresource.TestStep{{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.tenon_simulation.test", tfjsonpath.New("buffer_cost_per_hour"), knownvalue.Float64Exact(0.192)),
			statecheck.ExpectKnownValue("data.tenon_simulation.test", tfjsonpath.New("cost_per_hour"), knownvalue.Float64Exact(0.576)),
		}}},
	})
}
