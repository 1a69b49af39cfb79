package state

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pods converts the pods that hold or will hold resources (not Succeeded or
// Failed), sorted by namespace/name.
func pods(in []*corev1.Pod) ([]*Pod, error) {
	out := make([]*Pod, 0, len(in))
	seen := make(map[string]bool, len(in))
	var errs []*ObjectError
	for _, p := range in {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		key := objectKey(p.Namespace, p.Name)
		if seen[key] {
			errs = append(errs, objectErrorf("Pod", p.Namespace, p.Name, "metadata.name", "another pod has the same namespace and name"))
			continue
		}
		seen[key] = true
		out = append(out, ConvertPod(p))
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	byKey(out, func(p *Pod) string { return p.Key() })
	return out, nil
}

// ConvertPod reduces a pod to what scheduling needs. The result shares no
// memory with p.
func ConvertPod(p *corev1.Pod) *Pod {
	spec := p.Spec.DeepCopy()
	pod := &Pod{
		Namespace:      p.Namespace,
		Name:           p.Name,
		UID:            string(p.UID),
		Labels:         maps.Clone(p.Labels),
		Annotations:    maps.Clone(p.Annotations),
		NodeName:       spec.NodeName,
		Requests:       PodRequests(spec),
		NodeSelector:   spec.NodeSelector,
		Affinity:       spec.Affinity,
		Tolerations:    spec.Tolerations,
		TopologySpread: spec.TopologySpreadConstraints,
		HostPorts:      HostPorts(spec),
	}
	if spec.Priority != nil {
		pod.Priority = *spec.Priority
	}
	if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
		pod.Owner = Owner{Kind: ref.Kind, Name: ref.Name}
		pod.DaemonSet = ref.Kind == "DaemonSet" && isAppsGroup(ref.APIVersion)
	}
	if p.Status.StartTime != nil {
		pod.StartTime = p.Status.StartTime.Time
	}
	return pod
}

func isAppsGroup(apiVersion string) bool {
	return apiVersion == appsv1.SchemeGroupVersion.String() || apiVersion == "extensions/v1beta1" || apiVersion == "apps/v1beta2"
}

// HostPorts returns the host ports a pod binds while it runs, from its
// containers and its sidecar (restartable) init containers, sorted and
// without duplicates. The protocol defaults to TCP.
func HostPorts(spec *corev1.PodSpec) []HostPort {
	var out []HostPort
	add := func(cs []corev1.Container, sidecarsOnly bool) {
		for i := range cs {
			if sidecarsOnly && !isSidecar(&cs[i]) {
				continue
			}
			for _, port := range cs[i].Ports {
				if port.HostPort <= 0 {
					continue
				}
				hp := HostPort{Protocol: port.Protocol, IP: port.HostIP, Port: port.HostPort}
				if hp.Protocol == "" {
					hp.Protocol = corev1.ProtocolTCP
				}
				out = append(out, hp)
			}
		}
	}
	add(spec.InitContainers, true)
	add(spec.Containers, false)
	slices.SortFunc(out, compareHostPorts)
	return slices.Compact(out)
}

func compareHostPorts(a, b HostPort) int {
	switch {
	case a.Port != b.Port:
		return int(a.Port) - int(b.Port)
	case a.Protocol != b.Protocol:
		if a.Protocol < b.Protocol {
			return -1
		}
		return 1
	case a.IP < b.IP:
		return -1
	case a.IP > b.IP:
		return 1
	}
	return 0
}
