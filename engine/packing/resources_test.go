package packing

import (
	"math"
	"math/rand/v2"
	"testing"
)

// timesByDivision is times without its multiplication shortcut: the
// reference the shortcut must agree with.
func timesByDivision(a, room vec, limit int64) int64 {
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
		a, room     vec
		limit, want int64
	}{
		{"all fit", vec{1000, 1 << 30, 1}, vec{8000, 8 << 30, 110}, 4, 4},
		{"exactly limit", vec{1000, 1 << 30, 1}, vec{4000, 8 << 30, 110}, 4, 4},
		{"one short", vec{1000, 1 << 30, 1}, vec{3999, 8 << 30, 110}, 4, 3},
		{"memory binds", vec{100, 3 << 30, 1}, vec{8000, 8 << 30, 110}, 10, 2},
		{"pods bind", vec{100, 1 << 20, 1}, vec{8000, 8 << 30, 3}, 10, 3},
		{"negative room where requested", vec{1000, 1, 1}, vec{-1000, 10, 10}, 5, 0},
		{"negative room where not requested", vec{1000, 1, 1, 0}, vec{8000, 10, 10, -1}, 5, 0},
		{"zero limit", vec{1000}, vec{8000}, 0, 0},
		{"negative limit", vec{1000}, vec{8000}, -2, 0},
		{"product overflows", vec{big, 0, 1}, vec{math.MaxInt64, 0, 100}, 4, 3},
		{"huge limit", vec{2, 0, 1}, vec{10, 0, 100}, math.MaxInt64, 5},
		{"nothing requested", vec{}, vec{10}, 7, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.times(&tc.room, tc.limit); got != tc.want {
				t.Errorf("times = %d, want %d", got, tc.want)
			}
			if ref := timesByDivision(tc.a, tc.room, tc.limit); ref != tc.want {
				t.Errorf("reference = %d, want %d (bad case)", ref, tc.want)
			}
		})
	}
}

// TestTimesMatchesDivision compares times with the division reference on
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
		var a, room vec
		for d := range 4 {
			a[d], room[d] = amount(), amount()
		}
		limit := amount()
		if got, want := a.times(&room, limit), timesByDivision(a, room, limit); got != want {
			t.Fatalf("%v.times(%v, %d) = %d, want %d", a, room, limit, got, want)
		}
	}
}
