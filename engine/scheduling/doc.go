// Package scheduling is Tenon's label algebra: requirements on node labels
// (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte) with exact intersection
// and compatibility, the well-known and restricted labels, and taint/toleration
// matching; the bounds on resource amounts the engine computes with
// (amounts.go: MaxRequest, MaxLimit); and on top of them the rules the packer,
// its result checker and consolidation share: what a pod asks of a node
// (NodeFilter: nodeSelector, node affinity, tolerations), which pods an
// affinity term or a spread selects (PodSelector), and a node's topology domain.
//
// A Requirement is the set of values one label key may take. It is stored as a
// finite set (In), or as the complement of a finite set optionally narrowed to
// integers within inclusive bounds (NotIn, Exists, Gt, Lt, Gte, Lte), so the
// intersection of any two requirements is again a Requirement and is exact: a
// value is in A∩B if and only if it is in A and in B. The empty set stands for
// DoesNotExist, as in Karpenter, whose semantics (complement sets, integer
// bounds, the rules for keys only one side defines) this package follows.
//
// The package is pure: values in, values out, no I/O and no package-level
// mutable state, so the same decisions are made in the agent, in terraform plan
// and offline.
package scheduling
