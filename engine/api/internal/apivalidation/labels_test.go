package apivalidation_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestLabelKeyErrorsAgreeWithScheduling keeps the API's label rules in step with the scheduler:
// a key is refused exactly when scheduling.IsRestrictedLabel refuses it (tenon.dev/nodepool
// aside, which each version refuses with a message of its own).
func TestLabelKeyErrorsAgreeWithScheduling(t *testing.T) {
	keys := []string{
		"team", "example.com/team", "kubernetes.io/team", "a.kubernetes.io/b", "evilkubernetes.io/b",
		"node.kubernetes.io/role", "x.node.kubernetes.io/y", "node-restriction.kubernetes.io/z",
		"k8s.io/a", "x.k8s.io/a", "kops.k8s.io/instancegroup", "a.kops.k8s.io/b", "tenon.dev/team", "x.tenon.dev/a",
		"karpenter.sh/provisioner-name", "karpenter.k8s.aws/instance-encryption-in-transit-supported",
		"karpenter.k8s.aws/instance-pods", "karpenter.k8s.aws/ec2nodeclass", "beta.kubernetes.io/arch",
		"failure-domain.beta.kubernetes.io/zone",
	}
	for k := range scheduling.WellKnownLabels() {
		keys = append(keys, k)
		if name, ok := strings.CutPrefix(k, "tenon.dev/"); ok {
			keys = append(keys, "karpenter.k8s.aws/"+name, "karpenter.sh/"+name)
		}
	}
	for _, k := range keys {
		if k == scheduling.LabelNodePool {
			continue
		}
		restricted := scheduling.IsRestrictedLabel(k) != nil
		if msgs := apivalidation.LabelKeyErrors(k); (len(msgs) > 0) != restricted {
			t.Errorf("LabelKeyErrors(%q) = %q; scheduling restricts it: %v", k, msgs, restricted)
		}
	}
}

func TestLabelValue(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  field.ErrorType // "" for none
	}{
		{"", ""},
		{"a", ""},
		{"a-b_c.d", ""},
		{strings.Repeat("a", 63), ""},
		{strings.Repeat("a", 64), field.ErrorTypeTooLong},
		{"-a", field.ErrorTypeInvalid},
		{"two words", field.ErrorTypeInvalid},
	} {
		errs := apivalidation.LabelValue(field.NewPath("v"), tc.value)
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("LabelValue(%q) = %v, want none", tc.value, errs)
		case tc.want != "" && (len(errs) != 1 || errs[0].Type != tc.want || errs[0].Detail != apivalidation.MsgValueSyntax):
			t.Errorf("LabelValue(%q) = %v, want one %s saying what a label value may be", tc.value, errs, tc.want)
		}
	}
}
