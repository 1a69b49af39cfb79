package scheduling

// Intersection returns the requirement allowing exactly the values both r and
// other allow, with the larger MinValues. The result keeps r's key; callers
// intersect requirements on the same key.
func (r Requirement) Intersection(other Requirement) Requirement {
	out := Requirement{Key: r.Key, MinValues: maxIntPtr(r.MinValues, other.MinValues)}
	switch {
	case r.complement && other.complement:
		// (U∖A ∩ bounds) ∩ (U∖B ∩ bounds') = U∖(A∪B) ∩ (bounds ∩ bounds')
		out.complement = true
		out.values = unionSets(r.values, other.values)
		out.hasLower, out.lower = tighterBound(r.hasLower, r.lower, other.hasLower, other.lower, greater)
		out.hasUpper, out.upper = tighterBound(r.hasUpper, r.upper, other.hasUpper, other.upper, lesser)
		return out.canonical()
	case r.complement:
		out.values = keep(other.values, r.Has)
	case other.complement:
		out.values = keep(r.values, other.Has)
	default:
		out.values = intersectSets(r.values, other.values)
	}
	return out
}

// intersects reports whether r∩other is non-empty without building it.
func (r Requirement) intersects(other Requirement) bool {
	switch {
	case r.complement && other.complement:
		// A complement excludes finitely many strings from an infinite set
		// (every integer has infinitely many spellings: 5, 05, +5), so the
		// intersection is empty only when the bounds do not overlap.
		if !r.isBounded() || !other.isBounded() {
			return true
		}
		_, lower := tighterBound(r.hasLower, r.lower, other.hasLower, other.lower, greater)
		_, upper := tighterBound(r.hasUpper, r.upper, other.hasUpper, other.upper, lesser)
		hasUpper := r.hasUpper || other.hasUpper
		hasLower := r.hasLower || other.hasLower
		return !hasLower || !hasUpper || lower <= upper
	case r.complement:
		return anyOf(other.values, r.Has)
	case other.complement:
		return anyOf(r.values, other.Has)
	default:
		return overlaps(r.values, other.values)
	}
}

// tighterBound combines two optional bounds with pick (max for lower bounds,
// min for upper ones).
func tighterBound(hasA bool, a int64, hasB bool, b int64, pick func(int64, int64) int64) (bool, int64) {
	switch {
	case hasA && hasB:
		return true, pick(a, b)
	case hasA:
		return true, a
	default:
		return hasB, b
	}
}

func anyOf(values []string, allowed func(string) bool) bool {
	for _, v := range values {
		if allowed(v) {
			return true
		}
	}
	return false
}

func greater(a, b int64) int64 { return max(a, b) }

func lesser(a, b int64) int64 { return min(a, b) }
