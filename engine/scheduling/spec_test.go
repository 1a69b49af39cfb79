package scheduling_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func intPtr(n int) *int { return &n }

func TestParseRequirement(t *testing.T) {
	tests := []struct {
		name    string
		spec    scheduling.RequirementSpec
		want    string
		wantErr string
	}{
		{"In", scheduling.RequirementSpec{Key: key, Operator: "In", Values: []string{"b", "a"}}, "In [a b]", ""},
		{"NotIn", scheduling.RequirementSpec{Key: key, Operator: "NotIn", Values: []string{"a"}}, "NotIn [a]", ""},
		{"Exists", scheduling.RequirementSpec{Key: key, Operator: "Exists"}, "Exists", ""},
		{"DoesNotExist", scheduling.RequirementSpec{Key: key, Operator: "DoesNotExist"}, "DoesNotExist", ""},
		{"Gt", scheduling.RequirementSpec{Key: key, Operator: "Gt", Values: []string{"4"}}, "Gt 4", ""},
		{"Lt", scheduling.RequirementSpec{Key: key, Operator: "Lt", Values: []string{"-4"}}, "Lt -4", ""},
		{"Gte", scheduling.RequirementSpec{Key: key, Operator: "Gte", Values: []string{"4"}}, "Gt 3", ""},
		{"Lte", scheduling.RequirementSpec{Key: key, Operator: "Lte", Values: []string{"4"}}, "Lt 5", ""},
		{"minValues", scheduling.RequirementSpec{Key: key, Operator: "In", Values: []string{"a", "b"}, MinValues: intPtr(2)}, "In [a b] minValues 2", ""},
		{"minValues on Exists", scheduling.RequirementSpec{Key: key, Operator: "Exists", MinValues: intPtr(5)}, "Exists minValues 5", ""},
		{"empty key", scheduling.RequirementSpec{Operator: "Exists"}, "",
			"empty key: set key to a label name such as kubernetes.io/arch"},
		{"unknown operator", scheduling.RequirementSpec{Key: key, Operator: "Equals", Values: []string{"a"}}, "",
			`key example.com/k: unknown operator "Equals"; use one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte`},
		{"In without values", scheduling.RequirementSpec{Key: key, Operator: "In"}, "",
			"key example.com/k: operator In needs at least one value; add values or use Exists"},
		{"NotIn without values", scheduling.RequirementSpec{Key: key, Operator: "NotIn"}, "",
			"key example.com/k: operator NotIn needs at least one value; add values or use Exists or drop the requirement"},
		{"Exists with values", scheduling.RequirementSpec{Key: key, Operator: "Exists", Values: []string{"a"}}, "",
			"key example.com/k: operator Exists takes no values, got [a]; remove the values"},
		{"Gt with two values", scheduling.RequirementSpec{Key: key, Operator: "Gt", Values: []string{"4", "8"}}, "",
			`key example.com/k: operator Gt takes exactly one integer value, got [4 8]; write one, e.g. ["4"]`},
		{"Lt without values", scheduling.RequirementSpec{Key: key, Operator: "Lt"}, "",
			`key example.com/k: operator Lt takes exactly one integer value, got []; write one, e.g. ["4"]`},
		{"Gte not an integer", scheduling.RequirementSpec{Key: key, Operator: "Gte", Values: []string{"4.5"}}, "",
			`key example.com/k: operator Gte takes exactly one integer value, got "4.5"; write a base-10 integer, e.g. "4"`},
		{"minValues zero", scheduling.RequirementSpec{Key: key, Operator: "Exists", MinValues: intPtr(0)}, "",
			"key example.com/k: minValues must be at least 1, got 0; omit it or raise it"},
		{"minValues above In values", scheduling.RequirementSpec{Key: key, Operator: "In", Values: []string{"a", "a"}, MinValues: intPtr(2)}, "",
			"key example.com/k: minValues 2 is more than the 1 distinct values of In; lower minValues or add values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scheduling.ParseRequirement(tt.spec)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := key + " " + tt.want; got.String() != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestSpecsRoundTrip(t *testing.T) {
	tests := []scheduling.Requirement{
		scheduling.In(key, "a", "b").WithMinValues(2),
		scheduling.NotIn(key, "a"),
		scheduling.Exists(key).WithMinValues(3),
		scheduling.DoesNotExist(key),
		scheduling.Gt(key, 3).Intersection(scheduling.Lt(key, 9)).Intersection(scheduling.NotIn(key, "5", "x")),
		scheduling.Gte(key, -9223372036854775808),
		scheduling.Lte(key, 0),
	}
	for _, req := range tests {
		t.Run(req.String(), func(t *testing.T) {
			got, err := scheduling.RequirementsFromSpecs(req.Specs()...)
			if err != nil {
				t.Fatal(err)
			}
			if !got[key].Equal(req) {
				t.Errorf("round trip gave %s, want %s", got[key], req)
			}
		})
	}
}

func TestRequirementsFromSpecsReportsEveryError(t *testing.T) {
	_, err := scheduling.RequirementsFromSpecs(
		scheduling.RequirementSpec{Key: "a", Operator: "In", Values: []string{"x"}},
		scheduling.RequirementSpec{Key: "b", Operator: "Gt", Values: []string{"x"}},
		scheduling.RequirementSpec{Key: "c", Operator: "Nope"},
	)
	want := `requirements[1]: key b: operator Gt takes exactly one integer value, got "x"; write a base-10 integer, e.g. "4"` + "\n" +
		`requirements[2]: key c: unknown operator "Nope"; use one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestRequirementsFromNodeSelector(t *testing.T) {
	got, err := scheduling.RequirementsFromNodeSelector(
		corev1.NodeSelectorRequirement{Key: scheduling.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
		corev1.NodeSelectorRequirement{Key: "beta.kubernetes.io/arch", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"arm64"}},
		corev1.NodeSelectorRequirement{Key: scheduling.LabelInstanceCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{"3"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if want := "kubernetes.io/arch In [amd64], tenon.dev/instance-cpu Gt 3"; got.String() != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
