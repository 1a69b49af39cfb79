package simulate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/deletioncost"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// ConsolidationReport is what `tenon simulate` prints for a scenario with
// existing nodes and bound pods: the plan (every round's commands with
// --until-stable), why each node left is kept, the final node set in the
// shape of the packing report's nodes, and a summary.
type ConsolidationReport struct {
	Scenario string           `json:"scenario"`
	Commands []RoundCommand   `json:"commands"`
	Kept     []ReportKept     `json:"kept"`
	Nodes    []ReportNode     `json:"nodes"`
	Summary  ConsolidationSum `json:"summary"`
	// Overlays say what became of the scenario's NodeOverlays; absent
	// when it has none.
	Overlays []ReportOverlay `json:"overlays,omitempty"`
	// ScaleDownOrder (--scale-down-order) ranks the scenario's nodes as
	// the agent's --pod-deletion-cost does with the first plan: a
	// ReplicaSet scale-down deletes pods on the first ones first.
	ScaleDownOrder []ReportRankedNode `json:"scaleDownOrder,omitempty"`
}

// ReportRankedNode is a node of the scale-down order (engine/deletioncost).
type ReportRankedNode struct {
	Node string `json:"node"`
	// Tier is going, leaving (the plan's walk removes it) or rest.
	Tier string `json:"tier"`
	// ReplicaSetPods are the node's ReplicaSet pods; OtherPods its other
	// workload pods, which a scale-down cannot remove.
	ReplicaSetPods int     `json:"replicaSetPods"`
	OtherPods      int     `json:"otherPods"`
	PricePerHour   float64 `json:"pricePerHour"`
}

// RoundCommand is a consolidation command and the round that made it.
type RoundCommand struct {
	Round int `json:"round"`
	consolidation.Command
}

// ReportKept is a node no command removes, and why.
type ReportKept struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// ConsolidationSum totals a consolidation simulation.
type ConsolidationSum struct {
	// CostBeforePerHour is the price of the scenario's nodes;
	// CostAfterPerHour of the nodes left after the last round.
	CostBeforePerHour float64 `json:"costBeforePerHour"`
	CostAfterPerHour  float64 `json:"costAfterPerHour"`
	// LowerBoundPerHour is a proven lower bound on the cost of any nodes
	// for the workload pods (engine/packing's bound, as if all were
	// pending).
	LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
	// PodsEvicted counts evictions over every round; MinimumEvictions the
	// pods that were on nodes the rounds removed (no plan can evict fewer
	// to remove those nodes).
	PodsEvicted      int `json:"podsEvicted"`
	MinimumEvictions int `json:"minimumEvictions"`
	// Rounds counts the plans made (the last one changes nothing when the
	// cluster is stable).
	Rounds int `json:"rounds"`
	// Stable is set when the last plan had no command.
	Stable bool `json:"stable"`
	// PlanSeconds is the in-process time of every Plan, summed; PlanRuns
	// each round's.
	PlanSeconds float64   `json:"planSeconds"`
	PlanRuns    []float64 `json:"planRuns"`
	NodesBefore int       `json:"nodesBefore"`
	NodesAfter  int       `json:"nodesAfter"`
	Pods        int       `json:"pods"`
	// Now is the clock the plans were made at (RFC 3339, UTC).
	Now string `json:"now"`
}

// consolidating reports whether a scenario is simulated as consolidation:
// asked for, or it has existing nodes, bound workload pods and no pending
// ones.
func consolidating(s *Scenario, opts *options) bool {
	if opts.consolidate || opts.untilStable {
		return true
	}
	if len(s.Objects.Nodes) == 0 {
		return false
	}
	bound := false
	for _, p := range s.Objects.Pods {
		if p.Spec.NodeName == "" {
			return false
		}
		bound = true
	}
	return bound
}

