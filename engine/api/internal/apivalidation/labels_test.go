package apivalidation

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Label keys are checked against scheduling.IsRestrictedLabel by each version's
// TestRestrictedLabelsAgreeWithScheduling, through both the CRD and Go.

// TestLabelValue: too long is TooLong, as the API server says, but with the message saying what
// a label value may be.
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
		errs := labelValue(field.NewPath("v"), tc.value)
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("labelValue(%q) = %v, want none", tc.value, errs)
		case tc.want != "" && (len(errs) != 1 || errs[0].Type != tc.want || errs[0].Detail != msgValueSyntax):
			t.Errorf("labelValue(%q) = %v, want one %s saying what a label value may be", tc.value, errs, tc.want)
		}
	}
}
