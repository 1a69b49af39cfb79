package state_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func container(cpu, memory string) corev1.Container {
	reqs := corev1.ResourceList{}
	if cpu != "" {
		reqs[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		reqs[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: reqs}}
}

func sidecar(cpu, memory string) corev1.Container {
	c := container(cpu, memory)
	always := corev1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

func TestPodRequests(t *testing.T) {
	tests := []struct {
		name         string
		spec         corev1.PodSpec
		cpu, memory  string
		extraChecked map[corev1.ResourceName]string
	}{
		{
			name:   "containers add up",
			spec:   corev1.PodSpec{Containers: []corev1.Container{container("500m", "1Gi"), container("250m", "512Mi")}},
			cpu:    "750m",
			memory: "1536Mi",
		},
		{
			name: "an init container larger than the containers sets the peak",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{container("2", "128Mi")},
				Containers:     []corev1.Container{container("1", "1Gi")},
			},
			cpu:    "2",
			memory: "1Gi",
		},
		{
			name: "a sidecar started before an init container adds to it",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{sidecar("1", "256Mi"), container("2", "256Mi")},
				Containers:     []corev1.Container{container("1", "256Mi")},
			},
			cpu:    "3",
			memory: "512Mi",
		},
		{
			name: "a sidecar started after an init container does not add to it",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{container("2", "256Mi"), sidecar("1", "256Mi")},
				Containers:     []corev1.Container{container("1", "256Mi")},
			},
			cpu:    "2",
			memory: "512Mi",
		},
		{
			name: "sidecars add to the containers",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{sidecar("100m", "64Mi"), sidecar("200m", "64Mi")},
				Containers:     []corev1.Container{container("1", "1Gi")},
			},
			cpu:    "1300m",
			memory: "1152Mi",
		},
		{
			name: "overhead is added on top",
			spec: corev1.PodSpec{
				Containers: []corev1.Container{container("1", "1Gi")},
				Overhead:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")},
			},
			cpu:    "1250m",
			memory: "1144Mi",
		},
		{
			name: "a limit stands in for a missing request",
			spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "c",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi"), "nvidia.com/gpu": resource.MustParse("1")},
				},
			}}},
			cpu:          "100m",
			memory:       "2Gi",
			extraChecked: map[corev1.ResourceName]string{"nvidia.com/gpu": "1"},
		},
		{
			name: "pod-level requests replace the containers'",
			spec: corev1.PodSpec{
				Containers: []corev1.Container{container("1", "1Gi"), container("1", "1Gi")},
				Resources:  &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")}},
			},
			cpu:    "1500m",
			memory: "2Gi",
		},
		{
			name:   "no requests still take a pod slot",
			spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
			cpu:    "0",
			memory: "0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := state.PodRequests(&tt.spec)
			want := map[corev1.ResourceName]string{corev1.ResourceCPU: tt.cpu, corev1.ResourceMemory: tt.memory, corev1.ResourcePods: "1"}
			for k, v := range tt.extraChecked {
				want[k] = v
			}
			for name, w := range want {
				q := got[name]
				if q.Cmp(resource.MustParse(w)) != 0 {
					t.Errorf("%s = %s, want %s (all: %v)", name, q.String(), w, got)
				}
			}
		})
	}
}

func TestPodRequestsDoesNotChangeTheSpec(t *testing.T) {
	spec := corev1.PodSpec{
		InitContainers: []corev1.Container{sidecar("1", "1Gi")},
		Containers:     []corev1.Container{container("1", "1Gi")},
	}
	before := spec.DeepCopy()
	_ = state.PodRequests(&spec)
	if spec.Containers[0].Resources.Requests.Cpu().Cmp(*before.Containers[0].Resources.Requests.Cpu()) != 0 ||
		spec.InitContainers[0].Resources.Requests.Cpu().Cmp(*before.InitContainers[0].Resources.Requests.Cpu()) != 0 {
		t.Fatalf("PodRequests changed the spec: %v", spec)
	}
}
