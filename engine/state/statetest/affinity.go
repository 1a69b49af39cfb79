package statetest

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// WithRequiredNodeAffinity sets the pod's required node affinity to one
// term with one expression.
func WithRequiredNodeAffinity(key string, op corev1.NodeSelectorOperator, values ...string) PodOption {
	return func(p *state.Pod) {
		na := nodeAffinity(p)
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}},
		}}}
	}
}

// WithPreferredNodeAffinity adds a preferred node affinity term: key In
// values, with weight.
func WithPreferredNodeAffinity(weight int32, key string, values ...string) PodOption {
	return func(p *state.Pod) {
		na := nodeAffinity(p)
		na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, corev1.PreferredSchedulingTerm{
			Weight:     weight,
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}}},
		})
	}
}

// WithAntiAffinity adds a required pod anti-affinity term on topology key
// against the pods sel selects.
func WithAntiAffinity(key string, sel map[string]string) PodOption {
	return func(p *state.Pod) {
		aa := podAntiAffinity(p)
		aa.RequiredDuringSchedulingIgnoredDuringExecution = append(aa.RequiredDuringSchedulingIgnoredDuringExecution, AffinityTerm(key, sel))
	}
}

// WithPreferredAntiAffinity adds a preferred pod anti-affinity term of
// weight 1 on topology key against the pods sel selects.
func WithPreferredAntiAffinity(key string, sel map[string]string) PodOption {
	return func(p *state.Pod) {
		aa := podAntiAffinity(p)
		aa.PreferredDuringSchedulingIgnoredDuringExecution = append(aa.PreferredDuringSchedulingIgnoredDuringExecution, corev1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: AffinityTerm(key, sel)})
	}
}

// WithPodAffinity adds a required pod affinity term on topology key to
// the pods sel selects.
func WithPodAffinity(key string, sel map[string]string) PodOption {
	return func(p *state.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, AffinityTerm(key, sel))
	}
}

// AffinityTerm is a pod (anti-)affinity term on topology key selecting
// the pods labelled sel.
func AffinityTerm(key string, sel map[string]string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: sel}}
}

func affinity(p *state.Pod) *corev1.Affinity {
	if p.Affinity == nil {
		p.Affinity = &corev1.Affinity{}
	}
	return p.Affinity
}

func nodeAffinity(p *state.Pod) *corev1.NodeAffinity {
	a := affinity(p)
	if a.NodeAffinity == nil {
		a.NodeAffinity = &corev1.NodeAffinity{}
	}
	return a.NodeAffinity
}

func podAntiAffinity(p *state.Pod) *corev1.PodAntiAffinity {
	a := affinity(p)
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	return a.PodAntiAffinity
}
