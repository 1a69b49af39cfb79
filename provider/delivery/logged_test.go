package delivery_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

// stubTarget answers every call with err and counts them; ListNames makes it a Lister.
type stubTarget struct {
	err   error
	calls int
}

func (s *stubTarget) Apply(context.Context, delivery.Object) error  { s.calls++; return s.err }
func (s *stubTarget) Get(context.Context, delivery.Object) error    { s.calls++; return s.err }
func (s *stubTarget) Delete(context.Context, delivery.Object) error { s.calls++; return s.err }
func (s *stubTarget) Describe() string                              { return "stub target" }
func (s *stubTarget) ListNames(context.Context, schema.GroupVersionKind, string) ([]string, error) {
	s.calls++
	return []string{"a", "b"}, s.err
}

// nonLister hides ListNames.
type nonLister struct{ delivery.Target }

func TestLoggedSaysWhatTenonDid(t *testing.T) {
	pool := &v1.NodePool{}
	pool.SetGroupVersionKind(v1.SchemeGroupVersion.WithKind("NodePool"))
	pool.Name = "default"
	tests := []struct {
		name    string
		err     error
		call    func(context.Context, delivery.Target) error
		level   string
		message string
		outcome string
	}{
		{"apply", nil, func(ctx context.Context, tg delivery.Target) error { return tg.Apply(ctx, pool) }, "info", "tenon: apply done", "done"},
		{"read", nil, func(ctx context.Context, tg delivery.Target) error { return tg.Get(ctx, pool) }, "debug", "tenon: read done", "done"},
		{"read gone", fmt.Errorf("NodePool %q: %w", "default", delivery.ErrNotFound), func(ctx context.Context, tg delivery.Target) error { return tg.Get(ctx, pool) }, "debug", "tenon: read found no object", "not found"},
		{"delete", nil, func(ctx context.Context, tg delivery.Target) error { return tg.Delete(ctx, pool) }, "info", "tenon: delete done", "done"},
		{"apply fails", errors.New("conflict"), func(ctx context.Context, tg delivery.Target) error { return tg.Apply(ctx, pool) }, "error", "tenon: apply failed", "failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			ctx := tflogtest.RootLogger(t.Context(), &out)
			stub := &stubTarget{err: tc.err}
			err := tc.call(ctx, delivery.Logged(stub))
			if !errors.Is(err, tc.err) || stub.calls != 1 {
				t.Fatalf("err = %v (want %v), calls = %d: the wrapper must forward once and return the target's error", err, tc.err, stub.calls)
			}
			entries, err := tflogtest.MultilineJSONDecode(&out)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 2 {
				t.Fatalf("want a line before and one after the call, got %v", entries)
			}
			last := entries[1]
			for k, want := range map[string]any{"@level": tc.level, "@message": tc.message, "kind": "NodePool", "name": "default", "target": "stub target", "outcome": tc.outcome} {
				if last[k] != want {
					t.Errorf("%s = %v, want %v (entry %v)", k, last[k], want, last)
				}
			}
			if tc.outcome == "failed" && last["error"] != "conflict" {
				t.Errorf("a failure must carry the error, got %v", last)
			}
		})
	}
}

func TestLoggedKeepsListing(t *testing.T) {
	if _, ok := delivery.Logged(&stubTarget{}).(delivery.Lister); !ok {
		t.Error("a logged Lister must stay a Lister: tenon_agent relies on it to refuse removing CRDs while nodes exist")
	}
	if _, ok := delivery.Logged(nonLister{&stubTarget{}}).(delivery.Lister); ok {
		t.Error("a logged target that cannot list must not claim it can")
	}
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(t.Context(), &out)
	names, err := delivery.Logged(&stubTarget{}).(delivery.Lister).ListNames(ctx, v1.SchemeGroupVersion.WithKind("NodeClaim"), "a=b")
	if err != nil || len(names) != 2 {
		t.Fatalf("ListNames = %v, %v", names, err)
	}
	entries, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil || len(entries) != 1 || entries[0]["count"] != float64(2) {
		t.Errorf("want one list line with count 2, got %v (%v)", entries, err)
	}
}
