package scheduling

import (
	"errors"
	"fmt"
)

// CompatibleOption changes how Compatible treats keys the receiver does not
// define.
type CompatibleOption func(*compatibleOptions)

type compatibleOptions struct {
	allowUndefined func(key string) bool
}

// WithAllowUndefinedWellKnownLabels lets the required side use well-known
// labels the receiver does not define, as when matching a pod against a pool
// whose instance types, zones and capacity types are resolved later.
// kubernetes.io/hostname stays required: a new node's name is unknown, so a
// pod pinned to a host must not look placeable on one.
func WithAllowUndefinedWellKnownLabels() CompatibleOption {
	return WithAllowUndefined(func(key string) bool {
		return key != LabelHostname && IsWellKnownLabel(key)
	})
}

// WithAllowUndefined lets the required side use the keys for which allowed
// returns true even when the receiver does not define them. A nil allowed
// allows nothing.
func WithAllowUndefined(allowed func(key string) bool) CompatibleOption {
	return func(o *compatibleOptions) {
		if allowed == nil {
			return
		}
		previous := o.allowUndefined
		o.allowUndefined = func(key string) bool {
			return allowed(key) || (previous != nil && previous(key))
		}
	}
}

// Compatible returns nil when what other requires can be met by what r
// allows, with Karpenter's semantics. The receiver is the offering side (a
// pool, an instance type, a node) and other the requiring side (a pod):
//
//   - for every key both define, the intersection must be non-empty (see
//     Intersects);
//   - a key only other defines is incompatible unless its requirement is
//     satisfied by an absent label (NotIn, DoesNotExist) or an option allows
//     it undefined;
//   - keys only r defines are fine.
//
// The error lists every failing key, sorted, each saying what is required
// and what is allowed.
func (r Requirements) Compatible(other Requirements, opts ...CompatibleOption) error {
	var o compatibleOptions
	for _, opt := range opts {
		opt(&o)
	}
	var errs []error
	for _, key := range other.Keys() {
		required := other[key]
		allowed, ok := r[key]
		if ok {
			if err := intersectError(key, allowed, required); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if op := required.Operator(); op == OpNotIn || op == OpDoesNotExist {
			continue
		}
		if o.allowUndefined != nil && o.allowUndefined(key) {
			continue
		}
		errs = append(errs, fmt.Errorf("key %s: requires %s, but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod%s",
			key, required.describe(), hint(key, r)))
	}
	return errors.Join(errs...)
}

// Allows reports whether Compatible would return nil, without building
// the error (nor its "did you mean" hint, which measures the edit distance
// to every known label): the fast check for hot loops such as deciding, per
// instance type, whether a daemonset that selects nodes by label runs on it.
func (r Requirements) Allows(other Requirements, opts ...CompatibleOption) bool {
	var o compatibleOptions
	for _, opt := range opts {
		opt(&o)
	}
	for key, required := range other {
		if allowed, ok := r[key]; ok {
			if !compatibleValues(allowed, required) {
				return false
			}
			continue
		}
		if op := required.Operator(); op == OpNotIn || op == OpDoesNotExist {
			continue
		}
		if o.allowUndefined == nil || !o.allowUndefined(key) {
			return false
		}
	}
	return true
}

// Intersects returns nil when, for every key both r and other define, some
// value satisfies both; keys only one side defines are ignored. An empty
// intersection is still fine when both sides accept an absent label (NotIn
// or DoesNotExist on each), since a node without the label satisfies both.
// The error lists every failing key, sorted, e.g.
// `key topology.kubernetes.io/zone: requires In [us-west-2a], allowed In [us-east-1a us-east-1b]`.
func (r Requirements) Intersects(other Requirements) error {
	if r.Overlaps(other) {
		return nil
	}
	var errs []error
	for _, key := range other.Keys() {
		if allowed, found := r[key]; found {
			if err := intersectError(key, allowed, other[key]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Overlaps reports whether Intersects would return nil, without building
// the error: the fast check for hot loops such as filtering instance types.
func (r Requirements) Overlaps(other Requirements) bool {
	small, large := r, other
	if len(large) < len(small) {
		small, large = large, small
	}
	for key, a := range small {
		if b, found := large[key]; found && !compatibleValues(a, b) {
			return false
		}
	}
	return true
}

func intersectError(key string, allowed, required Requirement) error {
	if compatibleValues(allowed, required) {
		return nil
	}
	return fmt.Errorf("key %s: requires %s, allowed %s", key, required.describe(), allowed.describe())
}

// compatibleValues reports whether two requirements on one key can both hold.
func compatibleValues(a, b Requirement) bool {
	return a.intersects(b) || (acceptsAbsent(a) && acceptsAbsent(b))
}

// acceptsAbsent reports whether a node without the label satisfies r.
func acceptsAbsent(r Requirement) bool {
	op := r.Operator()
	return op == OpNotIn || op == OpDoesNotExist
}
