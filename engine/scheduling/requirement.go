package scheduling

import (
	"math"
	"slices"
	"strconv"
)

// Requirement is the set of values one label key may take.
//
// It is either a finite set of allowed values (In; empty means DoesNotExist)
// or the complement of a finite set of excluded values (NotIn, Exists),
// optionally narrowed to integers within inclusive bounds (Gt, Lt, Gte, Lte).
// Values are compared as strings; bounds parse a value as a base-10 int64, as
// Kubernetes does for Gt and Lt, so "05" and "+5" are integers too.
//
// A Requirement is immutable: every method returns a new value and the zero
// value is the empty set on the empty key. Build one with In, NotIn, Exists,
// DoesNotExist, Gt, Lt, Gte, Lte or ParseRequirement.
type Requirement struct {
	// Key is the label key.
	Key string
	// MinValues, when set, is the least number of distinct values the key
	// must keep (Karpenter's minValues): the packer must leave at least this
	// many instance-type options for a claim. Intersection keeps the larger.
	MinValues *int

	complement bool
	// values holds the allowed values, or the excluded ones when complement
	// is set; sorted and duplicate-free.
	values []string
	// hasLower/hasUpper bound a complement to integers in [lower, upper].
	// Canonical form: a bound at the int64 limit is dropped, except that
	// "any integer" is kept as lower = MinInt64; concrete sets carry none.
	hasLower, hasUpper bool
	lower, upper       int64
}

// In returns the requirement that the label has one of values. With no values
// it is the empty set, the same as DoesNotExist.
func In(key string, values ...string) Requirement {
	return Requirement{Key: NormalizeLabelKey(key), values: sortedSet(values)}
}

// NotIn returns the requirement that the label does not have any of values; an
// absent label satisfies it, as in Kubernetes.
func NotIn(key string, values ...string) Requirement {
	return Requirement{Key: NormalizeLabelKey(key), complement: true, values: sortedSet(values)}
}

// Exists returns the requirement that the label is present with any value.
func Exists(key string) Requirement {
	return Requirement{Key: NormalizeLabelKey(key), complement: true}
}

// DoesNotExist returns the requirement that the label is absent: the empty set.
func DoesNotExist(key string) Requirement {
	return Requirement{Key: NormalizeLabelKey(key)}
}

// Gt returns the requirement that the label is an integer greater than n.
func Gt(key string, n int64) Requirement {
	if n == math.MaxInt64 {
		return DoesNotExist(key)
	}
	return bounded(key, true, n+1, false, 0)
}

// Gte returns the requirement that the label is an integer greater than or
// equal to n.
func Gte(key string, n int64) Requirement {
	return bounded(key, true, n, false, 0)
}

// Lt returns the requirement that the label is an integer less than n.
func Lt(key string, n int64) Requirement {
	if n == math.MinInt64 {
		return DoesNotExist(key)
	}
	return bounded(key, false, 0, true, n-1)
}

// Lte returns the requirement that the label is an integer less than or equal
// to n.
func Lte(key string, n int64) Requirement {
	return bounded(key, false, 0, true, n)
}

func bounded(key string, hasLower bool, lower int64, hasUpper bool, upper int64) Requirement {
	r := Requirement{
		Key:        NormalizeLabelKey(key),
		complement: true,
		hasLower:   hasLower, lower: lower,
		hasUpper: hasUpper, upper: upper,
	}
	return r.canonical()
}

// WithMinValues returns a copy of r that must keep at least n distinct values.
func (r Requirement) WithMinValues(n int) Requirement {
	r.MinValues = &n
	return r
}

// Has reports whether the requirement allows value.
func (r Requirement) Has(value string) bool {
	if !r.complement {
		return contains(r.values, value)
	}
	return !contains(r.values, value) && r.withinBounds(value)
}

// Len returns the number of allowed values: the size of a finite set (0 for
// DoesNotExist), or math.MaxInt for a complement, which allows infinitely many.
func (r Requirement) Len() int {
	if r.complement {
		return math.MaxInt
	}
	return len(r.values)
}

// Values returns the allowed values of a finite (In) requirement, sorted. It
// returns nil for a complement, whose allowed values cannot be listed.
func (r Requirement) Values() []string {
	if r.complement {
		return nil
	}
	return slices.Clone(r.values)
}

