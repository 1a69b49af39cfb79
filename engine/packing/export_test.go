package packing

// Test hooks for the black-box tests (package packing_test), which check
// results with engine/packing/check and so cannot live in this package.

// Strategies is how many fill strategies WithStrategy accepts.
var Strategies = len(strategies())

// PlanEfforts is how many plan efforts WithPlan accepts.
var PlanEfforts = len(planEfforts)

// WithEagerCliques gives clique members their own sized nodes from
// minEagerClique members on.
func WithEagerCliques() Option { return func(o *options) { o.eagerCliques = true } }

// WithPlan packs from a configuration-LP plan with planEfforts[effort-1]
// before the greedy fill.
func WithPlan(effort int) Option { return func(o *options) { o.plan = effort } }

// WithoutImprove skips the local-improvement pass.
func WithoutImprove() Option { return func(o *options) { o.noImprove = true } }

// WithoutEmptyProof makes a plan's pricing run every knapsack search, as
// before provenEmpty, to check that skipping the proven-empty ones changes
// nothing.
func WithoutEmptyProof() Option { return func(o *options) { o.noEmptyProof = true } }

// WithoutSharedPlans makes each strategy run its plan's first column
// generation itself instead of sharing it (see planStarts).
func WithoutSharedPlans() Option { return func(o *options) { o.noSharedPlans = true } }

// WithoutOfferSkip makes claimOut scan each claim's options from the
// zone's cheapest offering, as it did before it started at the claim's own.
func WithoutOfferSkip() Option { return func(o *options) { o.noOfferSkip = true } }

// RaceEnabled is raceEnabled, for the external tests.
const RaceEnabled = raceEnabled
