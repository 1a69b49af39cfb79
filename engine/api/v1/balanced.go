package v1

// BalancedK is the constant of the Balanced consolidation policy, Karpenter's (v1.15
// BalancedK): a move is approved when the share of its pool's cost it saves, divided by the
// share of its pool's disruption it causes, is at least 1/BalancedK.
const BalancedK = 2

// Pod annotations that say how costly a pod is to evict, for the Balanced policy: an integer
// (int32) added to the pod's cost of 1 in units of 2^27, so the extremes weigh about -15 and 17
// pods. AnnotationDisruptionCost is Tenon's; Karpenter's is read too unless the pool's
// disruption.karpenterAnnotations is Ignore; the ReplicaSet controller's
// controller.kubernetes.io/pod-deletion-cost is the fallback when neither is set, as in
// Karpenter.
const (
	AnnotationDisruptionCost          = "tenon.dev/disruption-cost"
	AnnotationKarpenterDisruptionCost = "karpenter.sh/disruption-cost"
	AnnotationPodDeletionCost         = "controller.kubernetes.io/pod-deletion-cost"
)

// AnnotationPodDeletionCostOwned records the pod deletion cost the agent wrote on a pod
// (--pod-deletion-cost, engine/deletioncost): the pod's AnnotationPodDeletionCost is Tenon's while
// it equals this value, and the user's otherwise. Consolidation does not read Tenon's values as a
// disruption cost, and the agent never changes a value that is not its own.
const AnnotationPodDeletionCostOwned = Group + "/pod-deletion-cost"
