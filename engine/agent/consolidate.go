package agent

import (
	"context"
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
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// consolidationInterval is how often the agent plans consolidation.
const consolidationInterval = 10 * time.Second

// replacementTimeout bounds the wait for a command's replacements to be
// initialized.
const replacementTimeout = 5 * time.Minute

// consolidate plans on a fresh Snapshot with engine/consolidation and runs
// the first command that is not plain emptiness (the one-second emptiness
// loop handles those): launch its replacements and wait until they are
// initialized, re-validate that the pods of the nodes it removes still fit
// on what is left, then delete those nodes' claims (termination drains them
// through the Eviction API, honouring PDBs). One command at a time.
func (a *Agent) consolidate(ctx context.Context, now time.Time) error {
	v, err := a.view(ctx)
	if err != nil {
		return err
	}
	planCtx, cancel := context.WithTimeout(ctx, solveTimeout)
	res, err := consolidation.Plan(planCtx, v.snap, now, consolidation.DefaultOptions())
	cancel()
	if err != nil {
		return fmt.Errorf("planning consolidation: %w", err)
	}
	if a.log.V(1).Enabled() {
		for _, k := range res.Kept {
			a.log.V(1).Info("consolidation keeps node", "node", k.Node, "why", k.Reason)
		}
	}
	var landing map[string]bool
	for _, cmd := range res.Commands {
		if cmd.Reason == consolidation.ReasonEmpty {
			continue
		}
		if landing == nil {
			if landing, err = pendingTargets(ctx, v); err != nil {
				return err
			}
		}
		if why := a.blocked(v, cmd, landing, now); why != "" {
			a.metrics.disruptionDecisions.WithLabelValues(string(cmd.Reason), "skipped").Inc()
			a.log.V(1).Info("skipping consolidation command", "nodes", cmd.Nodes, "why", why)
			continue
		}
		return a.execute(ctx, v, cmd)
	}
	return nil
}

// blocked says why a command must not run now, or "". landing holds the
// nodes and claims pending pods would be placed on (pendingTargets).
func (a *Agent) blocked(v *clusterView, cmd consolidation.Command, landing map[string]bool, now time.Time) string {
	for _, name := range cmd.Nodes {
		claim := v.claimOfNode(name)
		switch {
		case claim == nil:
			return "node " + name + " has no nodeclaim"
		case claim.DeletionTimestamp != nil:
			return "node " + name + " is already being deleted"
		case a.awaitsPods(v, claim.Name, now) || a.awaitsPods(v, name, now):
			return "node " + name + " awaits pods nominated to it"
		case landing[claim.Name] || landing[name]:
			return "pending pods would be placed on node " + name
		}
	}
	return ""
}

// claimOfNode returns the claim whose node is name, or nil.
func (v *clusterView) claimOfNode(name string) *v1.NodeClaim {
	for _, c := range v.claims {
		if c.Status.NodeName == name {
			return c
		}
	}
	return nil
}

// execute runs one command.
func (a *Agent) execute(ctx context.Context, v *clusterView, cmd consolidation.Command) error {
	reason := string(cmd.Reason)
	log := a.log.WithValues("reason", reason, "nodes", cmd.Nodes, "replacements", len(cmd.Replacements))
	log.Info("consolidating", "detail", cmd.Detail, "costBeforePerHour", cmd.CostBeforePerHour, "costAfterPerHour", cmd.CostAfterPerHour)
	var launched []string
	for _, r := range cmd.Replacements {
		claim, err := a.replacementClaim(v, cmd, r)
		if err != nil {
			return err
		}
		if err := a.client.Create(ctx, claim); err != nil {
			return fmt.Errorf("creating replacement nodeclaim for %s: %w", strings.Join(cmd.Nodes, ", "), err)
		}
		launched = append(launched, claim.Name)
		a.metrics.nodeClaimsCreated.WithLabelValues(r.NodePool).Inc()
	}
	if len(launched) > 0 {
		err := wait.PollUntilContextTimeout(ctx, time.Second, replacementTimeout, false, func(ctx context.Context) (bool, error) {
			for _, name := range launched {
				c := &v1.NodeClaim{}
				if err := a.client.Get(ctx, client.ObjectKey{Name: name}, c); err != nil {
					return false, client.IgnoreNotFound(err)
				}
				if !isTrue(c, v1.ConditionInitialized) {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			a.metrics.disruptionDecisions.WithLabelValues(reason, "replacement-failed").Inc()
			return fmt.Errorf("consolidating %s: replacements %v not initialized: %w", strings.Join(cmd.Nodes, ", "), launched, err)
		}
	}
	// Re-validate on the cluster as it is now.
	fresh, err := a.view(ctx)
	if err != nil {
		return err
	}
	if why := stillValid(ctx, fresh.snap, cmd.Nodes); why != "" {
		a.metrics.disruptionDecisions.WithLabelValues(reason, "invalidated").Inc()
		log.Info("consolidation command no longer valid; not removing its nodes", "why", why)
		return nil
	}
	for _, name := range cmd.Nodes {
		claim := fresh.claimOfNode(name)
		if claim == nil {
			continue
		}
		if err := a.disrupt(ctx, claim, reason, cmd.Detail); err != nil {
			return err
		}
	}
	return nil
}

// replacementClaim turns a command's replacement into a NodeClaim of its
// pool, restricted to the offering the plan priced.
func (a *Agent) replacementClaim(v *clusterView, cmd consolidation.Command, r consolidation.Replacement) (*v1.NodeClaim, error) {
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
	return nodeClaimFor(&packing.Claim{
		Name: r.Name, Pool: pool.Name, Requirements: pool.Requirements.Clone(), Pods: r.Pods, Requests: requests,
		Options: []packing.InstanceOption{{InstanceType: r.InstanceType, Zone: r.Zone, CapacityType: r.CapacityType, PricePerHour: r.PricePerHour}},
	}, pool)
}

// stillValid checks that the pods of nodes fit on the rest of snap (the
// replacements included) without launching anything: "" when they do, else
// why not.
func stillValid(ctx context.Context, snap *state.Snapshot, nodes []string) string {
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
	solveCtx, cancel := context.WithTimeout(ctx, solveTimeout)
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