// Operator names the shape of the set: In (finite, non-empty), DoesNotExist
// (empty), NotIn (all strings but some), or Exists (all strings, or integers
// within bounds, possibly minus some). A bounded set reports Exists because it
// needs the label to be present.
func (r Requirement) Operator() string {
	switch {
	case !r.complement && len(r.values) == 0:
		return OpDoesNotExist
	case !r.complement:
		return OpIn
	case r.isBounded() || len(r.values) == 0:
		return OpExists
	default:
		return OpNotIn
	}
}

// Any returns one allowed value, chosen deterministically: the smallest of a
// finite set, or the integer nearest the lower (else upper) bound of a bounded
// set. It returns false for the empty set, for an unbounded complement (no
// value is more meaningful than another), and for a bounded set whose every
// integer is excluded in its plain decimal form.
func (r Requirement) Any() (string, bool) {
	switch {
	case !r.complement:
		if len(r.values) == 0 {
			return "", false
		}
		return r.values[0], true
	case !r.isBounded():
		return "", false
	case r.hasLower:
		for v := r.lower; !r.hasUpper || v <= r.upper; v++ {
			if s := strconv.FormatInt(v, 10); !contains(r.values, s) {
				return s, true
			}
			if v == math.MaxInt64 {
				break
			}
		}
	default:
		for v := r.upper; ; v-- {
			if s := strconv.FormatInt(v, 10); !contains(r.values, s) {
				return s, true
			}
			if v == math.MinInt64 {
				break
			}
		}
	}
	return "", false
}

// Equal reports whether r and other are the same requirement: same key, same
// set of allowed values and same MinValues.
func (r Requirement) Equal(other Requirement) bool {
	return r.Key == other.Key &&
		r.complement == other.complement &&
		slices.Equal(r.values, other.values) &&
		r.hasLower == other.hasLower && (!r.hasLower || r.lower == other.lower) &&
		r.hasUpper == other.hasUpper && (!r.hasUpper || r.upper == other.upper) &&
		equalIntPtr(r.MinValues, other.MinValues)
}

func (r Requirement) isBounded() bool {
	return r.hasLower || r.hasUpper
}

// withinBounds reports whether value satisfies the integer bounds, if any.
func (r Requirement) withinBounds(value string) bool {
	if !r.isBounded() {
		return true
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return false
	}
	return (!r.hasLower || n >= r.lower) && (!r.hasUpper || n <= r.upper)
}

// canonical brings r to its unique form so that equal sets compare Equal:
// concrete sets carry no bounds, crossed bounds become the empty set, bounds at
// the int64 limits are dropped (keeping lower = MinInt64 alone for "any
// integer"), and excluded values the bounds already rule out are dropped.
func (r Requirement) canonical() Requirement {
	if !r.complement {
		r.hasLower, r.hasUpper, r.lower, r.upper = false, false, 0, 0
		return r
	}
	if !r.isBounded() {
		return r
	}
	lower, upper := int64(math.MinInt64), int64(math.MaxInt64)
	if r.hasLower {
		lower = r.lower
	}
	if r.hasUpper {
		upper = r.upper
	}
	if lower > upper {
		return Requirement{Key: r.Key, MinValues: r.MinValues}
	}
	r.hasLower, r.lower = lower != math.MinInt64, lower
	r.hasUpper, r.upper = upper != math.MaxInt64, upper
	if !r.hasUpper {
		r.upper = 0
	}
	if !r.hasLower && !r.hasUpper {
		r.hasLower, r.lower = true, math.MinInt64
	} else if !r.hasLower {
		r.lower = 0
	}
	r.values = keep(r.values, r.withinBounds)
	return r
}

func equalIntPtr(a, b *int) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// maxIntPtr returns a fresh pointer to the larger of a and b, or nil when
// both are nil, so results never alias their inputs.
func maxIntPtr(a, b *int) *int {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		v := *b
		return &v
	case b == nil:
		v := *a
		return &v
	default:
		v := max(*a, *b)
		return &v
	}
}

const (
	minInt64 = int64(math.MinInt64)
	maxInt64 = int64(math.MaxInt64)
)
