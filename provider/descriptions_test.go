package provider

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

func TestDescriptionLists(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{codeList([]string{"a"}, nil), "`a`"},
		{codeList([]string{"a", "b"}, map[string]string{"b": "the default"}), "`a` or `b` (the default)"},
		{codeList(v1.TaintEffects(), nil), "`NoSchedule`, `PreferNoSchedule` or `NoExecute`"},
		{codes([]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute}), "`NoSchedule`, `NoExecute`"},
		{operatorsDoc(v1.RequirementOperators()), "`In`, `NotIn`, `Exists`, `DoesNotExist`, and for integer labels `Gt`, `Lt`, `Gte`, `Lte`"},
		{operatorsDoc(v1alpha5.RequirementOperators()), "`In`, `NotIn`, `Exists`, `DoesNotExist`, and for integer labels `Gt`, `Lt`"},
		{allOperatorsDoc(), "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte` or `Lte`"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}
