package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

// TestInstanceTypes: the data source lists what the catalog's Filter returns for the same
// requirements, with the catalog's prices.
func TestInstanceTypes(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	reqs := scheduling.NewRequirements(
		scheduling.In(scheduling.LabelInstanceFamily, "m5"),
		scheduling.In(scheduling.LabelCapacityType, "on-demand"),
		scheduling.In(scheduling.LabelTopologyZone, "us-east-1a"),
	)
	want := cat.Filter(reqs)
	if len(want) < 2 {
		t.Fatalf("the catalog has %d m5 types; the test needs a few", len(want))
	}
	m5large, _ := cat.Get("m5.large")
	var price float64
	for _, o := range m5large.Offerings {
		if o.Zone == "us-east-1a" && o.CapacityType == "on-demand" {
			price = o.PricePerHour
		}
	}
	ds := "data.tenon_instance_types.m5"
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(newMemoryTarget()),
		Steps: []tfresource.TestStep{
			{
				Config: `
data "tenon_instance_types" "bad" {
  requirements = [{ key = "tenon.dev/instance-cpu", operator = "Gt", values = ["four"] }]
}`,
				ExpectError: errorAt("Invalid Requirement", "requirements[0].values"),
			},
			{
				Config:      `data "tenon_instance_types" "bad" { region = "mars-1" }`,
				ExpectError: errorAt("Invalid Region or Zones", ""),
			},
			{
				Config: `
data "tenon_instance_types" "m5" {
  requirements = [
    { key = "tenon.dev/instance-family", operator = "In", values = ["m5"] },
    { key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand"] },
    { key = "topology.kubernetes.io/zone", operator = "In", values = ["us-east-1a"] },
  ]
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("instance_types"), knownvalue.ListSizeExact(len(want))),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("instance_types").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact(want[0].Name)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("instance_types"), knownvalue.ListPartial(map[int]knownvalue.Check{
						indexOf(want, "m5.large"): knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("m5.large"), "vcpu": knownvalue.Int64Exact(2), "memory_mib": knownvalue.Int64Exact(8192),
							"arch": knownvalue.StringExact("amd64"), "gpu_count": knownvalue.Int64Exact(0),
							"cheapest_price_per_hour": knownvalue.Float64Exact(price),
							"offerings": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
								"zone": knownvalue.StringExact("us-east-1a"), "capacity_type": knownvalue.StringExact("on-demand"),
								"price_per_hour": knownvalue.Float64Exact(price), "available": knownvalue.Bool(true),
							})}),
						}),
					})),
				},
			},
		},
	})
}

func indexOf(types []*catalog.InstanceType, name string) int {
	for i, it := range types {
		if it.Name == name {
			return i
		}
	}
	return -1
}

// simulationWorkloads is testdata/simulation.yaml's workloads in HCL.
const simulationWorkloads = `
  workloads = [
    {
      name     = "web"
      replicas = 3
      requests = { cpu = "500m", memory = "1Gi" }
      tolerations     = [{ key = "example.com/dedicated", operator = "Equal", value = "web", effect = "NoSchedule" }]
      topology_spread = [{ topology_key = "topology.kubernetes.io/zone" }]
    },
    {
      name          = "batch"
      namespace     = "jobs"
      replicas      = 4
      requests      = { cpu = "2", memory = "4Gi" }
      node_selector = { "kubernetes.io/arch" = "amd64" }
    },
    { name = "huge", requests = { cpu = "1000" } },
  ]
`

// TestSimulationMatchesTenonSimulate: tenon_simulation gives exactly what `tenon simulate -o
// json -f testdata/simulation.yaml` prints for the same workloads and pool, whether the pool
// is inline (manifests) or read from the delivery target (node_pools).
func TestSimulationMatchesTenonSimulate(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	const file = "testdata/simulation.yaml"
	var stdout, stderr bytes.Buffer
	if code := simulate.Command(context.Background(), []string{"-o", "json", "-f", file}, &stdout, &stderr); code != 0 {
		t.Fatalf("tenon simulate exited %d: %s", code, stderr.String())
	}
	var want simulate.Report
	if err := json.Unmarshal(stdout.Bytes(), &want); err != nil {
		t.Fatalf("decoding tenon simulate's JSON: %v\n%s", err, stdout.String())
	}
	if len(want.Nodes) == 0 || len(want.Unschedulable) != 1 {
		t.Fatalf("the scenario should launch nodes and leave one pod unschedulable: %s", stdout.String())
	}
	checks := reportChecks("data.tenon_simulation.test", &want)

	// The pool documents of the file, for the inline variant and for the target.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var poolDocs []string
	target := newMemoryTarget()
	for _, doc := range strings.Split(string(data), "\n---\n") {
		switch {
		case strings.Contains(doc, "kind: NodeClass"):
			poolDocs = append(poolDocs, doc)
			nc := &v1.NodeClass{}
			if err := yaml.UnmarshalStrict([]byte(doc), nc); err != nil {
				t.Fatal(err)
			}
			_ = target.Apply(context.Background(), nc)
		case strings.Contains(doc, "kind: NodePool"):
			poolDocs = append(poolDocs, doc)
			np := &v1.NodePool{}
			if err := yaml.UnmarshalStrict([]byte(doc), np); err != nil {
				t.Fatal(err)
			}
			_ = target.Apply(context.Background(), np)
		}
	}
	inline := fmt.Sprintf("data \"tenon_simulation\" \"test\" {\n%s\n  manifests = [<<-EOT\n%s\nEOT\n  ]\n}\n", simulationWorkloads, strings.Join(poolDocs, "\n---\n"))
	fromTarget := fmt.Sprintf("data \"tenon_simulation\" \"test\" {\n%s\n  node_pools = [\"general\"]\n}\n", simulationWorkloads)
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(target),
		Steps: []tfresource.TestStep{
			{
				Config: `data "tenon_simulation" "test" {
  workloads = [{ name = "Web App", requests = { cpu = "1" } }]
  node_pools = ["general"]
}`,
				ExpectError: errorAt("Invalid Workload", "workloads[0].name"),
			},
			{
				Config: `data "tenon_simulation" "test" {
  workloads = [{ name = "web", requests = { cpu = "one" } }]
  node_pools = ["general"]
}`,
				ExpectError: errorAt("Invalid Workload", `workloads[0].requests["cpu"]`),
			},
			{
				Config: `data "tenon_simulation" "test" {
  workloads = [{ name = "web", requests = { cpu = "1" }, topology_spread = [{ topology_key = "zone", when_unsatisfiable = "Never" }] }]
  node_pools = ["general"]
}`,
				ExpectError: errorAt("Invalid Workload", "workloads[0].topology_spread[0].when_unsatisfiable"),
			},
			// Valid configurations last: the test destroys with the last one.
			{Config: inline, ConfigStateChecks: checks},
			{Config: fromTarget, ConfigStateChecks: checks},
		},
	})
}

// reportChecks are state checks that the data source holds report's nodes, cost and
// unschedulable pods.
func reportChecks(ds string, r *simulate.Report) []statecheck.StateCheck {
	var nodes []knownvalue.Check
	for _, n := range r.Nodes {
		var pods []knownvalue.Check
		for _, p := range n.Pods {
			pods = append(pods, knownvalue.StringExact(p))
		}
		nodes = append(nodes, knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"name": knownvalue.StringExact(n.Name), "node_pool": knownvalue.StringExact(n.NodePool),
			"instance_type": knownvalue.StringExact(n.InstanceType), "zone": knownvalue.StringExact(n.Zone),
			"capacity_type": knownvalue.StringExact(n.CapacityType), "price_per_hour": knownvalue.Float64Exact(n.PricePerHour),
			"pods": knownvalue.ListExact(pods),
		}))
	}
	var unschedulable []knownvalue.Check
	for _, u := range r.Unschedulable {
		unschedulable = append(unschedulable, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"pod": knownvalue.StringExact(u.Pod), "reason": knownvalue.StringExact(u.Reason)}))
	}
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("nodes"), knownvalue.ListExact(nodes)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("unschedulable"), knownvalue.ListExact(unschedulable)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("cost_per_hour"), knownvalue.Float64Exact(r.Summary.CostPerHour)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("cost_per_month"), knownvalue.Float64Exact(r.Summary.CostPerHour*HoursPerMonth)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("lower_bound_per_hour"), knownvalue.Float64Exact(r.Summary.LowerBoundPerHour)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("pods"), knownvalue.Int64Exact(int64(r.Summary.Pods))),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("placed"), knownvalue.Int64Exact(int64(r.Summary.Placed))),
	}
}
