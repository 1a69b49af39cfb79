package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// consolidate makes the whole plan on a fresh view and runs its commands
// that are not emptiness (removeEmpty runs those, within a
// DisruptionInterval; planning them here too spends the budgets they take
// and leaves the rest of the plan as `tenon simulate` makes it), in order,
// each in turn: launch its replacements and wait until they are
// initialized, re-validate that the pods of the nodes it removes still
// fit on what is left, then delete those nodes' claims (termination
// drains them through the Eviction API, honouring PDBs). One plan at a
// time: while the nodes an earlier plan deleted still drain (draining), it
// plans nothing.
func (d *disruption) consolidate(ctx context.Context, now time.Time) error {
	v, err := d.observe(ctx, now)
	if err != nil {
		return err
	}
	if stale := staleCordons(v, &d.inflight); len(stale) > 0 {
		d.log.Info("removing the disruption taint no command needs", "nodes", stale)
		if err := d.uncordon(ctx, stale); err != nil {
			return err
		}
		return nil // the next tick plans with them
	}
	if nodes := draining(v, now, d.timings.ReplacementHold); nodes != "" {
		d.rankForScaleDown(v, d.leaving)
		d.metrics.disruptionDecisions.WithLabelValues(string(consolidation.ReasonUnderutilized), "waiting-for-drain").Inc()
		d.log.V(1).Info("waiting for nodes to drain before planning the next command", "nodes", nodes)
		return nil
	}
	d.countUnhealthy(v)
	res, err := d.plan(ctx, v, now, nil)
	if err != nil {
		return err
	}
	if d.log.V(1).Enabled() {
		for _, k := range res.Kept {
			d.log.V(1).Info("consolidation keeps node", "node", k.Node, "why", k.Reason)
		}
	}
	if err := d.explainKept(ctx, v, res); err != nil {
		return err
	}
	if err := d.steer(ctx, v, res.Leaving); err != nil {
		// Steering only keeps pods off nodes that go; the plan stands.
		d.log.Error(err, "steering pods away from the nodes consolidation expects to remove")
	}
	d.leaving = res.Leaving
	d.rankForScaleDown(v, res.Leaving)
	var runnable []consolidation.Command
	for _, cmd := range res.Commands {
		if cmd.Reason == consolidation.ReasonEmpty {
			continue
		}
		if why := commandBlocked(v, cmd); why != "" {
			d.metrics.disruptionDecisions.WithLabelValues(string(cmd.Reason), "skipped").Inc()
			d.log.V(1).Info("skipping consolidation command", "nodes", cmd.Nodes, "why", why)
			continue
		}
		runnable = append(runnable, cmd)
	}
	return d.executeAll(ctx, v, runnable, now)
}

// executeAll runs the commands of one plan in its order: the plan placed
// their pods together, within the budgets, so running them one plan (and
// one drain) apart would only stretch the walk. All are in flight from
// the start, so that neither emptiness nor anything else takes a later
// command's nodes or destinations while an earlier one runs. An error
// stops the rest.
func (d *disruption) executeAll(ctx context.Context, v *clusterView, cmds []consolidation.Command, now time.Time) error {
	var nodes []string
	for _, cmd := range cmds {
		d.inflight.add(cmd.Nodes, string(cmd.Reason)+": "+cmd.Detail)
		d.inflight.addTargets(destinations(cmd), cmd.Nodes, string(cmd.Reason)+": "+cmd.Detail, now)
		nodes = append(nodes, cmd.Nodes...)
	}
	if err := d.cordon(ctx, nodes); err != nil {
		return errors.Join(err, d.abandon(ctx, cmds))
	}
	for i, cmd := range cmds {
		if err := d.execute(ctx, v, cmd, now); err != nil {
			return errors.Join(err, d.abandon(ctx, cmds[i+1:]))
		}
	}
	return nil
}

// abandon releases commands that will not run: their nodes and
// destinations are no longer held, nor tainted.
func (d *disruption) abandon(ctx context.Context, cmds []consolidation.Command) error {
	var nodes []string
	for _, cmd := range cmds {
		d.inflight.done(cmd.Nodes)
		d.inflight.dropTargets(cmd.Nodes)
		nodes = append(nodes, cmd.Nodes...)
	}
	return d.uncordon(ctx, nodes)
}

// commandBlocked says why a command must not run now, or "": the plan
// decided on the Snapshot, and only the claims say whether the agent can
// act on a node.
func commandBlocked(v *clusterView, cmd consolidation.Command) string {
	for _, name := range cmd.Nodes {
		if why := claimBlocks(name, v.claimOfNode(name)); why != "" {
			return why
		}
	}
	return ""
}