// checkCluster checks what consolidation needs of the scenario's nodes and
// bound pods: managed nodes name a pool and an offered instance type, zone
// and capacity type; bound pods name a node of the scenario.
func (s *Scenario) checkCluster() error {
	var errs []error
	pools := map[string]bool{}
	for _, np := range s.Objects.NodePools {
		pools[np.Name] = true
	}
	for _, p := range s.Objects.Provisioners {
		pools[p.Name] = true
	}
	nodes := map[string]bool{}
	files := strings.Join(s.Files, ", ")
	fail := func(kind, ns, name, path, format string, args ...any) {
		errs = append(errs, s.origins.Errorf(files, kind, ns, name, path, format, args...))
	}
	for _, n := range s.Objects.Nodes {
		nodes[n.Name] = true
		pool, ok := n.Labels[scheduling.LabelNodePool]
		if !ok {
			continue // not managed: it hosts pods and stays
		}
		label := func(key string) string { return fmt.Sprintf("metadata.labels[%s]", key) }
		if !pools[pool] {
			fail("Node", "", n.Name, label(scheduling.LabelNodePool), "Not found: %q: no NodePool or Provisioner of that name in the scenario", pool)
		}
		typ := n.Labels[scheduling.LabelInstanceType]
		zone := n.Labels[scheduling.LabelTopologyZone]
		ct := n.Labels[scheduling.LabelCapacityType]
		switch {
		case typ == "":
			fail("Node", "", n.Name, label(scheduling.LabelInstanceType), "Required value: a managed node needs its instance type, such as m5.large")
			continue
		case zone == "":
			fail("Node", "", n.Name, label(scheduling.LabelTopologyZone), "Required value: a managed node needs its zone, one of %s", strings.Join(s.Zones, ", "))
			continue
		case ct == "":
			fail("Node", "", n.Name, label(scheduling.LabelCapacityType), "Required value: a managed node needs its capacity type, spot or on-demand")
			continue
		}
		it, ok := s.Catalog.Get(typ)
		if !ok {
			fail("Node", "", n.Name, label(scheduling.LabelInstanceType), "Unsupported value: %q: not an instance type of the catalog for %s", typ, s.Region)
			continue
		}
		if !slices.Contains(s.Zones, zone) {
			fail("Node", "", n.Name, label(scheduling.LabelTopologyZone), "Unsupported value: %q: the scenario's zones are %s", zone, strings.Join(s.Zones, ", "))
			continue
		}
		if !slices.ContainsFunc(it.Offerings, func(o catalog.Offering) bool { return o.Zone == zone && o.CapacityType == ct }) {
			fail("Node", "", n.Name, label(scheduling.LabelCapacityType), "Unsupported value: %q: %s has no %s offering in %s", ct, typ, ct, zone)
		}
	}
	for _, p := range s.Objects.Pods {
		if p.Spec.NodeName != "" && !nodes[p.Spec.NodeName] {
			fail("Pod", p.Namespace, p.Name, "spec.nodeName", "Not found: %q: no Node of that name in the scenario", p.Spec.NodeName)
		}
	}
	if len(s.Objects.Nodes) == 0 {
		errs = append(errs, &manifest.Error{File: files, Detail: "consolidation needs existing nodes: add Node documents (with tenon.dev/nodepool, instance type, zone and capacity type labels) and pods bound to them (spec.nodeName)"})
	}
	return errors.Join(errs...)
}

// consolidate plans (and with --until-stable applies) consolidation on a
// scenario and reports the outcome.
func (c *command) consolidate(ctx context.Context, s *Scenario, opts *options) (*ConsolidationReport, []string, error) {
	if err := s.checkCluster(); err != nil {
		return nil, nil, err
	}
	if opts.repeatSet {
		c.warnings = append(c.warnings, fmt.Sprintf("%s: --repeat times packing; consolidation reports each round's plan time instead (summary.planRuns)", s.Name))
	}
	snap, err := s.Snapshot()
	if err != nil {
		return nil, nil, err
	}
	now := opts.now
	if now.IsZero() {
		now = s.Now
	}
	if now.IsZero() {
		now = c.now().UTC().Truncate(time.Second)
	}
	rep := &ConsolidationReport{Scenario: s.Name, Commands: []RoundCommand{}, Kept: []ReportKept{}, Overlays: reportOverlays(snap)}
	rep.Summary.Now = now.Format(time.RFC3339)
	rounds := 1
	if opts.untilStable {
		rounds = opts.maxRounds
	}
	orig, cur := snap, snap
	var violations []string
	var last *consolidation.Result
	for round := 1; round <= rounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("%s: giving up in round %d: %w", s.Name, round, err)
		}
		start := time.Now()
		res, err := consolidation.PlanAroundPending(ctx, cur, now, consolidation.DefaultOptions())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		elapsed := time.Since(start).Seconds()
		if c.zeroTimings {
			elapsed = 0
		}
		rep.Summary.PlanRuns = append(rep.Summary.PlanRuns, elapsed)
		rep.Summary.PlanSeconds += elapsed
		rep.Summary.Rounds = round
		last = res
		if round == 1 && opts.scaleDownOrder {
			rep.ScaleDownOrder = scaleDownOrder(cur, res.Leaving)
		}
		if opts.check {
			for _, v := range consolidation.Validate(cur, res) {
				violations = append(violations, fmt.Sprintf("round %d: %s", round, v))
			}
		}
		for _, cmd := range res.Commands {
			rep.Commands = append(rep.Commands, RoundCommand{Round: round, Command: cmd})
		}
		rep.Summary.PodsEvicted += res.PodsEvicted
		if len(res.Commands) == 0 {
			rep.Summary.Stable = true
			break
		}
		if cur, err = consolidation.Apply(cur, res); err != nil {
			return nil, nil, fmt.Errorf("%s: round %d: %w", s.Name, round, err)
		}
		if !opts.untilStable {
			break
		}
		// Pods moved in this round restart the nodes' consolidateAfter:
		// the next round comes when the longest has passed.
		now = now.Add(roundInterval(cur))
	}
	// The last plan's kept list covers every node left: with
	// --until-stable the nodes of the stable cluster, else the scenario's
	// nodes the one plan keeps.
	for _, k := range last.Kept {
		rep.Kept = append(rep.Kept, ReportKept{Node: k.Node, Reason: k.Reason})
	}
	rep.Nodes = finalNodes(orig, cur)
	if err := c.summarize(ctx, rep, orig, cur); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return rep, violations, nil
}

