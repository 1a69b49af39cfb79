package resources

import (
	"math"
	"math/rand/v2"
	"testing"
)

// timesByDivision is Times without its multiplication shortcut: the
// reference the shortcut must agree with.
func timesByDivision(a, room Vector, limit int64) int64 {
	n := limit
	for i := range a {
		if a[i] <= 0 {
			if room[i] < 0 {
				return 0
			}
			continue
		}
		n = min(n, room[i]/a[i])
	}
	return max(n, 0)
}

// TestTimes checks how many copies of a request fit, on both sides of the
// shortcut that answers "all of limit" by multiplying: exact fits, one
// short, negative room, zero or negative limits, and products that
// overflow int64.
func TestTimes(t *testing.T) {
	big := int64(math.MaxInt64 / 3)
	for _, tc := range []struct {
		name        string
		a, room     Vector
		limit, want int64
	}{
		{"all fit", Vector{1000, 1 << 30, 1}, Vector{8000, 8 << 30, 110}, 4, 4},
		{"exactly limit", Vector{1000, 1 << 30, 1}, Vector{4000, 8 << 30, 110}, 4, 4},
		{"one short", Vector{1000, 1 << 30, 1}, Vector{3999, 8 << 30, 110}, 4, 3},
		{"memory binds", Vector{100, 3 << 30, 1}, Vector{8000, 8 << 30, 110}, 10, 2},
		{"pods bind", Vector{100, 1 << 20, 1}, Vector{8000, 8 << 30, 3}, 10, 3},
		{"negative room where requested", Vector{1000, 1, 1}, Vector{-1000, 10, 10}, 5, 0},
		{"negative room where not requested", Vector{1000, 1, 1, 0}, Vector{8000, 10, 10, -1}, 5, 0},
		{"zero limit", Vector{1000}, Vector{8000}, 0, 0},
		{"negative limit", Vector{1000}, Vector{8000}, -2, 0},
		{"product overflows", Vector{big, 0, 1}, Vector{math.MaxInt64, 0, 100}, 4, 3},
		{"huge limit", Vector{2, 0, 1}, Vector{10, 0, 100}, math.MaxInt64, 5},
		{"nothing requested", Vector{}, Vector{10}, 7, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Times(&tc.room, tc.limit); got != tc.want {
				t.Errorf("Times = %d, want %d", got, tc.want)
			}
			if ref := timesByDivision(tc.a, tc.room, tc.limit); ref != tc.want {
				t.Errorf("reference = %d, want %d (bad case)", ref, tc.want)
			}
		})
	}
}

// TestTimesMatchesDivision compares Times with the division reference on
// random requests, rooms and limits, small and near the int64 limits.
func TestTimesMatchesDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	amount := func() int64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return -rng.Int64N(1000)
		case 2:
			return math.MaxInt64 - rng.Int64N(1000)
		default:
			return rng.Int64N(10000)
		}
	}
	for range 20000 {
		var a, room Vector
		for d := range 4 {
			a[d], room[d] = amount(), amount()
		}
		limit := amount()
		if got, want := a.Times(&room, limit), timesByDivision(a, room, limit); got != want {
			t.Fatalf("%v.Times(%v, %d) = %d, want %d", a, room, limit, got, want)
		}
	}
}
