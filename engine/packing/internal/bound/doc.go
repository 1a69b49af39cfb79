// Package bound is the packer's lower-bound and pricing math, free of any
// packing notion: demand is counts of request vectors, supply is columns
// (a node type's allocatable at a price).
//
// LowerBound is the optimum of an assignment LP (AssignmentLP): each node
// of a type carries a fractional load of pods, every pod's whole request on
// a type it fits, and the load obeys rounding rows that whole pods obey and
// fractions need not (at most one pod over half the node's cpu, and
// Fekete–Schepers' dual-feasible functions beyond). Column generation
// solves it; Farley's bound turns whatever duals it reaches into a true
// bound whatever the rounding. On types that hold at most a few pods, a
// second column generation prices whole configurations instead of
// fractional loads (the whole-pod LP, whole.go), which sees the gaps whole
// pods leave on small nodes. Should the first not converge within its counted
// effort, the bound is the best of that, the per-resource fractional bound,
// an LP over node types with size-threshold rows (the aggregate LP), and a
// coordinate ascent on the plain assignment LP's dual.
//
// The same duals value pods while packing: Pricer (the aggregate LP's),
// AscentValues (the ascent's) and Valuation (column generation carried on
// as the demand falls).
package bound
