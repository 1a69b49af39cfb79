package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

// validationCase is one engine/api validation rule met at plan time: the configuration
// breaking it and the attribute path the error must carry. (OpenTofu shows the attribute's
// line only for top-level attributes, so the path is checked in the detail, where the
// provider writes it.)
type validationCase struct {
	name   string
	config string
	path   string
}

// errorAt matches a plan error titled summary about the attribute at p.
func errorAt(summary, p string) *regexp.Regexp {
	if p == "" { // an error about the whole object
		return regexp.MustCompile(regexp.QuoteMeta(summary))
	}
	return regexp.MustCompile(regexp.QuoteMeta(summary) + `\s[\s\S]*?\n\s*` + regexp.QuoteMeta(p+": "))
}

// runValidationCases plans each case (plan only) against a memory target and checks that the
// error points at the case's line and that nothing reached the target.
func runValidationCases(t *testing.T, summary string, cases []validationCase) {
	t.Helper()
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	var steps []tfresource.TestStep
	for _, c := range cases {
		steps = append(steps, tfresource.TestStep{
			Config:      c.config,
			PlanOnly:    true,
			ExpectError: errorAt(summary, c.path),
		})
	}
	tfresource.UnitTest(t, tfresource.TestCase{ProtoV6ProviderFactories: factories(target), Steps: steps})
	if n := target.callCount(); n != 0 {
		t.Errorf("invalid configurations reached the delivery target %d times; validation must stop them at plan time", n)
	}
}

func nodePoolHCL(body string) string {
	return "resource \"tenon_nodepool\" \"test\" {\n" + body + "\n}\n"
}

