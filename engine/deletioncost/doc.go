// Package deletioncost decides the pod deletion cost (controller.kubernetes.io/pod-deletion-cost)
// the agent writes on ReplicaSet pods, so that a scale-down deletes first the replicas on the
// nodes consolidation is about to remove, and then those on the nodes a scale-down can empty.
//
// The ReplicaSet controller (kube-controller-manager) picks the pods a scale-down deletes: after
// unbound, pending and not-ready pods, the lowest deletion cost first (an absent annotation is 0).
// No other controller reads the annotation, so only pods whose controller is a ReplicaSet (every
// Deployment's) are written.
//
// Compute ranks the nodes of Tenon's pools in three tiers, each written as a band of negative
// costs (-300 million up to 0) so that every ranked pod goes before an unannotated one:
//
//   - Going: nodes already being removed (deleting, or tainted tenon.dev/disrupted). Their pods
//     are being evicted; a scale-down that takes them saves those evictions.
//   - Leaving: the nodes consolidation's walk ends without (consolidation.Result.Leaving): those
//     the current plan removes and those the plans after it are expected to remove. A pod
//     deleted there is one eviction fewer, and a node a scale-down empties goes as empty, with
//     none.
//   - Rest: every other node consolidation may remove, ordered so that a scale-down tends to
//     empty whole nodes: fewest pods a scale-down cannot remove (pods of StatefulSets, Jobs,
//     bare pods: a node holding one never empties by scaling down), then fewest ReplicaSet pods
//     (closest to empty), then dearest first (the most saved when it empties), then by name.
//
// The ReplicaSet controller compares only the pods of one ReplicaSet, so the values need only be
// in order within each, and Compute changes as few as it can: the rest's values rise in rank order
// spread over their band, and a node keeps its value while it is still in order with the others it
// shares a ReplicaSet with, so a node joining the ranking, or a pod joining a node, costs one
// node's or one pod's write, not a rewrite of the ReplicaSet; a pod on a going or leaving node
// keeps any value of either band (a command's start, which turns leaving nodes into going ones,
// rewrites none of the pods it evicts).
//
// Nodes consolidation may not remove (static pools, pools that never consolidate, nodes annotated
// do-not-disrupt or do-not-consolidate) and nodes Tenon does not manage are not ranked: Tenon's
// values come off their pods, which go back to 0.
//
// Ownership: Tenon records each value it writes in the annotation tenon.dev/pod-deletion-cost. A
// pod's deletion cost is Tenon's when both annotations are present and equal; any other value is
// the user's (or another controller's). A ReplicaSet with a single pod carrying a value that is not
// Tenon's is left to its owner entirely: Tenon writes none of its pods and takes its own values off
// the others, so the user's order within the ReplicaSet is never mixed with Tenon's. A value that
// is not Tenon's is never changed or removed.
//
// Consolidation reads a pod's deletion cost as its disruption cost (Karpenter's fallback, for the
// Balanced policy); it skips the values Tenon wrote (Owned), which rank nodes and say nothing about
// the pod.
//
// How this differs from Karpenter v1.15's PodDeletionCostManagement
// (pkg/controllers/pod/deletioncost):
//   - Karpenter guesses which nodes consolidation will take (a savings ratio, price over the pods'
//     eviction cost, capped by the pools' budgets); Tenon ranks first the exact nodes its plan's
//     walk removes (Leaving), which the agent also taints tenon.dev/planned-removal.
//   - Karpenter overwrites any deletion cost a user set (and clears it on the nodes it does not
//     rank), so a user who ordered replicas must move to karpenter.sh/disruption-cost; Tenon records
//     which values are its own and leaves every other value, and the whole ReplicaSet it is on, alone.
//   - Karpenter stops reading pod-deletion-cost as a disruption cost altogether once the gate is
//     on; Tenon stops reading only its own values, so users' values keep their meaning.
//   - Karpenter sends nodes holding a pod a scale-down cannot remove (StatefulSet, bare pods) to
//     its cleared group; Tenon ranks them after the nodes a scale-down can empty, since deleting
//     replicas there still leaves consolidation fewer pods to evict.
package deletioncost