// claimBlocks says why node name, whose claim is claim, cannot be
// disrupted, or "".
func claimBlocks(name string, claim *v1.NodeClaim) string {
	switch {
	case claim == nil:
		return "node " + name + " has no nodeclaim"
	case claim.DeletionTimestamp != nil:
		return "node " + name + " is already being deleted"
	}
	return ""
}

// execute runs one command at now. Its nodes are in flight (held from
// every other plan) until their claims are deleted or the command is
// abandoned; the existing nodes its pods move to are held until its nodes
// are gone (inFlight.targetHold).
func (d *disruption) execute(ctx context.Context, v *clusterView, cmd consolidation.Command, now time.Time) error {
	reason := string(cmd.Reason)
	log := d.log.WithValues("reason", reason, "nodes", cmd.Nodes, "replacements", len(cmd.Replacements))
	log.Info("consolidating", "detail", cmd.Detail, "costBeforePerHour", cmd.CostBeforePerHour, "costAfterPerHour", cmd.CostAfterPerHour)
	d.inflight.add(cmd.Nodes, reason+": "+cmd.Detail)
	defer d.inflight.done(cmd.Nodes)
	d.inflight.addTargets(destinations(cmd), cmd.Nodes, reason+": "+cmd.Detail, now)
	launched, err := d.replace(ctx, v, cmd)
	if err != nil {
		return errors.Join(err, d.release(ctx, launched), d.abandon(ctx, []consolidation.Command{cmd}))
	}
	// Re-validate on the cluster as it is now.
	fresh, err := d.views.view(ctx)
	if err != nil {
		return errors.Join(err, d.release(ctx, launched), d.abandon(ctx, []consolidation.Command{cmd}))
	}
	// A static pool asked to shrink sheds its surplus whether or not its
	// pods fit elsewhere (they wait as pending pods, as Karpenter's do).
	shrink := cmd.Reason == consolidation.ReasonOverprovisioned
	why := ""
	if !shrink && cmd.Reason != consolidation.ReasonUnhealthy {
		why = podsChangedOn(v.snap, fresh.snap, cmd.Nodes)
		if why == "" {
			if why, err = scalingOwner(ctx, d.client, cmd.Nodes); err != nil {
				return errors.Join(err, d.release(ctx, launched), d.abandon(ctx, []consolidation.Command{cmd}))
			}
		}
	}
	if why == "" {
		why = revalidate(ctx, fresh.snap, cmd, launched, d.timings.SolveTimeout)
	}
	if why != "" && !shrink {
		d.metrics.disruptionDecisions.WithLabelValues(reason, "invalidated").Inc()
		log.Info("consolidation command no longer valid; not removing its nodes", "why", why)
		return errors.Join(d.release(ctx, launched), d.abandon(ctx, []consolidation.Command{cmd}))
	}
	for _, name := range cmd.Nodes {
		claim := fresh.claimOfNode(name)
		if claim == nil {
			continue
		}
		if cmd.Reason == consolidation.ReasonUnhealthy {
			d.recordRepair(v, name, claim, cmd.Detail)
		}
		if err := d.disrupter.disrupt(ctx, claim, reason, cmd.Detail); err != nil {
			return err
		}
	}
	return nil
}

// destinations are the existing nodes a command's pods move to (not its
// replacements), sorted.
func destinations(cmd consolidation.Command) []string {
	replacement := map[string]bool{}
	for _, r := range cmd.Replacements {
		replacement[r.Name] = true
	}
	var out []string
	for _, m := range cmd.Moves {
		if m.To != "" && !replacement[m.To] && !slices.Contains(out, m.To) {
			out = append(out, m.To)
		}
	}
	slices.Sort(out)
	return out
}

// release takes the replacement mark off the claims an abandoned command
// launched: nothing moves to them, so they are ordinary nodes again, which
// emptiness removes after consolidateAfter unless pods came to them.
func (d *disruption) release(ctx context.Context, launched []string) error {
	var errs []error
	for _, name := range launched {
		c := &v1.NodeClaim{}
		if err := d.client.Get(ctx, client.ObjectKey{Name: name}, c); err != nil {
			errs = append(errs, client.IgnoreNotFound(err))
			continue
		}
		patch := client.MergeFrom(c.DeepCopy())
		delete(c.Annotations, annotationReplacementOf)
		if err := d.client.Patch(ctx, c, patch); err != nil {
			errs = append(errs, fmt.Errorf("releasing replacement nodeclaim %s of an abandoned command: %w", name, client.IgnoreNotFound(err)))
		}
	}
	return errors.Join(errs...)
}