func TestNodePoolValidationAtPlan(t *testing.T) {
	tmpl := func(inner string) string {
		return nodePoolHCL("  name = \"pool\"\n  template = {\n    node_class = \"default\"\n" + inner + "\n  }")
	}
	top := func(inner string) string {
		return nodePoolHCL("  name = \"pool\"\n  template = { node_class = \"default\" }\n" + inner)
	}
	cases := []validationCase{
		{"object name", nodePoolHCL("  name = \"Bad_Name\"\n  template = { node_class = \"default\" }"), "name"},
		{"node class name", nodePoolHCL("  name = \"pool\"\n  template = {\n    node_class = \"No_Class\"\n  }"), "template.node_class"},
		{"restricted requirement key", tmpl(`    requirements = [
      { key = "karpenter.sh/nodepool", operator = "In", values = ["pool"] },
    ]`), "template.requirements[0].key"},
		{"operator", tmpl(`    requirements = [
      { key = "example.com/a", operator = "Has", values = ["x"] },
    ]`), "template.requirements[0].operator"},
		{"In without values", tmpl(`    requirements = [
      { key = "example.com/b", operator = "In" },
    ]`), "template.requirements[0].values"},
		{"Gt with a word", tmpl(`    requirements = [
      { key = "tenon.dev/instance-cpu", operator = "Gt", values = ["many"] },
    ]`), "template.requirements[0].values"},
		{"min_values above the values", tmpl(`    requirements = [
      {
        key        = "node.kubernetes.io/instance-type"
        operator   = "In"
        values     = ["m5.large"]
        min_values = 3
      },
    ]`), "template.requirements[0].min_values"},
		{"nodepool label required", tmpl(`    requirements = [
      { key = "tenon.dev/nodepool", operator = "Exists" },
    ]`), "template.requirements[0].key"},
		{"restricted label", tmpl(`    metadata = {
      labels = {
        "kubernetes.io/hostname" = "x"
      }
    }`), `template.metadata.labels["kubernetes.io/hostname"]`},
		{"label value", tmpl(`    metadata = {
      labels = {
        "example.com/team" = "-bad-"
      }
    }`), `template.metadata.labels["example.com/team"]`},
		{"annotation key", tmpl(`    metadata = {
      annotations = {
        "not a key" = "x"
      }
    }`), `template.metadata.annotations["not a key"]`},
		{"taint key", tmpl(`    taints = [
      { key = "bad key", effect = "NoSchedule" },
    ]`), "template.taints[0].key"},
		{"taint effect", tmpl(`    taints = [
      { key = "example.com/t", effect = "Sometimes" },
    ]`), "template.taints[0].effect"},
		{"startup taint repeating a taint", tmpl(`    taints = [{ key = "example.com/t", effect = "NoSchedule" }]
    startup_taints = [
      { key = "example.com/t", effect = "NoSchedule" },
    ]`), "template.startup_taints[0]"},
		{"expire_after", tmpl(`    expire_after = "30 days"`), "template.expire_after"},
		{"termination_grace_period", tmpl(`    termination_grace_period = "Never"`), "template.termination_grace_period"},
		{"static pool with a weight", top("  replicas = 3\n  weight = 10"), "weight"},
		{"static pool with a cpu limit", top("  replicas = 3\n  limits = { cpu = \"10\" }"), "limits"},
		{"replicas negative", top("  replicas = -1"), "replicas"},
		{"consolidation_policy", top(`  disruption = {
    consolidate_after    = "30s"
    consolidation_policy = "Always"
  }`), "disruption.consolidation_policy"},
		{"consolidate_after", top(`  disruption = {
    consolidate_after = "soon"
  }`), "disruption.consolidate_after"},
		{"budget nodes", top(`  disruption = {
    consolidate_after = "30s"
    budgets = [
      { nodes = "150%" },
    ]
  }`), "disruption.budgets[0].nodes"},
		{"budget schedule", top(`  disruption = {
    consolidate_after = "30s"
    budgets = [{
      schedule = "at nine"
      duration = "8h"
    }]
  }`), "disruption.budgets[0].schedule"},
		{"budget duration", top(`  disruption = {
    consolidate_after = "30s"
    budgets = [{
      schedule = "@daily"
      duration = "1d"
    }]
  }`), "disruption.budgets[0].duration"},
		{"schedule without duration", top(`  disruption = {
    consolidate_after = "30s"
    budgets = [
      { schedule = "@daily" },
    ]
  }`), "disruption.budgets[0].duration"},
		{"budget reason", top(`  disruption = {
    consolidate_after = "30s"
    budgets = [{
      reasons = ["Bored"]
    }]
  }`), "disruption.budgets[0].reasons[0]"},
		{"weight", top(`  weight = 0`), "weight"},
		{"limits quantity", top(`  limits = {
    cpu = "lots"
  }`), `limits["cpu"]`},
		{"min_savings_per_hour negative", top(`  disruption = {
    consolidate_after    = "30s"
    min_savings_per_hour = "-0.05"
  }`), "disruption.min_savings_per_hour"},
		{"min_savings_per_hour with a unit", top(`  disruption = {
    consolidate_after    = "30s"
    min_savings_per_hour = "5 cents"
  }`), "disruption.min_savings_per_hour"},
		{"min_savings_percent over 100", top(`  disruption = {
    consolidate_after   = "30s"
    min_savings_percent = 150
  }`), "disruption.min_savings_percent"},
		{"min_savings_percent beyond int32", top(`  disruption = {
    consolidate_after   = "30s"
    min_savings_percent = 4294967306
  }`), "disruption.min_savings_percent"},
		{"min_savings_per_pod exponent", top(`  disruption = {
    consolidate_after   = "30s"
    min_savings_per_pod = "1e-3"
  }`), "disruption.min_savings_per_pod"},
		{"karpenter_annotations lower case", top(`  disruption = {
    consolidate_after     = "30s"
    karpenter_annotations = "ignore"
  }`), "disruption.karpenter_annotations"},
		{"repair toleration without unit", top(`  disruption = {
    consolidate_after = "30s"
    repair = { enabled = true, toleration = "10" }
  }`), "disruption.repair.toleration"},
		{"repair max_unhealthy over 100%", top(`  disruption = {
    consolidate_after = "30s"
    repair = { enabled = true, max_unhealthy = "150%" }
  }`), "disruption.repair.max_unhealthy"},
		{"budget reason lower case", top(`  disruption = {
    consolidate_after = "30s"
    budgets = [{ nodes = "1", reasons = ["unhealthy"] }]
  }`), "disruption.budgets[0].reasons[0]"},
	}
	runValidationCases(t, "Invalid NodePool", cases)
}

