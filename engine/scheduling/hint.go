package scheduling

import (
	"fmt"
	"slices"
)

// hint suggests, for a key the receiver does not define, the label the user
// probably meant: the Tenon name of a Karpenter label, or a defined or
// well-known key within a small edit distance or with the same name part.
// It returns "" when nothing is close.
func hint(key string, defined Requirements) string {
	if tenon, ok := FromKarpenterLabel(key); ok {
		return fmt.Sprintf(" (this is Karpenter's label; Tenon's is %s)", tenon)
	}
	known := wellKnownLabels()
	candidates := append(defined.Keys(), known[:]...)
	slices.Sort(candidates)
	// A quarter of the name part, at least one edit: close enough to be a
	// typo, far enough that unrelated keys in one domain are not suggested.
	best, bestDistance := "", max(1, len(labelName(key))/4)+1
	for _, candidate := range slices.Compact(candidates) {
		if candidate == key {
			continue
		}
		if d := editDistance(key, candidate); d < bestDistance {
			best, bestDistance = candidate, d
		}
	}
	if best == "" {
		for _, candidate := range candidates {
			if labelName(candidate) == labelName(key) && candidate != key {
				best = candidate
				break
			}
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
