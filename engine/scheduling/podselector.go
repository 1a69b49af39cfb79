package scheduling

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PodSelector selects pods by namespace and labels, as a pod (anti-)affinity
// term or a topology spread constraint does. The packer counts the pods a
// selector matches per topology domain and the result checker recounts
// them, both through this one type.
type PodSelector struct {
	// namespaces are the namespaces selected; empty with allNamespaces.
	namespaces    []string
	allNamespaces bool
	selector      labels.Selector
}

// Matches reports whether a pod in namespace with podLabels is selected.
func (s PodSelector) Matches(namespace string, podLabels map[string]string) bool {
	if !s.allNamespaces && !slices.Contains(s.namespaces, namespace) {
		return false
	}
	return s.selector.Matches(labels.Set(podLabels))
}

// String returns "namespaces|selector" ("*" for every namespace): equal
// strings select the same pods.
func (s PodSelector) String() string {
	ns := "*"
	if !s.allNamespaces {
		ns = strings.Join(s.namespaces, ",")
	}
	return ns + "|" + s.selector.String()
}

// AffinityTermSelector compiles a pod (anti-)affinity term of a pod in
// namespace with podLabels (for matchLabelKeys and mismatchLabelKeys).
func AffinityTermSelector(term corev1.PodAffinityTerm, namespace string, podLabels map[string]string) (PodSelector, error) {
	sel, err := labelSelector(term.LabelSelector, term.MatchLabelKeys, term.MismatchLabelKeys, podLabels)
	if err != nil {
		return PodSelector{}, err
	}
	s := PodSelector{selector: sel}
	switch {
	case term.NamespaceSelector != nil:
		// Namespace labels are not in the Snapshot: a namespace selector
		// is taken to select every namespace, which is exact for the
		// common empty selector and conservative for anti-affinity.
		s.allNamespaces = true
	case len(term.Namespaces) > 0:
		s.namespaces = slices.Sorted(slices.Values(term.Namespaces))
	default:
		s.namespaces = []string{namespace}
	}
	return s, nil
}

// SpreadSelector compiles the selector of a topology spread constraint of a
// pod in namespace with podLabels (for matchLabelKeys).
func SpreadSelector(c corev1.TopologySpreadConstraint, namespace string, podLabels map[string]string) (PodSelector, error) {
	sel, err := labelSelector(c.LabelSelector, c.MatchLabelKeys, nil, podLabels)
	if err != nil {
		return PodSelector{}, err
	}
	return PodSelector{namespaces: []string{namespace}, selector: sel}, nil
}

// labelSelector is ls (nothing when nil) narrowed to the pod's own values
// of matchKeys and away from its values of mismatchKeys.
func labelSelector(ls *metav1.LabelSelector, matchKeys, mismatchKeys []string, podLabels map[string]string) (labels.Selector, error) {
	if ls == nil {
		return labels.Nothing(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, err
	}
	for _, key := range matchKeys {
		if v, ok := podLabels[key]; ok {
			r, err := labels.NewRequirement(key, "=", []string{v})
			if err != nil {
				return nil, err
			}
			sel = sel.Add(*r)
		}
	}
	for _, key := range mismatchKeys {
		if v, ok := podLabels[key]; ok {
			r, err := labels.NewRequirement(key, "!=", []string{v})
			if err != nil {
				return nil, err
			}
			sel = sel.Add(*r)
		}
	}
	return sel, nil
}
