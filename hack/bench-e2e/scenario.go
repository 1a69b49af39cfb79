package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
)

// namespace holds the benchmark's workload.
const namespace = "bench"

// The burst's shapes: one Deployment per (cpu, memory), as the scenario.
var (
	cpus     = []string{"250m", "500m", "1", "2"}
	memories = []string{"512Mi", "1Gi", "2Gi", "4Gi"}
)

// workload is one Deployment of the burst.
type workload struct {
	Name        string
	CPU, Memory string
	Replicas    int32
}

// burst splits pods over the 16 Deployments, the first ones taking the remainder.
func burst(pods int) []workload {
	n := len(cpus) * len(memories)
	out := make([]workload, 0, n)
	for i, cpu := range cpus {
		for j, mem := range memories {
			k := i*len(memories) + j
			replicas := pods / n
			if k < pods%n {
				replicas++
			}
			name := strings.ToLower(fmt.Sprintf("cpu%s-mem%s", cpu, mem))
			out = append(out, workload{Name: name, CPU: cpu, Memory: mem, Replicas: int32(replicas)})
		}
	}
	return out
}

// scaled is each workload at fraction of its replicas, rounded to the nearest.
func scaled(ws []workload, fraction float64) []workload {
	out := make([]workload, len(ws))
	for i, w := range ws {
		w.Replicas = int32(math.Round(float64(w.Replicas) * fraction))
		out[i] = w
	}
	return out
}

func total(ws []workload) int {
	n := 0
	for _, w := range ws {
		n += int(w.Replicas)
	}
	return n
}

// deployment is w as a Deployment of pause pods.
func (w workload) deployment() *appsv1.Deployment {
	labels := map[string]string{"app": w.Name}
	zero := int64(0)
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: &w.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: &zero,
					Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(w.CPU), corev1.ResourceMemory: resource.MustParse(w.Memory)},
					}}},
				},
			},
		},
	}
}

// pdb is the PodDisruptionBudget of w's pods, allowing maxUnavailable of them.
func (w workload) pdb(maxUnavailable string) *policyv1.PodDisruptionBudget {
	mu := intstr.Parse(maxUnavailable)
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: namespace},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: &mu,
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.Name}},
		},
	}
}

// tenonPolicy is Tenon's side of the shared policy: on-demand, amd64, instance categories c,
// m and r of generation 3 or later, in three zones, consolidated when empty or underutilized
// after consolidateAfter.
func tenonPolicy(consolidateAfter string) string {
	return `apiVersion: tenon.dev/v1
kind: NodeClass
metadata:
  name: default
spec:
  kwok: {}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: tenon.dev, kind: NodeClass, name: default}
      requirements:
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b, us-east-1c]}
        - {key: tenon.dev/instance-category, operator: In, values: [c, m, r]}
        - {key: tenon.dev/instance-generation, operator: Gt, values: ["2"]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: ` + consolidateAfter + "\n"
}

// workloadYAML is the Deployments (and their PDBs when maxUnavailable is set) as YAML.
func workloadYAML(ws []workload, maxUnavailable string) (string, error) {
	var docs []string
	for _, w := range ws {
		objs := []any{w.deployment()}
		if maxUnavailable != "" {
			objs = append(objs, w.pdb(maxUnavailable))
		}
		for _, o := range objs {
			data, err := yaml.Marshal(o)
			if err != nil {
				return "", err
			}
			docs = append(docs, string(data))
		}
	}
	return strings.Join(docs, "---\n"), nil
}

// prediction is what `tenon simulate` says the pods cost packed at once.
type prediction struct {
	Nodes        int
	CostPerHour  float64
	BoundPerHour float64
}

// predict runs tenon simulate's engine on the pods of ws under the shared policy.
func predict(ctx context.Context, ws []workload) (prediction, error) {
	var docs []string
	for _, w := range ws {
		data, err := yaml.Marshal(w.deployment())
		if err != nil {
			return prediction{}, err
		}
		docs = append(docs, string(data))
	}
	s, err := simulate.Parse(simulate.File{Name: "policy.yaml", Data: []byte(tenonPolicy("30s"))},
		simulate.File{Name: "burst.yaml", Data: []byte(strings.Join(docs, "---\n"))})
	if err != nil {
		return prediction{}, fmt.Errorf("simulating the burst: %w", err)
	}
	rep, err := s.Simulate(ctx)
	if err != nil {
		return prediction{}, fmt.Errorf("simulating the burst: %w", err)
	}
	return prediction{Nodes: rep.Summary.NewNodes, CostPerHour: rep.Summary.CostPerHour, BoundPerHour: rep.Summary.LowerBoundPerHour}, nil
}
