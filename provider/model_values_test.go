package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// defaultedObject is an API object that fills the defaults its CRD would.
type defaultedObject interface {
	apiObject
	SetDefaults()
}

// checkRoundTrip: the model converts to a valid object that already holds the CRD's defaults
// (as a plan does, so that apply changes nothing the plan did not show), and back to the same
// model. Status is computed from the object, not from the model, so it is left out.
func checkRoundTrip[M any, O defaultedObject](t *testing.T, kind apiKind[M, O], model M) {
	t.Helper()
	obj, errs := kind.toAPI(&model)
	if len(errs) > 0 {
		t.Fatalf("toAPI: %v", errs)
	}
	if verrs := obj.Validate(); len(verrs) > 0 {
		t.Fatalf("the model converts to an invalid %s: %v", kind.name, verrs)
	}
	before := obj.DeepCopyObject()
	obj.SetDefaults()
	if diff := cmp.Diff(before, obj); diff != "" {
		t.Errorf("the model lacks CRD defaults (-model +defaulted):\n%s", diff)
	}
	got := kind.fromAPI(obj, &model)
	if diff := cmp.Diff(model, got, cmpopts.IgnoreFields(model, "Status")); diff != "" {
		t.Errorf("round trip changed the model (-want +got):\n%s", diff)
	}
}
