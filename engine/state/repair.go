package state

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// Condition is one status condition of a node, reduced to what node repair
// reads.
type Condition struct {
	Type   string
	Status corev1.ConditionStatus
	Reason string
	// Since is when the condition last changed status, never before the
	// node was created (a condition written without a transition time is
	// taken to have held since then).
	Since time.Time
}

// Repair is a pool's node repair settings (NodePool
// spec.disruption.repair); nil on a pool that does not repair.
type Repair struct {
	// Toleration, when set, replaces every RepairPolicy's toleration for
	// the pool's nodes.
	Toleration *time.Duration
	// MaxUnhealthy is how many of the pool's nodes may be unhealthy before
	// repair stops for the pool: a count or a percentage (budget syntax).
	MaxUnhealthy string
}

// RepairPolicy says that a node condition in a status is unhealthy and how
// long it is tolerated before the node is replaced. The cloud provider
// lists the conditions it knows (cloud.CloudProvider.RepairPolicies).
type RepairPolicy struct {
	Condition  string
	Status     corev1.ConditionStatus
	Toleration time.Duration
}

// ReadyRepairPolicies are the kubelet's unhealthy states, which every cloud
// repairs: Ready False or Unknown for 30 minutes (Karpenter's tolerations).
func ReadyRepairPolicies() []RepairPolicy {
	return []RepairPolicy{
		{Condition: string(corev1.NodeReady), Status: corev1.ConditionFalse, Toleration: 30 * time.Minute},
		{Condition: string(corev1.NodeReady), Status: corev1.ConditionUnknown, Toleration: 30 * time.Minute},
	}
}

// AWSRepairPolicies are the Ready policies plus the conditions the EKS node
// monitoring agent sets, with the tolerations Karpenter's AWS provider
// uses: accelerator failures after 10 minutes, storage, networking, kernel
// and container runtime failures after 30.
func AWSRepairPolicies() []RepairPolicy {
	return append(ReadyRepairPolicies(),
		RepairPolicy{Condition: "AcceleratedHardwareReady", Status: corev1.ConditionFalse, Toleration: 10 * time.Minute},
		RepairPolicy{Condition: "StorageReady", Status: corev1.ConditionFalse, Toleration: 30 * time.Minute},
		RepairPolicy{Condition: "NetworkingReady", Status: corev1.ConditionFalse, Toleration: 30 * time.Minute},
		RepairPolicy{Condition: "KernelReady", Status: corev1.ConditionFalse, Toleration: 30 * time.Minute},
		RepairPolicy{Condition: "ContainerRuntimeReady", Status: corev1.ConditionFalse, Toleration: 30 * time.Minute},
	)
}

// Unhealthy is a node's unhealthy condition matched against a policy.
type Unhealthy struct {
	Condition Condition
	// Toleration is how long the condition is tolerated (the policy's, or
	// the pool's repair.toleration).
	Toleration time.Duration
}

// EligibleAt is when the node may be repaired for this condition.
func (u Unhealthy) EligibleAt() time.Time { return u.Condition.Since.Add(u.Toleration) }

// UnhealthyConditions returns the node's conditions a policy calls
// unhealthy, the first to become eligible for repair first (then by type),
// with the pool's toleration when repair sets one. Empty for a healthy
// node and for an in-flight claim.
func (n *Node) UnhealthyConditions(policies []RepairPolicy, repair *Repair) []Unhealthy {
	var out []Unhealthy
	for _, c := range n.Conditions {
		i := slices.IndexFunc(policies, func(p RepairPolicy) bool { return p.Condition == c.Type && p.Status == c.Status })
		if i < 0 {
			continue
		}
		u := Unhealthy{Condition: c, Toleration: policies[i].Toleration}
		if repair != nil && repair.Toleration != nil {
			u.Toleration = *repair.Toleration
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b Unhealthy) int {
		if c := a.EligibleAt().Compare(b.EligibleAt()); c != 0 {
			return c
		}
		if a.Condition.Type < b.Condition.Type {
			return -1
		}
		if a.Condition.Type > b.Condition.Type {
			return 1
		}
		return 0
	})
	return out
}

// nodeConditions copies a node's conditions, clamping each transition
// time to the node's creation (a condition cannot predate its node, and
// one written without a time has held since the node appeared).
func nodeConditions(n *corev1.Node) []Condition {
	if len(n.Status.Conditions) == 0 {
		return nil
	}
	out := make([]Condition, 0, len(n.Status.Conditions))
	for _, c := range n.Status.Conditions {
		since := c.LastTransitionTime.Time
		if since.Before(n.CreationTimestamp.Time) {
			since = n.CreationTimestamp.Time
		}
		out = append(out, Condition{Type: string(c.Type), Status: c.Status, Reason: c.Reason, Since: since})
	}
	return out
}

// repairOf converts a pool's disruption.repair; nil when repair is off.
func repairOf(d *v1.Disruption) *Repair {
	if !d.RepairEnabled() {
		return nil
	}
	out := &Repair{MaxUnhealthy: v1.DefaultRepairMaxUnhealthy}
	if d.Repair.Toleration != nil {
		if v, ok := d.Repair.Toleration.Duration(); ok {
			out.Toleration = &v
		}
	}
	if d.Repair.MaxUnhealthy != nil {
		out.MaxUnhealthy = *d.Repair.MaxUnhealthy
	}
	return out
}
