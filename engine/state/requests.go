package state

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// PodRequests returns a pod's effective requests as the kube-scheduler
// computes them, plus one "pods" slot:
//
//   - regular containers and restartable (sidecar) init containers add up;
//   - each ordinary init container runs alone, but alongside every sidecar
//     started before it, so its peak is its requests plus those sidecars';
//   - the pod needs the larger of the two, per resource;
//   - pod-level requests (spec.resources), where set, replace the container
//     figures for their resources;
//   - the RuntimeClass overhead (spec.overhead) is added on top.
//
// A container that sets a limit but no request for a resource requests its
// limit, as the API server defaults it. An amount above
// scheduling.MaxRequest is lowered to it (the API server accepts any
// amount; the engine's int64 arithmetic does not), which keeps the pod too
// large for any machine instead of wrapping around.
func PodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	sum := corev1.ResourceList{}
	for i := range spec.Containers {
		addTo(sum, containerRequests(&spec.Containers[i]))
	}
	sidecars := corev1.ResourceList{}
	initPeak := corev1.ResourceList{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		reqs := containerRequests(c)
		if isSidecar(c) {
			addTo(sum, reqs)
			addTo(sidecars, reqs)
			maxInto(initPeak, sidecars)
			continue
		}
		peak := reqs.DeepCopy()
		addTo(peak, sidecars)
		maxInto(initPeak, peak)
	}
	maxInto(sum, initPeak)
	if spec.Resources != nil {
		for name, q := range spec.Resources.Requests {
			sum[name] = q.DeepCopy()
		}
	}
	addTo(sum, spec.Overhead)
	sum[corev1.ResourcePods] = *resource.NewQuantity(1, resource.DecimalSI)
	return scheduling.ClampRequests(sum)
}

// containerRequests returns a container's requests, with limits standing in
// for requests it does not set.
func containerRequests(c *corev1.Container) corev1.ResourceList {
	if len(c.Resources.Limits) == 0 {
		return c.Resources.Requests
	}
	reqs := c.Resources.Requests.DeepCopy()
	if reqs == nil {
		reqs = corev1.ResourceList{}
	}
	for name, q := range c.Resources.Limits {
		if _, ok := reqs[name]; !ok {
			reqs[name] = q.DeepCopy()
		}
	}
	return reqs
}

// isSidecar reports whether an init container is a restartable sidecar: it
// keeps running beside the regular containers.
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

func addTo(dst, src corev1.ResourceList) {
	for name, q := range src {
		cur, ok := dst[name]
		if !ok {
			dst[name] = q.DeepCopy()
			continue
		}
		cur.Add(q)
		dst[name] = cur
	}
}

func maxInto(dst, src corev1.ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; !ok || q.Cmp(cur) > 0 {
			dst[name] = q.DeepCopy()
		}
	}
}
