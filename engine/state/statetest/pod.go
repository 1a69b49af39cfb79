package statetest

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// PodOption changes a pod Pod builds.
type PodOption func(*state.Pod)

// Pod builds a pending pod default/name requesting cpu and memory.
func Pod(name, cpu, memory string, opts ...PodOption) *state.Pod {
	p := &state.Pod{
		Namespace: "default",
		Name:      name,
		Labels:    map[string]string{},
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(memory),
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Pods builds n pods named prefix-0 to prefix-(n-1), as Pod does.
func Pods(n int, prefix, cpu, memory string, opts ...PodOption) []*state.Pod {
	out := make([]*state.Pod, n)
	for i := range out {
		out[i] = Pod(fmt.Sprintf("%s-%d", prefix, i), cpu, memory, opts...)
	}
	return out
}

// WithLabel puts a label on the pod.
func WithLabel(key, value string) PodOption { return func(p *state.Pod) { p.Labels[key] = value } }

// WithAnnotation puts an annotation on the pod.
func WithAnnotation(key, value string) PodOption {
	return func(p *state.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[key] = value
	}
}

// WithRequest sets the pod's request of one resource.
func WithRequest(name corev1.ResourceName, quantity string) PodOption {
	return func(p *state.Pod) { p.Requests[name] = resource.MustParse(quantity) }
}

// WithPriority sets the pod's priority.
func WithPriority(n int32) PodOption { return func(p *state.Pod) { p.Priority = n } }

// BoundTo binds the pod to a node.
func BoundTo(node string) PodOption { return func(p *state.Pod) { p.NodeName = node } }

// OwnedBy gives the pod a controlling owner.
func OwnedBy(kind, name string) PodOption {
	return func(p *state.Pod) { p.Owner = state.Owner{Kind: kind, Name: name} }
}

// StartedAt sets when the pod started.
func StartedAt(t time.Time) PodOption { return func(p *state.Pod) { p.StartTime = t } }

// WithNodeSelector adds a nodeSelector entry.
func WithNodeSelector(key, value string) PodOption {
	return func(p *state.Pod) {
		if p.NodeSelector == nil {
			p.NodeSelector = map[string]string{}
		}
		p.NodeSelector[key] = value
	}
}

// WithToleration adds a toleration of the taint key=value:effect.
func WithToleration(key, value string, effect corev1.TaintEffect) PodOption {
	return func(p *state.Pod) {
		p.Tolerations = append(p.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect})
	}
}

// WithHostPort makes the pod bind a TCP host port.
func WithHostPort(port int32) PodOption {
	return func(p *state.Pod) {
		p.HostPorts = append(p.HostPorts, state.HostPort{Protocol: corev1.ProtocolTCP, Port: port})
	}
}

// WithSpread adds a topology spread constraint over key on the pods sel
// selects.
func WithSpread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, sel map[string]string) PodOption {
	return func(p *state.Pod) {
		p.TopologySpread = append(p.TopologySpread, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: &metav1.LabelSelector{MatchLabels: sel},
		})
	}
}
