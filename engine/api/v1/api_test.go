package v1_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

func TestAddToSchemeRegistersEveryKind(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"NodePool", "NodePoolList", "NodeClass", "NodeClassList", "NodeClaim", "NodeClaimList"} {
		if !scheme.Recognizes(v1.SchemeGroupVersion.WithKind(kind)) {
			t.Errorf("scheme does not recognize %s", kind)
		}
	}
}

func TestNillableDuration(t *testing.T) {
	for _, tc := range []struct {
		in    v1.NillableDuration
		want  time.Duration
		ok    bool
		never bool
	}{
		{"720h", 720 * time.Hour, true, false},
		{"1h30m", 90 * time.Minute, true, false},
		{"0s", 0, true, false},
		{"Never", 0, false, true},
		{"", 0, false, false},
		{"99999999999999h", 0, false, false}, // longer than time.Duration holds: no limit
	} {
		got, ok := tc.in.Duration()
		if got != tc.want || ok != tc.ok || tc.in.IsNever() != tc.never {
			t.Errorf("%q: Duration() = %v, %v, IsNever() = %v; want %v, %v, %v", tc.in, got, ok, tc.in.IsNever(), tc.want, tc.ok, tc.never)
		}
	}
	if d, ok := v1.Duration("8h").Duration(); !ok || d != 8*time.Hour {
		t.Errorf("Duration(8h) = %v, %v", d, ok)
	}
	if _, ok := v1.Duration("").Duration(); ok {
		t.Error("empty Duration is ok")
	}
}

func TestToCore(t *testing.T) {
	r := v1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}, MinValues: ptr[int32](1)}
	core := r.ToCore()
	if core.Key != "a" || core.Operator != corev1.NodeSelectorOpIn || len(core.Values) != 1 || core.Values[0] != "x" {
		t.Errorf("ToCore() = %+v", core)
	}
	core.Values[0] = "changed"
	if r.Values[0] != "x" {
		t.Error("ToCore shares the values slice")
	}
	taint := v1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}.ToCore()
	if taint.Key != "k" || taint.Value != "v" || taint.Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("Taint.ToCore() = %+v", taint)
	}
}

// The CRD cannot tell a backwards range from a forwards one; Go parses the schedule with the
// cron parser the agent uses and rejects it, so Terraform reports it at plan time.
func TestScheduleGoAlsoRejectsWhatTheCronParserRejects(t *testing.T) {
	pool := budgetPool("5-1 * * * *")
	errs := pool.Validate()
	if len(errs) != 1 || errs[0].Field != "spec.disruption.budgets[0].schedule" {
		t.Fatalf("Validate() = %v, want one error at spec.disruption.budgets[0].schedule", errs)
	}
	if errs := budgetPool("0 9 * * MON-FRI").Validate(); len(errs) != 0 {
		t.Fatalf("Validate() = %v", errs)
	}
}

func budgetPool(schedule string) *v1.NodePool {
	pool := &v1.NodePool{}
	pool.Name = "general"
	pool.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Name: "default"}
	pool.Spec.Disruption = &v1.Disruption{ConsolidateAfter: "0s", Budgets: []v1.Budget{{
		Nodes: "1", Schedule: &schedule, Duration: ptr[v1.Duration]("1h"),
	}}}
	return pool
}

func TestNodeClaimUpdateComparesDefaultedSpecs(t *testing.T) {
	old := &v1.NodeClaim{}
	old.Name = "a"
	old.Spec.NodeClassRef = &v1.NodeClassReference{Name: "default"}
	claim := old.DeepCopy()
	claim.SetDefaults() // the API server would have stored the defaults
	if errs := claim.ValidateUpdate(old); len(errs) != 0 {
		t.Fatalf("ValidateUpdate() = %v, want none: only defaults differ", errs)
	}
}

func TestValidateNeedsAName(t *testing.T) {
	pool := budgetPool("@daily")
	pool.Name = ""
	if errs := pool.Validate(); len(errs) != 1 || errs[0].Field != "metadata.name" {
		t.Fatalf("Validate() = %v, want metadata.name required", errs)
	}
	pool.GenerateName = "general-"
	if errs := pool.Validate(); len(errs) != 0 {
		t.Fatalf("Validate() with generateName = %v", errs)
	}
}

func TestTooManyRequirements(t *testing.T) {
	pool := budgetPool("@daily")
	for range 101 {
		pool.Spec.Template.Spec.Requirements = append(pool.Spec.Template.Spec.Requirements,
			v1.NodeSelectorRequirementWithMinValues{Key: "team", Operator: corev1.NodeSelectorOpExists})
	}
	errs := pool.Validate()
	if len(errs) != 1 || errs[0].Field != "spec.template.spec.requirements" {
		t.Fatalf("Validate() = %v, want too many at spec.template.spec.requirements", errs)
	}
}

func ptr[T any](v T) *T { return &v }
