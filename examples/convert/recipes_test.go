package convert_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/convert"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
)

// deployment is a Deployment of replicas pods, each requesting cpu and
// memory, with extra pod spec lines (tolerations, node selectors, limits).
func deployment(name string, replicas int, cpu, memory, podSpec, limits string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: default}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
%[5]s      containers:
        - name: main
          image: example.com/%[1]s:1.0
          resources:
            requests: {cpu: %[3]q, memory: %[4]s}
%[6]s---
`, name, replicas, cpu, memory, podSpec, limits)
}

// simulateRecipe converts a recipe (with the shared node class) to
// tenon.dev YAML and runs tenon simulate's engine on it with workload.
func simulateRecipe(t *testing.T, recipe, workload string) *simulate.Report {
	t.Helper()
	var inputs []convert.Input
	for _, f := range []string{"recipes/nodeclass.yaml", "recipes/" + recipe + ".yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, convert.Input{Name: f, Data: data})
	}
	res, err := convert.Convert(inputs, convert.Options{})
	if err != nil {
		t.Fatalf("converting %s: %v", recipe, err)
	}
	var policy bytes.Buffer
	if err := convert.WriteYAML(&policy, res); err != nil {
		t.Fatal(err)
	}
	scenario, err := simulate.Parse(simulate.File{Name: recipe + ".yaml", Data: policy.Bytes()}, simulate.File{Name: "workload.yaml", Data: []byte(workload)})
	if err != nil {
		t.Fatalf("tenon simulate rejects the converted %s: %v", recipe, err)
	}
	rep, err := scenario.Simulate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRecipesBehave runs the recipes guide's policies, as converted, on
// workloads with tenon simulate's engine and checks what the guide says
// they do.
func TestRecipesBehave(t *testing.T) {
	gpuToleration := "      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n"
	gpuLimit := "            limits: {nvidia.com/gpu: 1}\n"
	system := "      nodeSelector: {example.com/pool: system}\n      tolerations: [{key: CriticalAddonsOnly, operator: Exists}]\n"
	tests := []struct {
		name     string
		recipe   string
		workload string
		check    func(t *testing.T, rep *simulate.Report)
	}{
		{
			name: "spot first", recipe: "spot-with-on-demand-fallback",
			workload: deployment("web", 40, "1", "2Gi", "", ""),
			check: func(t *testing.T, rep *simulate.Report) {
				noneUnschedulable(t, rep)
				for _, n := range rep.Nodes {
					if n.NodePool != "spot" || n.CapacityType != "spot" {
						t.Errorf("node %s is %s from pool %s, want spot from pool spot", n.Name, n.CapacityType, n.NodePool)
					}
				}
			},
		},
		{
			name: "on-demand once spot is at its limit", recipe: "spot-with-on-demand-fallback",
			workload: deployment("web", 420, "1", "2Gi", "", ""),
			check: func(t *testing.T, rep *simulate.Report) {
				pools := map[string]string{}
				for _, n := range rep.Nodes {
					pools[n.NodePool] = n.CapacityType
				}
				if pools["spot"] != "spot" || pools["on-demand-fallback"] != "on-demand" {
					t.Errorf("pools used = %v, want spot nodes from spot and on-demand nodes from on-demand-fallback", pools)
				}
			},
		},
		{
			name: "GPU pods on the GPU pool, others kept off", recipe: "gpu-pool",
			workload: deployment("inference", 3, "2", "8Gi", gpuToleration, gpuLimit) + deployment("web", 1, "1", "1Gi", "", ""),
			check: func(t *testing.T, rep *simulate.Report) {
				placed := 0
				for _, n := range rep.Nodes {
					placed += len(n.Pods)
					family, _, _ := strings.Cut(n.InstanceType, ".")
					if n.NodePool != "gpu" || n.CapacityType != "on-demand" || !strings.Contains(" g4dn g5 g6 ", " "+family+" ") {
						t.Errorf("node %s: %s %s from pool %s, want an on-demand g4dn, g5 or g6 from pool gpu", n.Name, n.CapacityType, n.InstanceType, n.NodePool)
					}
				}
				if placed != 3 {
					t.Errorf("%d pods placed, want the 3 inference pods", placed)
				}
				if len(rep.Unschedulable) != 1 || !strings.Contains(rep.Unschedulable[0].Reason, "nvidia.com/gpu") {
					t.Errorf("unschedulable = %+v, want web kept off by the nvidia.com/gpu taint", rep.Unschedulable)
				}
			},
		},
		{
			name: "add-ons on the system pool", recipe: "system-pool",
			workload: deployment("coredns", 2, "100m", "128Mi", system, "") + deployment("web", 1, "1", "1Gi", "", ""),
			check: func(t *testing.T, rep *simulate.Report) {
				for _, n := range rep.Nodes {
					family, size, _ := strings.Cut(n.InstanceType, ".")
					if n.NodePool != "system" || n.CapacityType != "on-demand" || family[0] != 'm' || (size != "large" && size != "xlarge") {
						t.Errorf("node %s: %s %s from pool %s, want an on-demand m*.large or m*.xlarge from pool system", n.Name, n.CapacityType, n.InstanceType, n.NodePool)
					}
				}
				if len(rep.Unschedulable) != 1 || !strings.Contains(rep.Unschedulable[0].Reason, "CriticalAddonsOnly") {
					t.Errorf("unschedulable = %+v, want web kept off by the CriticalAddonsOnly taint", rep.Unschedulable)
				}
			},
		},
		{
			name: "business-hours pool launches like any other", recipe: "business-hours-budgets",
			workload: deployment("web", 4, "1", "2Gi", "", ""),
			check: func(t *testing.T, rep *simulate.Report) {
				noneUnschedulable(t, rep)
				if len(rep.Nodes) == 0 || rep.Nodes[0].NodePool != "general" {
					t.Errorf("nodes = %+v, want nodes from pool general", rep.Nodes)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, simulateRecipe(t, tt.recipe, tt.workload))
		})
	}
}

func noneUnschedulable(t *testing.T, rep *simulate.Report) {
	t.Helper()
	for _, u := range rep.Unschedulable {
		t.Errorf("pod %s cannot be placed: %s", u.Pod, u.Reason)
	}
}
