package packing

import "sync/atomic"

// DefaultMaxOptions caps how many instance-type options a claim lists when
// no minValues needs more.
const DefaultMaxOptions = 60

// Option configures Solve.
type Option func(*options)

type options struct {
	maxOptions int
	podValues  bool
	// valueRounds, when positive, values pods by the assignment LP's duals
	// (exactValues in fill.go), with at most that many rounds of column
	// generation per valuation, instead of by the quick ascent.
	valueRounds int
	// strategy selects one fill strategy by index; -1 tries them all.
	strategy int
	// worth is the chosen strategy's exponent.
	worth float64
	// eagerCliques gives clique members their own sized nodes from
	// minEagerClique members on.
	eagerCliques bool
	// noImprove skips the local-improvement pass (improve.go), for tests
	// that measure what it gains.
	noImprove bool
	// plan, when positive, opens the claims of a configuration-LP plan
	// (plan.go) with planEfforts[plan-1] before the greedy fill.
	plan int
	// cache, when set, keeps compiled pools and bound pods' loads across
	// Solves (see Cache).
	cache *Cache
	// noBound skips the lower bound (Result.LowerBoundPerHour stays 0).
	noBound bool
	// noEmptyProof runs every knapsack search of a plan's pricing, even
	// those provenEmpty skips, for tests that check the skip changes
	// nothing.
	noEmptyProof bool
	// noSharedPlans makes each strategy run its plan's first column
	// generation itself (see planStarts), for tests that check sharing
	// it changes nothing.
	noSharedPlans bool
	// noOfferSkip makes claimOut scan a claim's options from the zone's
	// cheapest offering rather than from the claim's own, for tests that
	// check skipping changes nothing.
	noOfferSkip bool
	// holdingOnly values pods on the types that hold one of them only
	// (holdingSome in fill.go); solve sets it for batches of fewer than
	// planMinPods pods.
	holdingOnly bool
	// pairs runs the improve pass's pairs move (pairs.go); solve sets it
	// for batches of fewer than planMinPods pods, unless the caller picked
	// one strategy to save time (consolidation's simulations), as narrow.
	pairs bool
	// fillBans are types the fill may not open (narrow's sub-pools): the
	// pods are valued and packed as on the pool less them, and the
	// improve pass then retypes the claims on the whole pool.
	fillBans map[ban]bool
	// noSecondFill skips the second fill of large batches (families.go).
	noSecondFill bool
	// noSwap skips the improvement pass's swap move (WithoutSwap).
	noSwap bool
	// solves, when set, counts the packings of one Solve (solve calls),
	// for tests of which searches run.
	solves *atomic.Int64
}

func newOptions(opts []Option) options {
	o := options{maxOptions: DefaultMaxOptions, podValues: true, strategy: -1}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxOptions < 1 {
		o.maxOptions = 1
	}
	return o
}

// WithMaxOptions caps the options listed per claim (default
// DefaultMaxOptions); minValues may still require more.
func WithMaxOptions(n int) Option {
	return func(o *options) { o.maxOptions = n }
}

// WithoutLowerBound makes Solve skip the lower bound: the result's
// LowerBoundPerHour stays 0, and the rest is as without the option. For
// callers that only compare what packings cost, as consolidation's
// simulations do: the bound is a linear program over every pool's types.
func WithoutLowerBound() Option {
	return func(o *options) { o.noBound = true }
}

// WithStrategy makes Solve use only fill strategy i (0 to 3) instead of
// trying each and keeping the cheapest result, and skip the search of
// sub-pools small batches get (narrow.go) and the second fill of large
// ones (families.go): faster, for callers that care more about time than
// cost. Out-of-range values are ignored.
func WithStrategy(i int) Option {
	return func(o *options) {
		if i >= 0 && i < len(strategies()) {
			o.strategy = i
		}
	}
}

// WithoutSecondFill makes Solve skip the second fill of batches of 100
// to 9,999 pods on the instance families their first answer buys
// (families.go), keeping both strategies: about half the time of such a
// batch, for some cost. Tests that build clusters with Solve use it to
// keep building the clusters they were written against.
func WithoutSecondFill() Option {
	return func(o *options) { o.noSecondFill = true }
}

// WithoutSwap makes the improvement pass skip swap (swap.go), the
// exchange of pods that lets a claim take a cheaper type. Tests that build
// clusters with Solve use it, as WithoutSecondFill, to keep building the
// clusters they were written against.
func WithoutSwap() Option {
	return func(o *options) { o.noSwap = true }
}
