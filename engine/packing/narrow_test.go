package packing

import (
	"context"
	"slices"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// narrowResult is a result whose claims buy the given types in pool
// "default", each holding the given pods.
func narrowResult(cost, bound float64, claims ...[2]string) *Result {
	r := &Result{CostPerHour: cost, LowerBoundPerHour: bound}
	for _, c := range claims {
		r.Claims = append(r.Claims, &Claim{Pool: "default", Pods: []string{c[1]},
			Options: []InstanceOption{{InstanceType: c[0], PricePerHour: cost / float64(len(claims))}}})
	}
	return r
}

// TestNarrow drives narrow with a fake solver that prices each set of
// banned types, and checks which answer it keeps, which sub-pools it
// tries, and that it keeps the first answer's lower bound.
func TestNarrow(t *testing.T) {
	pool := statetest.Pool("default")
	types := []string{"m5.large", "m5.xlarge", "c5.large"}
	pool.InstanceTypes = slices.DeleteFunc(pool.InstanceTypes, func(it *catalog.InstanceType) bool { return !slices.Contains(types, it.Name) })
	if len(pool.InstanceTypes) != len(types) {
		t.Fatalf("catalog lacks one of %v", types)
	}
	snap := statetest.Snapshot([]*state.Pool{pool}, nil, nil)
	first := narrowResult(3, 1, [2]string{"m5.xlarge", "a"}, [2]string{"m5.large", "b"})
	for _, tc := range []struct {
		name string
		// answer is the fake solver's result on a sub-pool, by the
		// types left; nil means first's cost, unchanged.
		answer func(left []string) *Result
		// first, when set, replaces the first answer.
		first     *Result
		wantCost  float64
		wantSolve int
	}{{
		name:   "no sub-pool is cheaper: every type the answer buys is tried once each way",
		answer: func([]string) *Result { return nil },
		// The pool less m5.large, then m5.xlarge alone (the answer's
		// own types less m5.large); the pool less m5.xlarge, then
		// m5.large alone.
		wantCost:  3,
		wantSolve: 4,
	}, {
		name: "banning the dearest type helps, and the search goes on from there",
		answer: func(left []string) *Result {
			if !slices.Contains(left, "m5.xlarge") && slices.Contains(left, "m5.large") {
				return narrowResult(2, 0.5, [2]string{"c5.large", "a"}, [2]string{"m5.large", "b"})
			}
			return nil
		},
		// m5.large (tied, first by name) both ways, then the pool less
		// m5.xlarge: 2; then c5.large and m5.large are banned on top
		// (m5.large alone, then c5.large alone), no cheaper; the
		// answer's own types less either are those same sub-pools,
		// solved once.
		wantCost:  2,
		wantSolve: 5,
	}, {
		name: "a cheaper answer that puts other pods on new claims is refused",
		answer: func(left []string) *Result {
			if !slices.Contains(left, "m5.xlarge") {
				return narrowResult(1, 0.5, [2]string{"c5.large", "a"})
			}
			return nil
		},
		wantCost:  3,
		wantSolve: 4,
	}, {
		name: "an answer at its lower bound is the cheapest: no sub-pool is solved",
		answer: func([]string) *Result {
			return narrowResult(1, 0.5, [2]string{"c5.large", "a"}, [2]string{"c5.large", "b"})
		},
		first:     narrowResult(3, 3, [2]string{"m5.xlarge", "a"}, [2]string{"m5.large", "b"}),
		wantCost:  3,
		wantSolve: 0,
	}, {
		name: "the search stops once the answer kept reaches the bound",
		answer: func(left []string) *Result {
			if !slices.Contains(left, "m5.xlarge") {
				return narrowResult(2, 0.5, [2]string{"c5.large", "a"}, [2]string{"m5.large", "b"})
			}
			return nil
		},
		first: narrowResult(3, 2, [2]string{"m5.xlarge", "a"}, [2]string{"m5.large", "b"}),
		// m5.large (tied, first by name) both ways, then the pool less
		// m5.xlarge: 2, the bound; the search would go on to c5.large
		// otherwise.
		wantCost:  2,
		wantSolve: 3,
	}, {
		name: "the answer's own types less one are tried where the pool less that one is no cheaper",
		answer: func(left []string) *Result {
			// Only m5.large alone leads the fake solve to the cheaper
			// answer: c5.large, which the answer does not buy, leads
			// it astray whenever it is in the pool.
			if slices.Equal(left, []string{"m5.large"}) {
				return narrowResult(2, 0.5, [2]string{"m5.large", "a"}, [2]string{"m5.large", "b"})
			}
			return nil
		},
		// m5.large both ways, the pool less m5.xlarge (c5.large still
		// in it), then m5.large alone: 2. From there every sub-pool
		// left has no type.
		wantCost:  2,
		wantSolve: 4,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			first := first
			if tc.first != nil {
				first = tc.first
			}
			solves := 0
			got, _ := narrow(context.Background(), snap, first, func(sub *state.Snapshot) (*Result, error) {
				solves++
				var left []string
				for _, it := range sub.Pools[0].InstanceTypes {
					left = append(left, it.Name)
				}
				if len(left) == 0 {
					t.Fatal("narrow solved a pool with no type")
				}
				if r := tc.answer(left); r != nil {
					return r, nil
				}
				return narrowResult(3, 0.5, [2]string{"m5.xlarge", "a"}, [2]string{"m5.large", "b"}), nil
			})
			if got.CostPerHour != tc.wantCost || solves != tc.wantSolve {
				t.Errorf("kept %.2f $/h after %d solves, want %.2f after %d", got.CostPerHour, solves, tc.wantCost, tc.wantSolve)
			}
			if got.LowerBoundPerHour != first.LowerBoundPerHour {
				t.Errorf("bound %.2f, want the first answer's %.2f (the pool's, not a sub-pool's)", got.LowerBoundPerHour, first.LowerBoundPerHour)
			}
			if len(snap.Pools[0].InstanceTypes) != len(types) {
				t.Errorf("narrow changed the caller's pool: %d types left", len(snap.Pools[0].InstanceTypes))
			}
		})
	}
}

