package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// DisruptionEmpty is the reason recorded on the claims of empty nodes the
// agent removes (consolidation's emptiness).
const DisruptionEmpty = string(consolidation.ReasonEmpty)

// disruption runs engine/consolidation's plan on the cluster, on two
// ticks: every DisruptionInterval it plans emptiness alone and deletes the
// empty nodes' claims, so a node goes within a tick of its
// consolidateAfter; every ConsolidationInterval it makes the whole plan
// (emptiness, expiration, drift, consolidation — the plan `tenon simulate
// --consolidate` prints) and runs its commands that are not emptiness.
// Budgets, consolidateAfter, do-not-disrupt and every other rule are the
// plan's; the agent adds what only it knows to the Snapshot first: the
// claims' pod-event clocks (claimConditions), the nodes pending pods are
// expected on (state.Node.Nominated), and the nodes no command may take
// now (state.Node.Held: a command is in flight on them, or they are
// replacements launched less than Timings.ReplacementHold ago).
type disruption struct {
	client     client.Client
	views      *viewBuilder
	nominated  *nominations
	slots      *slots // room held for pods still to come (provisioner's)
	buffers    *capacityBuffers
	conditions *claimConditions
	disrupter  *disrupter
	// inflight holds the nodes of the command being executed.
	inflight inFlight
	// deletionCosts writes pod deletion costs (--pod-deletion-cost); nil
	// when off. leaving is the last whole plan's Result.Leaving, which
	// ranks the nodes while the plan's drains run.
	deletionCosts *deletionCosts
	leaving       []string
	metrics       *metrics
	log           logr.Logger
	clock         agentClock
	timings       Timings
	// drained is signalled by termination when a claim's instance is
	// gone: the whole plan runs a DisruptionInterval later instead of at
	// its next tick, since a walk waits for each drain before its next
	// command (see consolidate).
	drained *wake
}

// Register adds the two ticks; they run on the leader only.
func (d *disruption) Register(mgr manager.Manager) error {
	if err := addEvery(mgr, "emptiness", d.clock, d.timings.DisruptionInterval, d.log.WithName("emptiness"), d.removeEmpty); err != nil {
		return err
	}
	log := d.log.WithName("consolidation")
	if err := mgr.Add(everyOrWoken(d.clock, d.timings.ConsolidationInterval, d.timings.DisruptionInterval, d.drained, log, d.consolidate)); err != nil {
		return fmt.Errorf("adding the consolidation loop: %w", err)
	}
	return nil
}

// removeEmpty plans emptiness alone and deletes the claims of the nodes
// its commands remove, counting the empty nodes a rule held back.
func (d *disruption) removeEmpty(ctx context.Context, now time.Time) error {
	v, err := d.observe(ctx, now)
	if err != nil {
		return err
	}
	if !anyEmpty(v.snap) {
		// Nothing for the emptiness method to remove: skip its plan (it
		// runs every second; live, half of it was spent on views of
		// clusters without an empty node).
		return nil
	}
	res, err := d.plan(ctx, v, now, []consolidation.Reason{consolidation.ReasonEmpty})
	if err != nil {
		return err
	}
	for _, k := range res.Kept {
		if k.Held != "" {
			d.metrics.disruptionDecisions.WithLabelValues(string(k.Method), "blocked-"+string(k.Held)).Inc()
		}
	}
	for _, cmd := range res.Commands {
		if err := d.deleteEach(ctx, v, cmd); err != nil {
			return err
		}
	}
	return nil
}

// anyEmpty reports whether a node of snap that is not in flight runs no
// workload pod (daemonset pods aside): the only nodes the emptiness method
// removes.
func anyEmpty(snap *state.Snapshot) bool {
	busy := map[string]bool{}
	for _, p := range snap.Pods {
		if p.Workload() {
			busy[p.NodeName] = true
		}
	}
	return slices.ContainsFunc(snap.Nodes, func(n *state.Node) bool { return !n.InFlight && !busy[n.Name] })
}

// deleteEach deletes the claim of each node of a command without
// replacements, skipping a node whose claim is missing or already going.
func (d *disruption) deleteEach(ctx context.Context, v *clusterView, cmd consolidation.Command) error {
	for _, name := range cmd.Nodes {
		claim := v.claimOfNode(name)
		if why := claimBlocks(name, claim); why != "" {
			d.metrics.disruptionDecisions.WithLabelValues(string(cmd.Reason), "skipped").Inc()
			d.log.V(1).Info("skipping a node of a disruption command", "node", name, "why", why)
			continue
		}
		if err := d.disrupter.disrupt(ctx, claim, string(cmd.Reason), cmd.Detail); err != nil {
			return err
		}
	}
	return nil
}

// observe reads a view to plan on at now: the claims' conditions recorded
// (their clocks copied into the snapshot), the nodes pods were nominated
// to within the nomination window marked, while those pods wait to be
// bound, and the held nodes marked (markHeld).
func (d *disruption) observe(ctx context.Context, now time.Time) (*clusterView, error) {
	v, err := d.views.view(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.conditions.record(ctx, v, now); err != nil {
		return nil, err
	}
	awaited := map[string]bool{}
	for _, node := range d.nominated.expected(v, v.pending, now) {
		awaited[node] = true
	}
	maps.Copy(awaited, d.slots.awaited(v, now))
	for _, n := range v.snap.Nodes {
		if awaited[n.Name] {
			n.Nominated = true
		}
	}
	if d.buffers != nil {
		d.buffers.hold(v, now)
	}
	markHeld(v, &d.inflight, now, d.timings.ReplacementHold)
	return v, nil
}

// plan makes consolidation's plan for reasons (nil: every method) on v at
// now, around the pending pods (consolidation.PlanAroundPending: the nodes
// they would be placed on are not disrupted), as `tenon simulate
// --consolidate` plans. Timings.SolveTimeout bounds it.
func (d *disruption) plan(ctx context.Context, v *clusterView, now time.Time, reasons []consolidation.Reason) (*consolidation.Result, error) {
	opts := consolidation.DefaultOptions()
	opts.Reasons = reasons
	planCtx, cancel := context.WithTimeout(ctx, d.timings.SolveTimeout)
	defer cancel()
	res, err := consolidation.PlanAroundPending(planCtx, v.snap, now, opts)
	if err != nil {
		return nil, fmt.Errorf("planning consolidation: %w", err)
	}
	return res, nil
}
