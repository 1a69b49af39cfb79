package scheduling_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func required(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
}

func term(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

// TestNodeFilter checks node selection: the nodeSelector and one of the
// required terms must hold, a missing label satisfies only NotIn and
// DoesNotExist, hard taints need tolerating, and faults are errors.
func TestNodeFilter(t *testing.T) {
	node := map[string]string{"zone": "a", "disk": "ssd"}
	tests := []struct {
		name     string
		selector map[string]string
		affinity *corev1.Affinity
		want     bool
		err      string
	}{
		{name: "nothing asked", want: true},
		{name: "selector holds", selector: map[string]string{"disk": "ssd"}, want: true},
		{name: "selector fails", selector: map[string]string{"disk": "hdd"}},
		{name: "second term holds", affinity: required(term("zone", corev1.NodeSelectorOpIn, "b"), term("zone", corev1.NodeSelectorOpIn, "a")), want: true},
		{name: "term and selector", selector: map[string]string{"disk": "hdd"}, affinity: required(term("zone", corev1.NodeSelectorOpIn, "a"))},
		{name: "absent label, NotIn", affinity: required(term("gpu", corev1.NodeSelectorOpNotIn, "x")), want: true},
		{name: "absent label, Exists", affinity: required(term("gpu", corev1.NodeSelectorOpExists))},
		{name: "no terms", affinity: required(), err: "required node affinity has no terms"},
		{name: "bad term", affinity: required(term("n", corev1.NodeSelectorOpGt, "x")), err: "required node affinity term 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := scheduling.NewNodeFilter(tt.selector, tt.affinity, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.MatchesLabels(node); got != tt.want {
				t.Errorf("matches %t, want %t", got, tt.want)
			}
		})
	}
	f, _ := scheduling.NewNodeFilter(nil, nil, nil)
	taint := scheduling.Taints{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	if f.Admits(node, taint) {
		t.Error("a pod without tolerations admitted on a tainted node")
	}
}

// TestPodSelector checks namespaces and matchLabelKeys.
func TestPodSelector(t *testing.T) {
	term := corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MatchLabelKeys: []string{"rev"}}
	sel, err := scheduling.AffinityTermSelector(term, "prod", map[string]string{"app": "web", "rev": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Matches("prod", map[string]string{"app": "web", "rev": "2"}) || sel.Matches("prod", map[string]string{"app": "web", "rev": "1"}) || sel.Matches("dev", map[string]string{"app": "web", "rev": "2"}) {
		t.Errorf("selector %s matches the wrong pods", sel)
	}
	term.NamespaceSelector = &metav1.LabelSelector{}
	all, _ := scheduling.AffinityTermSelector(term, "prod", map[string]string{"app": "web", "rev": "2"})
	if !all.Matches("dev", map[string]string{"app": "web", "rev": "2"}) {
		t.Errorf("a namespace selector should select every namespace: %s", all)
	}
}

// TestNodeFilterAllowsValue checks the per-key view spread domains use:
// the nodeSelector and one term must allow the value; keys nothing
// constrains allow any.
func TestNodeFilterAllowsValue(t *testing.T) {
	f, err := scheduling.NewNodeFilter(map[string]string{"disk": "ssd"},
		required(term("zone", corev1.NodeSelectorOpIn, "a"), term("zone", corev1.NodeSelectorOpIn, "b")), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, value string
		want       bool
	}{{"zone", "a", true}, {"zone", "b", true}, {"zone", "c", false}, {"disk", "hdd", false}, {"other", "x", true}} {
		if got := f.AllowsValue(tc.key, tc.value); got != tc.want {
			t.Errorf("AllowsValue(%s, %s) = %t, want %t", tc.key, tc.value, got, tc.want)
		}
	}
}
