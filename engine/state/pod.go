package state

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pods converts the pods that hold or will hold resources (not Succeeded or
// Failed), sorted by namespace/name. Pods whose specs share their parts
// (the pods a scenario expands from one template) share the converted
// scheduling values, which are read-only.
func pods(in []*corev1.Pod) ([]*Pod, error) {
	// One slab for every pod: a 20,000-pod batch costs one allocation
	// instead of 20,000, which matters because simulate times this.
	slab := make([]Pod, 0, len(in))
	memo := map[specIdentity]*specValues{}
	metadata := mapMemo{}
	for _, p := range in {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		id := identify(&p.Spec)
		vals, ok := memo[id]
		if !ok {
			vals = convertSpec(&p.Spec)
			memo[id] = vals
		}
		slab = append(slab, Pod{})
		pod := &slab[len(slab)-1]
		fillPod(pod, p, vals)
		pod.Labels = metadata.clone(p.Labels)
		pod.Annotations = metadata.clone(p.Annotations)
	}
	out := make([]*Pod, len(slab))
	for i := range slab {
		out[i] = &slab[i]
	}
	slices.SortStableFunc(out, comparePodKeys)
	// Sorted, duplicates are neighbours: no map of every key needed.
	var errs []*ObjectError
	result := out[:0]
	for i, p := range out {
		if i > 0 && comparePodKeys(out[i-1], p) == 0 {
			errs = append(errs, objectErrorf("Pod", p.Namespace, p.Name, "metadata.name", "another pod has the same namespace and name"))
			continue
		}
		result = append(result, p)
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	return result, nil
}

// comparePodKeys orders pods as their keys, "namespace/name", compare as
// strings, without building the keys.
func comparePodKeys(a, b *Pod) int {
	if a.Namespace == b.Namespace {
		return strings.Compare(a.Name, b.Name)
	}
	// The namespaces differ, so the keys differ within "namespace/".
	n := min(len(a.Namespace), len(b.Namespace))
	for i := range n {
		if a.Namespace[i] != b.Namespace[i] {
			return int(a.Namespace[i]) - int(b.Namespace[i])
		}
	}
	if len(a.Namespace) == n {
		return int('/') - int(b.Namespace[n])
	}
	return int(a.Namespace[n]) - int('/')
}

// mapMemo copies each distinct label or annotation map once, so pods whose
// metadata shares a map (as a template's expanded pods do) share the copy.
type mapMemo map[uintptr]map[string]string

func (m mapMemo) clone(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	id := reflect.ValueOf(in).Pointer()
	if c, ok := m[id]; ok {
		return c
	}
	c := maps.Clone(in)
	m[id] = c
	return c
}

// specValues are the scheduling values derived from a pod spec.
type specValues struct {
	requests       corev1.ResourceList
	nodeSelector   map[string]string
	affinity       *corev1.Affinity
	tolerations    []corev1.Toleration
	topologySpread []corev1.TopologySpreadConstraint
	hostPorts      []HostPort
}

// specIdentity identifies the parts of a pod spec that specValues depend
// on by the memory they live in: two specs with the same identity hold the
// very same containers, affinity, tolerations and so on.
type specIdentity struct {
	containers, initContainers   *corev1.Container
	nContainers, nInitContainers int
	affinity                     *corev1.Affinity
	tolerations                  *corev1.Toleration
	nTolerations                 int
	spread                       *corev1.TopologySpreadConstraint
	nSpread                      int
	resources                    *corev1.ResourceRequirements
	overhead, nodeSelector       uintptr
}

func identify(spec *corev1.PodSpec) specIdentity {
	return specIdentity{
		containers:      first(spec.Containers),
		nContainers:     len(spec.Containers),
		initContainers:  first(spec.InitContainers),
		nInitContainers: len(spec.InitContainers),
		affinity:        spec.Affinity,
		tolerations:     first(spec.Tolerations),
		nTolerations:    len(spec.Tolerations),
		spread:          first(spec.TopologySpreadConstraints),
		nSpread:         len(spec.TopologySpreadConstraints),
		resources:       spec.Resources,
		overhead:        reflect.ValueOf(spec.Overhead).Pointer(),
		nodeSelector:    reflect.ValueOf(spec.NodeSelector).Pointer(),
	}
}

// first returns the address of s's first element, or nil when s is empty.
func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// convertSpec copies what scheduling needs from a pod spec.
func convertSpec(spec *corev1.PodSpec) *specValues {
	v := &specValues{
		requests:     PodRequests(spec),
		nodeSelector: maps.Clone(spec.NodeSelector),
		affinity:     spec.Affinity.DeepCopy(),
		hostPorts:    HostPorts(spec),
	}
	if len(spec.Tolerations) > 0 {
		v.tolerations = make([]corev1.Toleration, len(spec.Tolerations))
		for i := range spec.Tolerations {
			spec.Tolerations[i].DeepCopyInto(&v.tolerations[i])
		}
	}
	if len(spec.TopologySpreadConstraints) > 0 {
		v.topologySpread = make([]corev1.TopologySpreadConstraint, len(spec.TopologySpreadConstraints))
		for i := range spec.TopologySpreadConstraints {
			spec.TopologySpreadConstraints[i].DeepCopyInto(&v.topologySpread[i])
		}
	}
	return v
}

// ConvertPod reduces a pod to what scheduling needs. The result shares no
// memory with p.
func ConvertPod(p *corev1.Pod) *Pod {
	pod := &Pod{}
	fillPod(pod, p, convertSpec(&p.Spec))
	pod.Labels = maps.Clone(p.Labels)
	pod.Annotations = maps.Clone(p.Annotations)
	return pod
}

// fillPod sets pod from p and its converted spec values.
func fillPod(pod *Pod, p *corev1.Pod, v *specValues) {
	*pod = Pod{
		Namespace:      p.Namespace,
		Name:           p.Name,
		UID:            string(p.UID),
		NodeName:       p.Spec.NodeName,
		Requests:       v.requests,
		NodeSelector:   v.nodeSelector,
		Affinity:       v.affinity,
		Tolerations:    v.tolerations,
		TopologySpread: v.topologySpread,
		HostPorts:      v.hostPorts,
	}
	if p.Spec.Priority != nil {
		pod.Priority = *p.Spec.Priority
	}
	if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
		pod.Owner = Owner{Kind: ref.Kind, Name: ref.Name}
		pod.DaemonSet = ref.Kind == "DaemonSet" && isAppsGroup(ref.APIVersion)
	}
	if p.Status.StartTime != nil {
		pod.StartTime = p.Status.StartTime.Time
	}
	pod.CreatedAt = p.CreationTimestamp.Time
	pod.Terminating = p.DeletionTimestamp != nil
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
