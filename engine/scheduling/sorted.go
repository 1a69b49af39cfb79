package scheduling

import (
	"slices"
	"sort"
)

// The value sets of a Requirement are sorted, duplicate-free string slices:
// they are immutable once built, iterate deterministically, and intersect by a
// linear merge.

// sortedSet returns the values sorted and without duplicates, in a new slice.
func sortedSet(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

// contains reports whether the sorted set holds value.
func contains(set []string, value string) bool {
	i := sort.SearchStrings(set, value)
	return i < len(set) && set[i] == value
}

// intersectSets returns the values both sorted sets hold.
func intersectSets(a, b []string) []string {
	var out []string
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// overlaps reports whether the sorted sets share a value, without allocating.
func overlaps(a, b []string) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			return true
		}
	}
	return false
}

// unionSets returns the values either sorted set holds.
func unionSets(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	out = append(out, b[j:]...)
	if len(out) == 0 {
		return nil
	}
	return out
}

// keep returns the values of the sorted set for which allowed is true.
func keep(set []string, allowed func(string) bool) []string {
	var out []string
	for _, v := range set {
		if allowed(v) {
			out = append(out, v)
		}
	}
	return out
}