// replace creates the claims of a command's replacements, each annotated
// with the nodes it replaces, and waits until they are initialized (at
// most ReplacementTimeout). It returns the names of the claims created.
func (d *disruption) replace(ctx context.Context, v *clusterView, cmd consolidation.Command) ([]string, error) {
	var launched []string
	for _, r := range cmd.Replacements {
		claim, err := replacementClaim(v, cmd, r)
		if err != nil {
			return launched, err
		}
		if err := d.client.Create(ctx, claim); err != nil {
			return launched, fmt.Errorf("creating replacement nodeclaim for %s: %w", strings.Join(cmd.Nodes, ", "), err)
		}
		launched = append(launched, claim.Name)
		d.metrics.nodeClaimsCreated.WithLabelValues(r.NodePool).Inc()
	}
	if len(launched) == 0 {
		return nil, nil
	}
	err := wait.PollUntilContextTimeout(ctx, d.timings.ReplacementPollInterval, d.timings.ReplacementTimeout, false, func(ctx context.Context) (bool, error) {
		for _, name := range launched {
			c := &v1.NodeClaim{}
			if err := d.client.Get(ctx, client.ObjectKey{Name: name}, c); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			if !isTrue(c, v1.ConditionInitialized) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		d.metrics.disruptionDecisions.WithLabelValues(string(cmd.Reason), "replacement-failed").Inc()
		return launched, fmt.Errorf("consolidating %s: replacements %v not initialized: %w", strings.Join(cmd.Nodes, ", "), launched, err)
	}
	return launched, nil
}

// replacementClaim turns a command's replacement into a NodeClaim of its
// pool, restricted to the offering the plan priced.
func replacementClaim(v *clusterView, cmd consolidation.Command, r consolidation.Replacement) (*v1.NodeClaim, error) {
	var pool *state.Pool
	for _, p := range v.snap.Pools {
		if p.Name == r.NodePool {
			pool = p
		}
	}
	if pool == nil {
		return nil, fmt.Errorf("replacement for %s names pool %q, which is not in the snapshot", strings.Join(cmd.Nodes, ", "), r.NodePool)
	}
	requests := corev1.ResourceList{}
	for _, p := range v.snap.Pods {
		if slices.Contains(r.Pods, p.Key()) {
			for name, q := range p.Requests {
				sum := requests[name]
				sum.Add(q)
				requests[name] = sum
			}
		}
	}
	// Keys the pool leaves open (In [a, b]) commit to the value the plan
	// chose, so the node carries the label its pods need.
	reqs := pool.Requirements.Clone()
	for key, value := range r.Labels {
		reqs.Add(scheduling.In(key, value))
	}
	claim, err := nodeClaimFor(&packing.Claim{
		Name: r.Name, Pool: pool.Name, Requirements: reqs, Pods: r.Pods, Requests: requests,
		Options: []packing.InstanceOption{{InstanceType: r.InstanceType, Zone: r.Zone, CapacityType: r.CapacityType, PricePerHour: r.PricePerHour}},
	}, pool)
	if err != nil {
		return nil, err
	}
	if claim.Annotations == nil {
		claim.Annotations = map[string]string{}
	}
	claim.Annotations[annotationReplacementOf] = strings.Join(cmd.Nodes, ",")
	return claim, nil
}

// revalidate checks a command on the cluster as it is once its
// replacements run: valid ("") when every pod still fits where the plan
// moves it (plannedMovesFit), else when packing finds room for them
// without a new node (stillValid), else why not. Packing alone is a
// heuristic that need not find the plan's own placement again: on the
// live burst benchmark it invalidated commands whose replacements had just
// launched, whose nodes the next plans then filled and replaced again.
func revalidate(ctx context.Context, snap *state.Snapshot, cmd consolidation.Command, launched []string, timeout time.Duration) string {
	if plannedMovesFit(snap, cmd, launched) {
		return ""
	}
	return stillValid(ctx, snap, cmd.Nodes, timeout)
}

// plannedMovesFit reports whether every pod on the command's nodes is one
// of its moves and still fits on the move's target (a replacement by the
// claim launched for it, else the existing node), no target being deleted
// or disrupted, with room kept on each target for the daemonset pods that
// run there but are not bound yet.
func plannedMovesFit(snap *state.Snapshot, cmd consolidation.Command, launched []string) bool {
	if len(launched) != len(cmd.Replacements) {
		return false
	}
	renamed := map[string]string{}
	for i, r := range cmd.Replacements {
		renamed[r.Name] = launched[i]
	}
	gone := map[string]bool{}
	for _, n := range cmd.Nodes {
		gone[n] = true
	}
	byName := map[string]*state.Node{}
	for _, n := range snap.Nodes {
		if !gone[n.Name] {
			byName[n.Name] = n
			if n.Claim != "" {
				byName[n.Claim] = n
			}
		}
	}
	bound := map[string][]*state.Pod{}
	for _, p := range snap.Pods {
		if p.NodeName != "" && !gone[p.NodeName] {
			bound[p.NodeName] = append(bound[p.NodeName], p)
		}
	}
	free := map[string]corev1.ResourceList{}
	moves := map[string]string{}
	for _, m := range cmd.Moves {
		moves[m.Pod] = m.To
	}
	for _, p := range snap.Pods {
		if !gone[p.NodeName] || p.DaemonSet {
			continue
		}
		to, ok := moves[p.Key()]
		if r, isReplacement := renamed[to]; isReplacement {
			to = r
		}
		n := byName[to]
		if !ok || n == nil || n.MarkedForDeletion || slices.ContainsFunc(n.Taints, func(t corev1.Taint) bool { return t.Key == v1.TaintKeyDisrupted }) {
			return false
		}
		room := free[n.Name]
		if room == nil {
			room = roomOn(n, bound[n.Name], snap.DaemonSets)
			free[n.Name] = room
		}
		if !fits(room, p.Requests) {
			return false
		}
		take(room, p.Requests)
	}
	return true
}

// roomOn is n's allocatable less its bound pods' requests and those of
// each daemonset that runs there without a pod bound yet.
func roomOn(n *state.Node, pods []*state.Pod, dss []*state.DaemonSet) corev1.ResourceList {
	room := n.Allocatable.DeepCopy()
	present := map[string]bool{}
	for _, p := range pods {
		take(room, p.Requests)
		if p.DaemonSet {
			present[p.Namespace+"/"+p.Owner.Name] = true
		}
	}
	for _, ds := range dss {
		if !present[ds.Namespace+"/"+ds.Name] && ds.RunsOn(n.Labels, n.Taints) {
			take(room, ds.Pod.Requests)
		}
	}
	return room
}

// stillValid checks that the pods of nodes fit on the rest of snap (the
// replacements included) without launching anything: "" when they do, else
// why not.
func stillValid(ctx context.Context, snap *state.Snapshot, nodes []string, timeout time.Duration) string {
	gone := map[string]bool{}
	for _, n := range nodes {
		gone[n] = true
	}
	rest := *snap
	rest.Nodes = slices.DeleteFunc(slices.Clone(snap.Nodes), func(n *state.Node) bool { return gone[n.Name] })
	rest.Pods = make([]*state.Pod, 0, len(snap.Pods))
	var moving []*state.Pod
	for _, p := range snap.Pods {
		if gone[p.NodeName] {
			if p.DaemonSet {
				continue
			}
			c := *p
			c.NodeName = ""
			moving = append(moving, &c)
			rest.Pods = append(rest.Pods, &c)
			continue
		}
		rest.Pods = append(rest.Pods, p)
	}
	if len(moving) == 0 {
		return ""
	}
	solveCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := packing.Solve(solveCtx, &rest, moving)
	switch {
	case err != nil:
		return "re-validating: " + err.Error()
	case len(res.Unschedulable) > 0:
		return fmt.Sprintf("pod %s would have nowhere to go: %s", res.Unschedulable[0].Pod, res.Unschedulable[0].Reason)
	case len(res.Claims) > 0:
		return fmt.Sprintf("its pods would need %d new node(s)", len(res.Claims))
	}
	return ""
}

// podsChangedOn says which of nodes gained or lost a workload pod between
// the plan's snapshot and now, or "". A pod event restarts the node's
// consolidateAfter; and a controller scaling down or rolling out is
// deleting pods a PodDisruptionBudget counts, whose status lags: evicting
// then could take the budget below its minimum. The next plan decides
// again once the pods are calm.
func podsChangedOn(planned, now *state.Snapshot, nodes []string) string {
	on := map[string]bool{}
	for _, n := range nodes {
		on[n] = true
	}
	pods := func(snap *state.Snapshot) map[string]string {
		out := map[string]string{}
		for _, p := range snap.Pods {
			if p.Workload() && on[p.NodeName] {
				out[p.Key()] = p.NodeName
			}
		}
		return out
	}
	before, after := pods(planned), pods(now)
	for _, n := range nodes {
		for k, node := range before {
			if _, ok := after[k]; !ok && node == n {
				return fmt.Sprintf("pod %s left node %s since the plan", k, n)
			}
		}
		for k, node := range after {
			if _, ok := before[k]; !ok && node == n {
				return fmt.Sprintf("pod %s came to node %s since the plan", k, n)
			}
		}
	}
	return ""
}