// TestNodePoolCRUDInMemory: create, import, update and destroy through the provider with the
// memory target, no cluster: the resource's plumbing, independent of the API server.
func TestNodePoolCRUDInMemory(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	cfg := func(weight string) string {
		return nodePoolHCL(`  name = "mem"
  template = {
    node_class   = "default"
    requirements = [{ key = "kubernetes.io/arch", operator = "In", values = ["amd64"] }]
  }
  limits = { cpu = "100" }
  weight = ` + weight)
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		CheckDestroy: func(*terraform.State) error {
			if target.has(v1.NodePoolKind, "mem") {
				return fmt.Errorf("NodePool mem is still in the target after destroy")
			}
			return nil
		},
		Steps: []tfresource.TestStep{
			{Config: cfg("10"), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", tfjsonpath.New("limits").AtMapKey("cpu"), knownvalue.StringExact("100")),
				statecheck.ExpectKnownValue("tenon_nodepool.test", tfjsonpath.New("template").AtMapKey("expire_after"), knownvalue.StringExact("720h")),
			}},
			{ResourceName: "tenon_nodepool.test", ImportState: true, ImportStateId: "mem", ImportStateVerify: true},
			{Config: cfg("20"), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", tfjsonpath.New("weight"), knownvalue.Int64Exact(20)),
			}},
		},
	})
}

// TestQuantitySpelling: a quantity read back in the server's form keeps the user's spelling
// while it means the same amount, and shows a real change otherwise.
func TestQuantitySpelling(t *testing.T) {
	s := types.StringValue
	for _, tc := range []struct {
		stored, prior, want string
	}{
		{"1k", "1000", "1000"},
		{"2k", "1000", "2k"},
		{"64Gi", "65536Mi", "65536Mi"},
		{"500m", "", "500m"},
	} {
		prior := map[string]types.String{}
		if tc.prior != "" {
			prior["cpu"] = s(tc.prior)
		}
		got := tfResourceList(corev1.ResourceList{"cpu": apiresource.MustParse(tc.stored)}, prior)
		if got["cpu"].ValueString() != tc.want {
			t.Errorf("stored %s, prior %q: got %s, want %s", tc.stored, tc.prior, got["cpu"], tc.want)
		}
	}
}

// TestNodePoolPaths: every path the NodePool validation can report maps to an attribute of
// the schema.
func TestNodePoolPaths(t *testing.T) {
	for api, want := range map[string]string{
		"metadata.name": "name",
		"spec.template.spec.requirements[0].minValues":   "template.requirements[0].min_values",
		"spec.template.spec.requirements[2]":             "template.requirements[2]",
		"spec.template.metadata.labels[example.com/a.b]": `template.metadata.labels["example.com/a.b"]`,
		"spec.template.spec.nodeClassRef.name":           "template.node_class",
		"spec.template.spec.nodeClassRef":                "template.node_class",
		"spec.template.spec.startupTaints[1]":            "template.startup_taints[1]",
		"spec.template.spec.terminationGracePeriod":      "template.termination_grace_period",
		"spec.disruption.budgets[1].reasons[0]":          "disruption.budgets[1].reasons[0]",
		"spec.disruption.consolidateAfter":               "disruption.consolidate_after",
		"spec.limits[cpu]":                               `limits["cpu"]`,
		"spec.limits[0]":                                 `limits["0"]`,
		"spec.weight":                                    "weight",
	} {
		got := nodePoolKind.paths.toTF(api)
		if got.String() != want {
			t.Errorf("%s -> %s, want %s", api, got, want)
		}
		assertInSchema(t, NewNodePoolResource(), got)
	}
}

func assertInSchema(t *testing.T, r resource.Resource, p path.Path) {
	t.Helper()
	var resp resource.SchemaResponse
	r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
	// A list or map element is not an attribute; its collection is.
	for steps := p.Steps(); len(steps) > 0; steps = p.Steps() {
		switch steps[len(steps)-1].(type) {
		case path.PathStepElementKeyString, path.PathStepElementKeyInt:
			p = p.ParentPath()
			continue
		}
		break
	}
	if _, d := resp.Schema.AttributeAtPath(context.Background(), p); d.HasError() {
		t.Errorf("%s is not an attribute of the schema: %v", p, d)
	}
}

