package v1_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestRequirementOperators: the operators split into those Validate checks as strings and those
// it checks as integers, and a caller changing its copy changes nothing for the next one.
func TestRequirementOperators(t *testing.T) {
	set, integer := v1.RequirementOperators()
	wantSet := []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist}
	wantInteger := []corev1.NodeSelectorOperator{corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, v1.NodeSelectorOpGte, v1.NodeSelectorOpLte}
	if !slices.Equal(set, wantSet) || !slices.Equal(integer, wantInteger) {
		t.Fatalf("RequirementOperators() = %v, %v; want %v, %v", set, integer, wantSet, wantInteger)
	}
	set[0] = "Changed"
	if again, _ := v1.RequirementOperators(); again[0] != corev1.NodeSelectorOpIn {
		t.Errorf("changing the returned list changed the API's: %v", again)
	}
}

// TestEnumsAreValid: every listed value passes Validate where the field takes it.
func TestEnumsAreValid(t *testing.T) {
	for _, family := range v1.AMIFamilies() {
		nc := &v1.NodeClass{Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{AMIFamily: family, Role: "nodes"}}}
		nc.Name = "c"
		if family == v1.AMIFamilyCustom {
			nc.Spec.AWS.AMISelectorTerms = []v1.AMISelectorTerm{{ID: "ami-0123456789abcdef0"}}
		}
		if errs := nc.Validate(); len(errs) > 0 {
			t.Errorf("amiFamily %s: %v", family, errs)
		}
	}
	for _, policy := range v1.ConsolidationPolicies() {
		for _, reason := range v1.DisruptionReasons() {
			np := &v1.NodePool{Spec: v1.NodePoolSpec{
				Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{NodeClassRef: &v1.NodeClassReference{Name: "c"}}},
				Disruption: &v1.Disruption{ConsolidationPolicy: policy, ConsolidateAfter: "0s",
					Budgets: []v1.Budget{{Nodes: "1", Reasons: []v1.DisruptionReason{reason}}}},
			}}
			np.Name = "p"
			np.SetDefaults()
			if errs := np.Validate(); len(errs) > 0 {
				t.Errorf("consolidationPolicy %s, reason %s: %v", policy, reason, errs)
			}
		}
	}
}
