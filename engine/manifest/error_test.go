package manifest

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  Error
		want string
	}{
		{Error{File: "f", Object: "Pod default/p", Field: "spec", Detail: "bad"}, "f: Pod default/p: spec: bad"},
		{Error{File: "f", Object: "document 2", Detail: "bad"}, "f: document 2: bad"},
		{Error{File: "f", Field: "resources[0]", Detail: "bad"}, "f: resources[0]: bad"},
		{Error{File: "f", Detail: "bad"}, "f: bad"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestFlatten(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	got := Flatten(errors.Join(a, errors.Join(b, c)))
	if fmt.Sprint(got) != "[a b c]" {
		t.Errorf("Flatten = %v, want [a b c]", got)
	}
	if got := Flatten(fmt.Errorf("wrapped: %w", a)); len(got) != 1 {
		t.Errorf("Flatten of a wrapped error = %v, want it alone", got)
	}
	if got := Flatten(nil); got != nil {
		t.Errorf("Flatten(nil) = %v", got)
	}
}
