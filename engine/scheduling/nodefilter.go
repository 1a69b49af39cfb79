package scheduling

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// NodeFilter is what a pod asks of a node's labels and taints, compiled
// once: kube-scheduler's NodeAffinity and TaintToleration filters. The
// packer (for pending pods and daemonsets), the result checker and
// consolidation all decide through it whether a pod may run on a node.
type NodeFilter struct {
	// Terms are the alternative node requirements: the nodeSelector
	// intersected with each required node affinity term (the nodeSelector
	// alone without required node affinity). A node must satisfy one.
	Terms []Requirements
	// Preferred are the preferred node affinity terms, highest weight
	// first.
	Preferred []WeightedRequirements
	// Tolerations are the pod's tolerations.
	Tolerations []corev1.Toleration
}

// WeightedRequirements is a preferred node affinity term.
type WeightedRequirements struct {
	Weight       int32
	Requirements Requirements
}

// NewNodeFilter compiles a pod's nodeSelector, node affinity (from
// affinity, which may be nil) and tolerations. A term that cannot be
// parsed, or a required node affinity without terms, is an error; the
// filter returned with it holds what was compiled before the fault.
func NewNodeFilter(nodeSelector map[string]string, affinity *corev1.Affinity, tolerations []corev1.Toleration) (NodeFilter, error) {
	f := NodeFilter{Tolerations: tolerations}
	base := RequirementsFromLabels(nodeSelector)
	f.Terms = []Requirements{base}
	if affinity == nil || affinity.NodeAffinity == nil {
		return f, nil
	}
	na := affinity.NodeAffinity
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		f.Terms = nil
		for i, term := range req.NodeSelectorTerms {
			reqs, err := RequirementsFromNodeSelector(term.MatchExpressions...)
			if err != nil {
				return f, fmt.Errorf("required node affinity term %d: %w", i, err)
			}
			f.Terms = append(f.Terms, base.Intersection(reqs))
		}
		if len(f.Terms) == 0 {
			return f, errors.New("required node affinity has no terms")
		}
	}
	for i, pref := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		reqs, err := RequirementsFromNodeSelector(pref.Preference.MatchExpressions...)
		if err != nil {
			return f, fmt.Errorf("preferred node affinity term %d: %w", i, err)
		}
		f.Preferred = append(f.Preferred, WeightedRequirements{Weight: pref.Weight, Requirements: reqs})
	}
	slices.SortStableFunc(f.Preferred, func(a, b WeightedRequirements) int { return int(b.Weight - a.Weight) })
	return f, nil
}

// MatchesLabels reports whether a node with labels satisfies one of the
// filter's terms: the nodeSelector and required node affinity.
func (f NodeFilter) MatchesLabels(labels map[string]string) bool {
	for _, t := range f.Terms {
		if t.SatisfiedBy(labels) {
			return true
		}
	}
	return false
}

// AllowsValue reports whether some term lets the node's label key have
// value, looking at that key only: the values of a topology domain the
// pod may be placed in.
func (f NodeFilter) AllowsValue(key, value string) bool {
	for _, t := range f.Terms {
		if t.Get(key).Has(value) {
			return true
		}
	}
	return false
}

// Admits reports whether the pod schedules on a node with labels and
// taints: it tolerates the hard taints and the labels satisfy a term.
func (f NodeFilter) Admits(labels map[string]string, taints Taints) bool {
	return taints.ToleratesPod(f.Tolerations) == nil && f.MatchesLabels(labels)
}

// SatisfiedBy reports whether a node with labels satisfies r: every key r
// defines has an allowed value, or is absent where r allows absence
// (NotIn, DoesNotExist).
func (r Requirements) SatisfiedBy(labels map[string]string) bool {
	for key, req := range r {
		if v, ok := labels[key]; ok {
			if !req.Has(v) {
				return false
			}
			continue
		}
		if op := req.Operator(); op != OpNotIn && op != OpDoesNotExist {
			return false
		}
	}
	return true
}
