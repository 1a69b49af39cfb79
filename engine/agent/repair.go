package agent

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Node repair is consolidation's Unhealthy method (engine/consolidation,
// repair.go): the plan replaces the nodes of pools with disruption.repair
// on that stay unhealthy past their toleration, and the agent runs its
// commands as any other (replacements first, then the drain). What the
// agent adds is the answer to "why did it do that": a Repairing event on
// the Node naming the condition and how long it held, the
// tenon_node_repairs_total and tenon_nodepool_unhealthy_nodes metrics, and
// (through explainKept) the Unconsolidatable condition and event of a node
// repair leaves, with why (its toleration, the pool's maxUnhealthy, a
// budget, an annotation).

// ReasonRepairing is the event on a Node that node repair replaces.
const ReasonRepairing = "Repairing"

// repairPolicies are the view's unhealthy conditions (the cloud's).
func repairPolicies(v *clusterView) []state.RepairPolicy {
	if v.snap.RepairPolicies != nil {
		return v.snap.RepairPolicies
	}
	return state.ReadyRepairPolicies()
}

// countUnhealthy sets tenon_nodepool_unhealthy_nodes from the view: every
// pool's nodes with a condition the cloud calls unhealthy, by the
// condition first eligible for repair.
func (d *disruption) countUnhealthy(v *clusterView) {
	d.metrics.unhealthyNodes.Reset()
	policies := repairPolicies(v)
	for _, n := range v.snap.Nodes {
		if n.Pool == "" || n.InFlight {
			continue
		}
		var repair *state.Repair
		for _, p := range v.snap.Pools {
			if p.Name == n.Pool {
				repair = p.Repair
			}
		}
		if us := n.UnhealthyConditions(policies, repair); len(us) > 0 {
			d.metrics.unhealthyNodes.WithLabelValues(n.Pool, us[0].Condition.Type).Inc()
		}
	}
}

// recordRepair explains a repair on the Node it replaces (an event naming
// the condition, how long it held and the toleration: the command's
// detail) and counts it by pool and condition.
func (d *disruption) recordRepair(v *clusterView, node string, claim *v1.NodeClaim, detail string) {
	condition := "Unknown"
	for _, n := range v.snap.Nodes {
		if n.Name != node {
			continue
		}
		var repair *state.Repair
		for _, p := range v.snap.Pools {
			if p.Name == n.Pool {
				repair = p.Repair
			}
		}
		if us := n.UnhealthyConditions(repairPolicies(v), repair); len(us) > 0 {
			condition = us[0].Condition.Type
		}
	}
	d.metrics.nodeRepairs.WithLabelValues(claim.Labels[v1.LabelNodePool], condition).Inc()
	ref := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}
	d.disrupter.recorder.Eventf(ref, claim, corev1.EventTypeWarning, ReasonRepairing, "Repair",
		"Repairing the node (nodeclaim %s is replaced, then drained and deleted): %s", claim.Name, detail)
	d.log.Info("repairing node", "node", node, "nodeclaim", claim.Name, "condition", condition, "detail", detail)
}
