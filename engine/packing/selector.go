package packing

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// podSelector selects pods by namespace and labels, as a pod affinity term or
// a topology spread constraint does.
type podSelector struct {
	// namespaces are the namespaces selected; empty with allNamespaces.
	namespaces    []string
	allNamespaces bool
	selector      labels.Selector
}

func (s podSelector) matches(namespace string, podLabels map[string]string) bool {
	if !s.allNamespaces && !slices.Contains(s.namespaces, namespace) {
		return false
	}
	return s.selector.Matches(labels.Set(podLabels))
}

func (s podSelector) String() string {
	ns := "*"
	if !s.allNamespaces {
		ns = strings.Join(s.namespaces, ",")
	}
	return ns + "|" + s.selector.String()
}

// termSelector compiles a pod affinity term of a pod in namespace with
// podLabels (for matchLabelKeys).
func termSelector(term corev1.PodAffinityTerm, namespace string, podLabels map[string]string) (podSelector, error) {
	sel, err := labelSelector(term.LabelSelector, term.MatchLabelKeys, term.MismatchLabelKeys, podLabels)
	if err != nil {
		return podSelector{}, err
	}
	s := podSelector{selector: sel}
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

// spreadSelector compiles a topology spread constraint's selector.
func spreadSelector(c corev1.TopologySpreadConstraint, namespace string, podLabels map[string]string) (podSelector, error) {
	sel, err := labelSelector(c.LabelSelector, c.MatchLabelKeys, nil, podLabels)
	if err != nil {
		return podSelector{}, err
	}
	return podSelector{namespaces: []string{namespace}, selector: sel}, nil
}

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

// topologyKey normalises a term's topology key.
func topologyKey(key string) string { return scheduling.NormalizeLabelKey(key) }
