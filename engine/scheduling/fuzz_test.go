package scheduling_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// fuzzInput turns fuzz bytes into requirements on one key, drawing values
// and bounds from small ranges so that the generated sets overlap often.
type fuzzInput struct{ data []byte }

func (in *fuzzInput) next() byte {
	if len(in.data) == 0 {
		return 0
	}
	b := in.data[0]
	in.data = in.data[1:]
	return b
}

func fuzzValues() []string {
	return []string{"a", "b", "c", "", "0", "1", "2", "3", "5", "8", "05", "+3", "-2", "10",
		"-9223372036854775808", "9223372036854775807", "x1"}
}

func (in *fuzzInput) bound() int64 {
	switch b := in.next(); b % 32 {
	case 30:
		return math.MinInt64
	case 31:
		return math.MaxInt64
	default:
		return int64(b%30) - 10
	}
}

func (in *fuzzInput) raw() scheduling.Requirement {
	op := in.next() % 8
	var values []string
	for n := in.next() % 5; n > 0; n-- {
		values = append(values, fuzzValues()[int(in.next())%len(fuzzValues())])
	}
	var r scheduling.Requirement
	switch op {
	case 0:
		r = scheduling.In(key, values...)
	case 1:
		r = scheduling.NotIn(key, values...)
	case 2:
		r = scheduling.Exists(key)
	case 3:
		r = scheduling.DoesNotExist(key)
	case 4:
		r = scheduling.Gt(key, in.bound())
	case 5:
		r = scheduling.Lt(key, in.bound())
	case 6:
		r = scheduling.Gte(key, in.bound())
	default:
		r = scheduling.Lte(key, in.bound())
	}
	if m := in.next() % 4; m > 0 {
		r = r.WithMinValues(int(m))
	}
	return r
}

// requirement returns a raw requirement or the intersection of two, to reach
// compound shapes such as "Gt 1 Lt 9 NotIn [5]".
func (in *fuzzInput) requirement() scheduling.Requirement {
	r := in.raw()
	if in.next()%2 == 1 {
		r = r.Intersection(in.raw())
	}
	return r
}

func fuzzProbes() []string {
	probes := append(fuzzValues(), "007", "+0", "-0", "1e3", " 1", "99999999999999999999",
		"9223372036854775806", "-9223372036854775807", "d")
	for i := -12; i <= 22; i++ {
		probes = append(probes, strconv.Itoa(i))
	}
	return probes
}

func fuzzSeeds(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{0, 2, 1, 5, 0, 0, 1, 2, 4, 0},
		{1, 3, 4, 5, 6, 0, 1, 4, 13, 2, 0},
		{4, 12, 1, 1, 5, 20, 0, 0, 6, 15, 0, 1, 1, 1, 7},
		{6, 30, 0, 0, 7, 31, 0, 1, 1, 2, 16, 15, 0},
		{5, 0, 2, 0, 4, 31, 0, 0, 3, 0},
		{0, 4, 4, 5, 6, 7, 1, 0, 7, 13, 0, 1, 4, 9, 0},
		{1, 2, 14, 15, 0, 1, 6, 10, 0, 1, 7, 10, 0, 0},
	} {
		f.Add(seed)
	}
}

// FuzzIntersection checks the laws of Requirement.Intersection on random
// requirements: exact (a value is in A∩B iff it is in A and B, which also
// means it never widens), commutative, idempotent and associative, with
// results in canonical form (Equal, not just the same on the probes), and
// that Specs and Any agree with the set.
func FuzzIntersection(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{data: data}
		a, b, c := in.requirement(), in.requirement(), in.requirement()
		ab, ba := a.Intersection(b), b.Intersection(a)

		for _, v := range fuzzProbes() {
			if got, want := ab.Has(v), a.Has(v) && b.Has(v); got != want {
				t.Fatalf("(%s) ∩ (%s) = %s: Has(%q) = %v, want %v", a, b, ab, v, got, want)
			}
			if ab.Len() == 0 && ab.Has(v) {
				t.Fatalf("%s has Len 0 but allows %q", ab, v)
			}
		}
		if !ab.Equal(ba) {
			t.Fatalf("not commutative: (%s) ∩ (%s) = %s, reversed %s", a, b, ab, ba)
		}
		for _, r := range []scheduling.Requirement{a, b, c, ab} {
			if rr := r.Intersection(r); !rr.Equal(r) {
				t.Fatalf("not idempotent: %s ∩ itself = %s", r, rr)
			}
		}
		if left, right := ab.Intersection(c), a.Intersection(b.Intersection(c)); !left.Equal(right) {
			t.Fatalf("not associative: ((%s) ∩ (%s)) ∩ (%s) = %s, but (%s) ∩ ((%s) ∩ (%s)) = %s", a, b, c, left, a, b, c, right)
		}
		for _, r := range []scheduling.Requirement{a, ab} {
			if v, ok := r.Any(); ok && !r.Has(v) {
				t.Fatalf("%s: Any() = %q, which it does not allow", r, v)
			}
			if v, ok := r.Any(); r.Len() == 0 && ok {
				t.Fatalf("%s is empty but Any() = %q", r, v)
			}
			if r.MinValues != nil && *r.MinValues > r.Len() {
				continue // unsatisfiable minValues: valid state, but not valid input
			}
			back, err := scheduling.RequirementsFromSpecs(r.Specs()...)
			if err != nil {
				t.Fatalf("%s: Specs() %v do not parse: %v", r, r.Specs(), err)
			}
			if !back[key].Equal(r) {
				t.Fatalf("%s: Specs() %v parse back to %s", r, r.Specs(), back[key])
			}
		}
	})
}

// FuzzIntersects checks that Requirements.Intersects and Compatible agree
// with Intersection: two requirements on one key intersect iff their
// intersection is non-empty or both accept an absent label; a key only the
// required side defines is compatible iff it accepts an absent label.
func FuzzIntersects(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{data: data}
		a, b := in.requirement(), in.requirement()
		node, pod := scheduling.NewRequirements(a), scheduling.NewRequirements(b)

		absentOK := func(r scheduling.Requirement) bool {
			return r.Operator() == scheduling.OpNotIn || r.Operator() == scheduling.OpDoesNotExist
		}
		want := a.Intersection(b).Len() > 0 || (absentOK(a) && absentOK(b))
		err := node.Intersects(pod)
		if (err == nil) != want {
			t.Fatalf("(%s).Intersects(%s) = %v, want ok=%v", a, b, err, want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "key "+key+": requires ") {
			t.Fatalf("error does not name the key: %v", err)
		}
		if rev := pod.Intersects(node); (rev == nil) != (err == nil) {
			t.Fatalf("Intersects is not symmetric: %v vs %v", err, rev)
		}
		if compat := node.Compatible(pod); (compat == nil) != (err == nil) {
			t.Fatalf("Compatible disagrees with Intersects on a shared key: %v vs %v", compat, err)
		}
		undefined := scheduling.NewRequirements(scheduling.Exists("example.com/other"))
		if compat := undefined.Compatible(pod); (compat == nil) != absentOK(b) {
			t.Fatalf("Compatible with %s undefined = %v, want ok=%v", b, compat, absentOK(b))
		}
	})
}