// TestNarrowBudgetAndErrors checks that narrow stops after narrowSolves
// solves even when every one is cheaper, and that a failed solve (the
// caller's deadline) ends the search with the best answer so far.
func TestNarrowBudgetAndErrors(t *testing.T) {
	pool := statetest.Pool("default")
	snap := statetest.Snapshot([]*state.Pool{pool}, nil, nil)
	cost := 100.0
	solves := 0
	// Every answer is a little cheaper and buys a type not yet banned;
	// with fail set, the solve after the second fails.
	fail := false
	next := func(*state.Snapshot) (*Result, error) {
		solves++
		if fail && solves > 2 {
			return nil, context.DeadlineExceeded
		}
		cost--
		return narrowResult(cost, 1, [2]string{pool.InstanceTypes[solves].Name, "a"}), nil
	}
	got, _ := narrow(context.Background(), snap, narrowResult(cost, 1, [2]string{pool.InstanceTypes[0].Name, "a"}), next)
	if solves != narrowSolves || got.CostPerHour != 100-narrowSolves {
		t.Errorf("%d solves, kept %.0f $/h; want %d solves and %d $/h", solves, got.CostPerHour, narrowSolves, 100-narrowSolves)
	}
	cost, solves, fail = 100, 0, true
	got, _ = narrow(context.Background(), snap, narrowResult(cost, 1, [2]string{pool.InstanceTypes[0].Name, "a"}), next)
	if solves != 3 || got == nil || got.CostPerHour != 98 {
		t.Errorf("after a failed solve: %d solves, kept %v; want 3 solves and the 98 $/h answer", solves, got)
	}
}

// TestFillBansRetype checks what refit relies on: with a type banned
// from the fill (options.fillBans) the fill opens another, and the
// improve pass still retypes the claim to the banned type when it holds
// the pods for less; a solve on the pool less that type cannot. It also
// checks refit keeps only a cheaper answer that places the same pods.
func TestFillBansRetype(t *testing.T) {
	pool := statetest.Pool("default")
	types := []string{"m5.large", "m5.2xlarge"}
	pool.InstanceTypes = slices.DeleteFunc(pool.InstanceTypes, func(it *catalog.InstanceType) bool { return !slices.Contains(types, it.Name) })
	if len(pool.InstanceTypes) != len(types) {
		t.Fatalf("catalog lacks one of %v", types)
	}
	snap := statetest.Snapshot([]*state.Pool{pool}, nil, nil)
	pods := []*state.Pod{statetest.Pod("a", "500m", "1Gi"), statetest.Pod("b", "500m", "1Gi")}
	bans := map[ban]bool{{"default", "m5.large"}: true}
	ctx := context.Background()
	whole, err := solve(ctx, snap, pods, WithoutLowerBound())
	if err != nil {
		t.Fatal(err)
	}
	sub, err := solve(ctx, without(snap, bans), pods, WithoutLowerBound())
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := solve(ctx, snap, pods, WithoutLowerBound(), func(o *options) { o.fillBans = bans })
	if err != nil {
		t.Fatal(err)
	}
	bought := func(r *Result) []string {
		var out []string
		for _, c := range r.Claims {
			out = append(out, c.Chosen().InstanceType)
		}
		return out
	}
	if got := bought(whole); !slices.Equal(got, []string{"m5.large"}) {
		t.Fatalf("the whole pool buys %v, want one m5.large", got)
	}
	if got := bought(sub); !slices.Equal(got, []string{"m5.2xlarge"}) {
		t.Fatalf("the pool less m5.large buys %v, want one m5.2xlarge", got)
	}
	if got := bought(fitted); !slices.Equal(got, []string{"m5.large"}) || fitted.CostPerHour != whole.CostPerHour {
		t.Errorf("with m5.large banned from the fill only: %v at %.4f $/h, want one m5.large at %.4f", got, fitted.CostPerHour, whole.CostPerHour)
	}
	sub.LowerBoundPerHour = 0.01
	if got := refit(sub, bans, func() (*Result, error) { return fitted, nil }); got != fitted || got.LowerBoundPerHour != 0.01 {
		t.Errorf("refit kept %.4f $/h (bound %.2f), want the refitted %.4f with the bound of the answer it replaces", got.CostPerHour, got.LowerBoundPerHour, fitted.CostPerHour)
	}
	if got := refit(sub, nil, func() (*Result, error) { t.Fatal("refit solved with no bans"); return nil, nil }); got != sub {
		t.Error("refit changed an answer that came from the whole pool")
	}
	dearer := *sub
	dearer.CostPerHour = sub.CostPerHour * 2
	if got := refit(sub, bans, func() (*Result, error) { return &dearer, nil }); got != sub {
		t.Error("refit kept a dearer answer")
	}
}