// scaleDownOrder ranks snap's nodes as the agent's --pod-deletion-cost
// does, with leaving the plan's Result.Leaving.
func scaleDownOrder(snap *state.Snapshot, leaving []string) []ReportRankedNode {
	out := []ReportRankedNode{}
	for _, n := range deletioncost.Compute(snap, leaving).Nodes {
		out = append(out, ReportRankedNode{Node: n.Name, Tier: n.Tier.String(), ReplicaSetPods: n.Replicas, OtherPods: n.Pinned, PricePerHour: round(n.PricePerHour)})
	}
	return out
}

// roundInterval is how long until the next round: the pools' longest
// consolidateAfter, at least a minute.
func roundInterval(snap *state.Snapshot) time.Duration {
	d := time.Minute
	for _, p := range snap.Pools {
		if a := p.Disruption.ConsolidateAfter; a != nil && *a+time.Second > d {
			d = *a + time.Second
		}
	}
	return d
}

// finalNodes lists the nodes after the plans as the packing report lists
// nodes, with the workload pods bound to each.
func finalNodes(orig, cur *state.Snapshot) []ReportNode {
	existed := map[string]bool{}
	for _, n := range orig.Nodes {
		existed[n.Name] = true
	}
	pods := map[string][]string{}
	used := map[string]corev1.ResourceList{}
	for _, p := range cur.Pods {
		if p.NodeName == "" {
			continue
		}
		if used[p.NodeName] == nil {
			used[p.NodeName] = corev1.ResourceList{}
		}
		addInto(used[p.NodeName], p.Requests)
		if !p.DaemonSet {
			pods[p.NodeName] = append(pods[p.NodeName], p.Key())
		}
	}
	out := make([]ReportNode, 0, len(cur.Nodes))
	for _, n := range cur.Nodes {
		out = append(out, ReportNode{
			Name: n.Name, NodePool: n.Pool, InstanceType: n.InstanceType, Zone: n.Zone, CapacityType: n.CapacityType,
			PricePerHour: round(n.PricePerHour), Existing: existed[n.Name], InFlight: n.InFlight, Pods: sortedCopy(pods[n.Name]),
			CPUUtilization: share(used[n.Name], n.Allocatable, corev1.ResourceCPU), MemoryUtilization: share(used[n.Name], n.Allocatable, corev1.ResourceMemory),
		})
	}
	return out
}

// summarize totals the costs, the evictions and the lower bound.
func (c *command) summarize(ctx context.Context, rep *ConsolidationReport, orig, cur *state.Snapshot) error {
	sum := &rep.Summary
	left := map[string]bool{}
	for _, n := range cur.Nodes {
		left[n.Name] = true
		sum.CostAfterPerHour += n.PricePerHour
	}
	for _, n := range orig.Nodes {
		sum.CostBeforePerHour += n.PricePerHour
	}
	var workload []*state.Pod
	for _, p := range orig.Pods {
		if p.DaemonSet {
			continue
		}
		workload = append(workload, p)
		if p.NodeName != "" && !left[p.NodeName] {
			sum.MinimumEvictions++
		}
	}
	sum.CostBeforePerHour, sum.CostAfterPerHour = round(sum.CostBeforePerHour), round(sum.CostAfterPerHour)
	sum.NodesBefore, sum.NodesAfter, sum.Pods = len(orig.Nodes), len(cur.Nodes), len(workload)
	empty := *orig
	empty.Nodes = nil
	r, err := packing.Solve(ctx, &empty, workload)
	if err != nil {
		return fmt.Errorf("bounding the cost of the pods: %w", err)
	}
	sum.LowerBoundPerHour = round(r.LowerBoundPerHour)
	if sum.PlanRuns == nil {
		sum.PlanRuns = []float64{}
	}
	return nil
}
