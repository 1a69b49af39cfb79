package packing

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAndIntoIsAnd checks that andInto computes what and computes, into a
// scratch set or in place, for sets of equal and of different lengths,
// and leaves the other operand alone.
func TestAndIntoIsAnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 4))
	random := func(n int) bitset {
		b := make(bitset, n)
		for i := range b {
			b[i] = rng.Uint64()
		}
		return b
	}
	cases := []struct {
		name   string
		lb, lo int
	}{
		{"same length", 3, 3},
		{"shorter operand", 4, 2},
		{"longer operand", 2, 4},
		{"empty operand", 3, 0},
		{"empty receiver", 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for range 50 {
				b, o := random(tc.lb), random(tc.lo)
				want := b.and(o)
				oBefore := slices.Clone(o)
				if got := b.andInto(random(1), o); !slices.Equal(got, want) {
					t.Fatalf("andInto a small scratch: %x, want %x", got, want)
				}
				scratch := make(bitset, 0, 8)
				if got := b.andInto(scratch, o); !slices.Equal(got, want) || (len(got) > 0 && &got[0] != &scratch[:1][0]) {
					t.Fatalf("andInto a large scratch: %x, want %x in the scratch's array", got, want)
				}
				in := slices.Clone(b)
				if got := in.andInto(in, o); !slices.Equal(got, want) {
					t.Fatalf("andInto in place: %x, want %x", got, want)
				}
				if !slices.Equal(o, oBefore) {
					t.Fatalf("the operand changed: %x, was %x", o, oBefore)
				}
			}
		})
	}
}

// TestOwnedOnlyAfterANewSet checks that owned tells a set and made from
// one it shares, which must never be narrowed in place, from a new one.
func TestOwnedOnlyAfterANewSet(t *testing.T) {
	all := bitset{0b1111, 0b1}
	other := bitset{0b0101, 0b1}
	if owned(all.and(all), all) {
		t.Error("and of a set with itself returns the set, which is not owned")
	}
	narrowed := all.and(other)
	if !owned(narrowed, all) {
		t.Error("and of two sets makes a new set, which is owned")
	}
	narrowed.andInto(narrowed, bitset{0b0001, 0})
	if !slices.Equal(all, bitset{0b1111, 0b1}) || !slices.Equal(other, bitset{0b0101, 0b1}) {
		t.Errorf("narrowing an owned set in place changed its sources: %x %x", all, other)
	}
	if owned(bitset{}, bitset{}) {
		t.Error("an empty set is never owned")
	}
}
