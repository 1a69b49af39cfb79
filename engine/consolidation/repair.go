package consolidation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// repair replaces the nodes of pools with disruption.repair on that have
// been unhealthy (a condition matching one of the Snapshot's
// RepairPolicies) past their toleration: replacements first where the
// pods need them, within the pools' budgets for Unhealthy. It differs from
// Karpenter's in four ways, each answering a complaint about it:
//
//   - the toleration can be set per pool (repair.toleration), not only by
//     the cloud provider (kubernetes-sigs/karpenter#2310);
//   - the threshold above which a pool is not repaired (a correlated
//     failure) is the pool's repair.maxUnhealthy, 20% by default
//     (kubernetes-sigs/karpenter#2134, #2321);
//   - the switch is per NodePool, not a cluster-wide feature gate (#2811);
//   - tenon.dev/do-not-disrupt on a node blocks repair as
//     tenon.dev/do-not-repair does (the question Karpenter leaves open in
//     #2424), so one annotation protects a node from every voluntary
//     disruption.
//
// As in Karpenter, a do-not-disrupt pod blocks repair unless the pool sets
// terminationGracePeriod (which bounds the drain), and a node whose pods
// fit nowhere, even on new nodes, stays (repairing it would only make them
// pending).
type repair struct{}

func (repair) reason() Reason { return ReasonUnhealthy }

// sick is a node with an unhealthy condition.
type sick struct {
	n *nodeInfo
	u state.Unhealthy
}

func (repair) run(p *planner) error {
	sicks, tripped, err := p.unhealthyNodes()
	if err != nil {
		return err
	}
	var list []*nodeInfo
	details := map[string]string{}
	for _, s := range sicks {
		detail := unhealthyDetail(s.u, p)
		if s.u.EligibleAt().After(p.now) {
			p.keep(s.n.node.Name, fmt.Sprintf("%s; repaired after its toleration of %s (in %s)",
				detail, formatDuration(s.u.Toleration), formatDuration(s.u.EligibleAt().Sub(p.now))))
			continue
		}
		detail += ", past its toleration of " + formatDuration(s.u.Toleration)
		if why := repairBlocker(s.n, p, tripped); why != nil {
			if why.rule == "" {
				p.keep(s.n.node.Name, detail+", but "+why.reason)
			} else {
				p.hold(s.n.node.Name, detail+", but "+why.reason, ReasonUnhealthy, why.rule)
			}
			continue
		}
		why, err := p.budgets.take(s.n.pool, ReasonUnhealthy)
		if err != nil {
			return err
		}
		if why != "" {
			p.hold(s.n.node.Name, detail+", but "+why, ReasonUnhealthy, HeldByBudget)
			continue
		}
		list = append(list, s.n)
		details[s.n.node.Name] = detail
	}
	return p.replaceWhereFits(list, details, ReasonUnhealthy)
}

// unhealthyNodes returns the repairable pools' nodes with an unhealthy
// condition (each with the condition that is first eligible), those
// eligible first, and for each pool with more unhealthy nodes than its
// repair.maxUnhealthy allows, why repair stops there.
func (p *planner) unhealthyNodes() ([]sick, map[string]string, error) {
	policies := p.orig.RepairPolicies
	if policies == nil {
		policies = state.ReadyRepairPolicies()
	}
	total, unhealthy := map[string]int{}, map[string]int{}
	var out []sick
	for _, n := range p.nodes() {
		if n.pool == nil || n.pool.Repair == nil || n.node.InFlight {
			continue
		}
		total[n.pool.Name]++
		us := n.node.UnhealthyConditions(policies, n.pool.Repair)
		if len(us) == 0 {
			continue
		}
		unhealthy[n.pool.Name]++
		out = append(out, sick{n: n, u: us[0]})
	}
	slices.SortStableFunc(out, func(a, b sick) int {
		return cmp.Or(a.u.EligibleAt().Compare(b.u.EligibleAt()), strings.Compare(a.n.node.Name, b.n.node.Name))
	})
	tripped := map[string]string{}
	for _, pool := range p.orig.Pools {
		if pool.Repair == nil || unhealthy[pool.Name] == 0 {
			continue
		}
		most, err := v1.BudgetNodes(pool.Repair.MaxUnhealthy, total[pool.Name])
		if err != nil {
			return nil, nil, fmt.Errorf("nodepool %s: repair.maxUnhealthy: %w", pool.Name, err)
		}
		if unhealthy[pool.Name] > most {
			tripped[pool.Name] = fmt.Sprintf("%d of nodepool %s's %d nodes are unhealthy, more than its repair.maxUnhealthy %q allows (%d): a failure that many nodes share is not fixed by replacing them",
				unhealthy[pool.Name], pool.Name, total[pool.Name], pool.Repair.MaxUnhealthy, most)
		}
	}
	return out, tripped, nil
}

// unhealthyDetail words a node's unhealthy condition: which, since when.
func unhealthyDetail(u state.Unhealthy, p *planner) string {
	c := u.Condition
	s := fmt.Sprintf("unhealthy: %s %s", c.Type, c.Status)
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	return s + " for " + formatDuration(p.now.Sub(c.Since))
}

// blocker is why repair leaves an eligible node, and the rule's class
// ("" when no rule held it: it is being deleted, or another command has
// it).
type blocker struct {
	reason string
	rule   Hold
}

// repairBlocker says why an unhealthy node past its toleration is not
// repaired now, or nil.
func repairBlocker(n *nodeInfo, p *planner, tripped map[string]string) *blocker {
	switch {
	case n.node.Pool == "" || n.node.MarkedForDeletion:
		return &blocker{reason: "already being deleted"}
	case n.node.Held != "":
		return &blocker{reason: n.node.Held}
	case n.fresh:
		return &blocker{reason: "receives pods or was launched in this plan"}
	case tripped[n.pool.Name] != "":
		return &blocker{reason: tripped[n.pool.Name], rule: HeldByUnhealthyThreshold}
	}
	if key := nodeDoNotRepair(n); key != "" {
		return &blocker{reason: "node annotated " + key, rule: HeldByDoNotDisrupt}
	}
	if n.pool.TerminationGracePeriod == nil {
		if why := firstPin(n, p); why != "" {
			return &blocker{reason: why + " (set the nodepool's terminationGracePeriod so repair can bound the drain)", rule: HeldByDoNotDisrupt}
		}
	}
	return nil
}

// nodeDoNotRepair returns the annotation, "true", that keeps n from
// repair: tenon.dev/do-not-repair or tenon.dev/do-not-disrupt (or, where
// the pool honours Karpenter's annotations, karpenter.sh's), or "".
func nodeDoNotRepair(n *nodeInfo) string {
	if key := nodeDoNotDisrupt(n); key != "" {
		return key
	}
	keys := []string{v1.AnnotationDoNotRepair}
	if !n.pool.IgnoreKarpenterAnnotations {
		keys = append(keys, v1.AnnotationKarpenterDoNotRepair)
	}
	for _, k := range keys {
		if n.node.Annotations[k] == "true" {
			return k
		}
	}
	return ""
}
