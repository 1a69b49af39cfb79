package agent

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

func TestMergeResolvedStatus(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason}
	}
	cases := []struct {
		name      string
		dst       v1.NodeClassStatus
		resolved  v1.NodeClassStatus
		wantTypes map[string]metav1.ConditionStatus
		wantSub   int
		profile   string
	}{
		{
			name: "resolved fields and part conditions are copied, Ready is left to the agent",
			dst:  v1.NodeClassStatus{Conditions: []metav1.Condition{cond(v1.ConditionReady, metav1.ConditionTrue, "Ready")}},
			resolved: v1.NodeClassStatus{
				Subnets:         []v1.Subnet{{ID: "subnet-1", Zone: "us-east-1a"}, {ID: "subnet-2", Zone: "us-east-1b"}},
				InstanceProfile: "tenon_prod_0123456789abcdef",
				Conditions: []metav1.Condition{
					cond(v1.ConditionReady, metav1.ConditionFalse, "SubnetsNotFound"),
					cond(v1.ConditionSubnetsReady, metav1.ConditionTrue, "Resolved"),
					cond(v1.ConditionInstanceProfileReady, metav1.ConditionTrue, "InstanceProfileManaged"),
				},
			},
			wantTypes: map[string]metav1.ConditionStatus{
				v1.ConditionReady:                metav1.ConditionTrue,
				v1.ConditionSubnetsReady:         metav1.ConditionTrue,
				v1.ConditionInstanceProfileReady: metav1.ConditionTrue,
			},
			wantSub: 2, profile: "tenon_prod_0123456789abcdef",
		},
		{
			name: "a part that stopped resolving turns false and its values go",
			dst: v1.NodeClassStatus{
				Subnets:    []v1.Subnet{{ID: "subnet-1", Zone: "us-east-1a"}},
				Conditions: []metav1.Condition{cond(v1.ConditionSubnetsReady, metav1.ConditionTrue, "Resolved")},
			},
			resolved: v1.NodeClassStatus{
				Conditions: []metav1.Condition{cond(v1.ConditionSubnetsReady, metav1.ConditionFalse, "SubnetsNotFound")},
			},
			wantTypes: map[string]metav1.ConditionStatus{v1.ConditionSubnetsReady: metav1.ConditionFalse},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dst := tc.dst
			mergeResolvedStatus(&dst, tc.resolved, 7)
			if len(dst.Subnets) != tc.wantSub {
				t.Errorf("subnets = %v, want %d", dst.Subnets, tc.wantSub)
			}
			if dst.InstanceProfile != tc.profile {
				t.Errorf("instance profile = %q, want %q", dst.InstanceProfile, tc.profile)
			}
			if len(dst.Conditions) != len(tc.wantTypes) {
				t.Errorf("conditions = %v, want %d", dst.Conditions, len(tc.wantTypes))
			}
			for typ, want := range tc.wantTypes {
				c := meta.FindStatusCondition(dst.Conditions, typ)
				if c == nil || c.Status != want {
					t.Errorf("condition %s = %v, want %s", typ, c, want)
					continue
				}
				if typ != v1.ConditionReady && c.ObservedGeneration != 7 {
					t.Errorf("condition %s observedGeneration = %d, want 7", typ, c.ObservedGeneration)
				}
			}
		})
	}
}