// TestNodePoolUnknownAtPlan: a value known only after apply (here inside a list) is not
// checked at plan time, where it is only a placeholder; apply checks it.
func TestNodePoolUnknownAtPlan(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(newMemoryTarget()),
		Steps: []tfresource.TestStep{{
			Config: `
resource "terraform_data" "cpu" {
  input = "4"
}

resource "tenon_nodepool" "test" {
  name = "pool"
  template = {
    node_class   = "default"
    requirements = [{ key = "tenon.dev/instance-cpu", operator = "Gt", values = [terraform_data.cpu.output] }]
  }
}
`,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// TestNodePoolSavingsThresholdsInMemory: the consolidation savings thresholds reach the NodePool
// and read back unchanged; leaving them out sends none (the engine's defaults apply).
func TestNodePoolSavingsThresholdsInMemory(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	cfg := func(thresholds string) string {
		return nodePoolHCL(`  name = "thrifty"
  template = { node_class = "default" }
  disruption = {
    consolidate_after = "30s"
` + thresholds + `
  }`)
	}
	disruption := func(attr string) tfjsonpath.Path { return tfjsonpath.New("disruption").AtMapKey(attr) }
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		Steps: []tfresource.TestStep{
			{Config: cfg(`    min_savings_per_hour = "0.05"
    min_savings_percent  = 25
    min_savings_per_pod  = "0"`), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", disruption("min_savings_per_hour"), knownvalue.StringExact("0.05")),
				statecheck.ExpectKnownValue("tenon_nodepool.test", disruption("min_savings_percent"), knownvalue.Int64Exact(25)),
				statecheck.ExpectKnownValue("tenon_nodepool.test", disruption("min_savings_per_pod"), knownvalue.StringExact("0")),
			}, Check: func(*terraform.State) error {
				np := &v1.NodePool{TypeMeta: metav1.TypeMeta{Kind: v1.NodePoolKind}, ObjectMeta: metav1.ObjectMeta{Name: "thrifty"}}
				if err := target.Get(context.Background(), np); err != nil {
					return err
				}
				d := np.Spec.Disruption
				if d == nil || d.MinSavingsPerHour == nil || *d.MinSavingsPerHour != "0.05" || d.MinSavingsPercent == nil || *d.MinSavingsPercent != 25 ||
					d.MinSavingsPerPod == nil || *d.MinSavingsPerPod != "0" {
					return fmt.Errorf("the NodePool's disruption is %+v, want the thresholds 0.05, 25, 0", d)
				}
				return nil
			}},
			{ResourceName: "tenon_nodepool.test", ImportState: true, ImportStateId: "thrifty", ImportStateVerify: true},
			{Config: cfg(""), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", disruption("min_savings_percent"), knownvalue.Null()),
			}, Check: func(*terraform.State) error {
				np := &v1.NodePool{TypeMeta: metav1.TypeMeta{Kind: v1.NodePoolKind}, ObjectMeta: metav1.ObjectMeta{Name: "thrifty"}}
				if err := target.Get(context.Background(), np); err != nil {
					return err
				}
				if d := np.Spec.Disruption; d.MinSavingsPerHour != nil || d.MinSavingsPercent != nil || d.MinSavingsPerPod != nil {
					return fmt.Errorf("thresholds left out still reach the NodePool: %+v", d)
				}
				return nil
			}},
		},
	})
}

// TestNodePoolKarpenterAnnotationsInMemory: disruption.karpenter_annotations reaches the NodePool
// and reads back; left out, none is sent (Honor, the API's default, applies).
func TestNodePoolKarpenterAnnotationsInMemory(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	cfg := func(setting string) string {
		return nodePoolHCL(`  name = "migrated"
  template = { node_class = "default" }
  disruption = {
    consolidate_after = "30s"
` + setting + `
  }`)
	}
	get := func() (*v1.NodePool, error) {
		np := &v1.NodePool{TypeMeta: metav1.TypeMeta{Kind: v1.NodePoolKind}, ObjectMeta: metav1.ObjectMeta{Name: "migrated"}}
		return np, target.Get(context.Background(), np)
	}
	path := tfjsonpath.New("disruption").AtMapKey("karpenter_annotations")
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		Steps: []tfresource.TestStep{
			{Config: cfg(`    karpenter_annotations = "Ignore"`), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", path, knownvalue.StringExact("Ignore")),
			}, Check: func(*terraform.State) error {
				np, err := get()
				if err != nil {
					return err
				}
				if d := np.Spec.Disruption; d == nil || d.KarpenterAnnotations != v1.KarpenterAnnotationsIgnore || d.HonorsKarpenterAnnotations() {
					return fmt.Errorf("the NodePool's disruption is %+v, want karpenterAnnotations Ignore", d)
				}
				return nil
			}},
			{ResourceName: "tenon_nodepool.test", ImportState: true, ImportStateId: "migrated", ImportStateVerify: true},
			{Config: cfg(""), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", path, knownvalue.Null()),
			}, Check: func(*terraform.State) error {
				np, err := get()
				if err != nil {
					return err
				}
				if d := np.Spec.Disruption; d.KarpenterAnnotations != "" || !d.HonorsKarpenterAnnotations() {
					return fmt.Errorf("karpenterAnnotations left out still reaches the NodePool: %+v", d)
				}
				return nil
			}},
		},
	})
}

// TestNodePoolRepairInMemory: disruption.repair reaches the NodePool and reads back (import
// too); left out, the pool does not repair.
func TestNodePoolRepairInMemory(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	target := newMemoryTarget()
	cfg := func(setting string) string {
		return nodePoolHCL(`  name = "healing"
  template = { node_class = "default" }
  disruption = {
    consolidate_after = "30s"
    budgets = [{ nodes = "1", reasons = ["Unhealthy"] }, { nodes = "10%" }]
` + setting + `
  }`)
	}
	get := func() (*v1.NodePool, error) {
		np := &v1.NodePool{TypeMeta: metav1.TypeMeta{Kind: v1.NodePoolKind}, ObjectMeta: metav1.ObjectMeta{Name: "healing"}}
		return np, target.Get(context.Background(), np)
	}
	repair := tfjsonpath.New("disruption").AtMapKey("repair")
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		Steps: []tfresource.TestStep{
			{Config: cfg(`    repair = { enabled = true, toleration = "10m", max_unhealthy = "50%" }`), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", repair.AtMapKey("toleration"), knownvalue.StringExact("10m")),
				statecheck.ExpectKnownValue("tenon_nodepool.test", repair.AtMapKey("max_unhealthy"), knownvalue.StringExact("50%")),
			}, Check: func(*terraform.State) error {
				np, err := get()
				if err != nil {
					return err
				}
				d := np.Spec.Disruption
				if !d.RepairEnabled() || d.Repair.Toleration == nil || *d.Repair.Toleration != "10m" || d.Repair.MaxUnhealthy == nil || *d.Repair.MaxUnhealthy != "50%" {
					return fmt.Errorf("the NodePool's repair is %+v, want enabled, 10m, 50%%", d.Repair)
				}
				if r := d.Budgets[0].Reasons; len(r) != 1 || r[0] != v1.DisruptionReasonUnhealthy {
					return fmt.Errorf("the first budget's reasons are %v, want [Unhealthy]", r)
				}
				return nil
			}},
			{ResourceName: "tenon_nodepool.test", ImportState: true, ImportStateId: "healing", ImportStateVerify: true},
			{Config: cfg(`    repair = { enabled = true }`), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", repair.AtMapKey("toleration"), knownvalue.Null()),
			}},
			{Config: cfg(""), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("tenon_nodepool.test", repair, knownvalue.Null()),
			}, Check: func(*terraform.State) error {
				np, err := get()
				if err != nil {
					return err
				}
				if np.Spec.Disruption.RepairEnabled() {
					return fmt.Errorf("repair left out still reaches the NodePool: %+v", np.Spec.Disruption.Repair)
				}
				return nil
			}},
		},
	})
}
