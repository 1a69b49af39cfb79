package agent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Disruption reasons.
const (
	DisruptionEmpty = "Empty"
)

// nominationWindow is how long a node that just received nominated pods is
// kept from disruption: the scheduler binds them within seconds of the
// node becoming ready, and until then the node looks empty.
const nominationWindow = 30 * time.Second

// disruptEmpty deletes the claims of nodes that have run no workload pod
// for their pool's consolidateAfter (a Provisioner's ttlSecondsAfterEmpty),
// within the pool's disruption budgets. It records the Empty condition on
// every registered claim, so the clock survives restarts.
func (a *Agent) disruptEmpty(ctx context.Context, now time.Time) error {
	v, err := a.view(ctx)
	if err != nil {
		return err
	}
	workloads := map[string]int{}
	for _, p := range v.objects.Pods {
		if p.Spec.NodeName != "" && !isDaemonSetPod(p) && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			workloads[p.Spec.NodeName]++
		}
	}
	nodes := map[string]*corev1.Node{}
	for _, n := range v.objects.Nodes {
		nodes[n.Name] = n
	}
	pools := map[string]*state.Pool{}
	for _, p := range v.snap.Pools {
		pools[p.Name] = p
	}
	a.forgetPodCounts(nodes)
	// Budgets count each pool's claims and those already leaving.
	total, leaving := map[string]int{}, map[string]int{}
	for _, c := range v.claims {
		pool := c.Labels[v1.LabelNodePool]
		total[pool]++
		if c.DeletionTimestamp != nil {
			leaving[pool]++
		}
	}
	candidates := map[string][]*v1.NodeClaim{}
	for _, name := range sortedKeys(v.claims) {
		c := v.claims[name]
		node := nodes[c.Status.NodeName]
		if c.DeletionTimestamp != nil || !isTrue(c, v1.ConditionInitialized) || node == nil {
			continue
		}
		empty := workloads[node.Name] == 0
		pool := pools[c.Labels[v1.LabelNodePool]]
		if err := a.recordConditions(ctx, c, pool, empty, a.podsChanged(node.Name, workloads[node.Name]), now); err != nil {
			return err
		}
		if !empty || pool == nil || pool.Disruption.ConsolidateAfter == nil {
			continue
		}
		since := conditionTime(c, v1.ConditionEmpty)
		if now.Sub(since) < *pool.Disruption.ConsolidateAfter {
			continue
		}
		if a.awaitsPods(v, c.Name, now) || a.awaitsPods(v, node.Name, now) {
			continue
		}
		if node.Annotations[v1.AnnotationDoNotDisrupt] == "true" {
			a.metrics.disruptionDecisions.WithLabelValues(DisruptionEmpty, "blocked-do-not-disrupt").Inc()
			continue
		}
		candidates[pool.Name] = append(candidates[pool.Name], c)
	}
	if len(candidates) > 0 {
		landing, err := pendingTargets(ctx, v)
		if err != nil {
			return err
		}
		for pool, claims := range candidates {
			candidates[pool] = slices.DeleteFunc(claims, func(c *v1.NodeClaim) bool {
				if landing[c.Name] || landing[c.Status.NodeName] {
					a.metrics.disruptionDecisions.WithLabelValues(DisruptionEmpty, "blocked-pending-pods").Inc()
					return true
				}
				return false
			})
		}
	}
	for _, poolName := range sortedKeys(candidates) {
		pool := pools[poolName]
		allowed, err := allowedDisruptions(pool, DisruptionEmpty, total[poolName], now)
		if err != nil {
			a.log.Error(err, "reading disruption budgets", "nodepool", poolName)
			continue
		}
		allowed -= leaving[poolName]
		for i, c := range candidates[poolName] {
			if i >= allowed {
				a.metrics.disruptionDecisions.WithLabelValues(DisruptionEmpty, "blocked-budget").Add(float64(len(candidates[poolName]) - i))
				break
			}
			if err := a.disrupt(ctx, c, DisruptionEmpty, fmt.Sprintf("node %s has been empty for %s (consolidateAfter %s)",
				c.Status.NodeName, now.Sub(conditionTime(c, v1.ConditionEmpty)).Round(time.Second), pool.Disruption.ConsolidateAfter)); err != nil {
				return err
			}
		}
	}
	return nil
}

// pendingTargets solves the pending pods on the cluster as it is and
// returns the nodes and claims the solve puts them on. An empty node that a
// pending pod is about to land on is not empty for long: removing it would
// only launch another node for the same pod. The agent's own nominations
// say the same for the pods it nominated, but they live in memory; this
// holds after a restart, and for pods the agent never saw nominated (a
// node freed by another, a pod created while the node was booting).
func pendingTargets(ctx context.Context, v *clusterView) (map[string]bool, error) {
	landing := map[string]bool{}
	pending := v.snap.PendingPods()
	if len(pending) == 0 {
		return landing, nil
	}
	solveCtx, cancel := context.WithTimeout(ctx, solveTimeout)
	defer cancel()
	res, err := packing.Solve(solveCtx, v.snap, pending)
	if err != nil {
		return nil, fmt.Errorf("solving %d pending pods to see which nodes they need: %w", len(pending), err)
	}
	for _, pl := range res.Placements {
		landing[pl.Node] = true
	}
	return landing, nil
}

// awaitsPods reports whether pods recently nominated to node are still
// waiting to be bound somewhere: the node must stay for them.
func (a *Agent) awaitsPods(v *clusterView, node string, now time.Time) bool {
	for _, key := range a.nominated.waitingFor(node, now) {
		if v.pending[key] {
			return true
		}
	}
	return false
}

// podsChanged reports whether node's workload pod count differs from the
// one seen last time (not on the first look).
func (a *Agent) podsChanged(node string, count int) bool {
	a.podCountsMu.Lock()
	defer a.podCountsMu.Unlock()
	last, seen := a.podCounts[node]
	a.podCounts[node] = count
	return seen && last != count
}

// forgetPodCounts drops the pod counts of nodes that are gone.
func (a *Agent) forgetPodCounts(nodes map[string]*corev1.Node) {
	a.podCountsMu.Lock()
	defer a.podCountsMu.Unlock()
	for name := range a.podCounts {
		if nodes[name] == nil {
			delete(a.podCounts, name)
		}
	}
}

// recordConditions keeps the claim's disruption conditions current, so
// that people (and kubectl) see what the agent sees: Empty (no workload
// pods; its transition time is when the node emptied), Consolidatable
// (consolidateAfter has passed since the last pod event), Expired (older
// than expireAfter) and Drifted (launched from a pool template that has
// since changed). LastPodEventTime moves when pods come or go. The status
// is written only when something changed.
func (a *Agent) recordConditions(ctx context.Context, c *v1.NodeClaim, pool *state.Pool, empty, podsChanged bool, now time.Time) error {
	out := c.DeepCopy()
	if podsChanged {
		out.Status.LastPodEventTime = metav1.NewTime(now)
	}
	set := func(t string, on bool, reasonOn, reasonOff, message string) {
		status := metav1.ConditionFalse
		reason := reasonOff
		if on {
			status, reason = metav1.ConditionTrue, reasonOn
		}
		if cur := meta.FindStatusCondition(out.Status.Conditions, t); cur != nil && cur.Status == status {
			return
		}
		if t == v1.ConditionEmpty {
			out.Status.LastPodEventTime = metav1.NewTime(now)
		}
		meta.SetStatusCondition(&out.Status.Conditions, metav1.Condition{
			Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now), ObservedGeneration: c.Generation,
		})
	}
	set(v1.ConditionEmpty, empty, "NoWorkloadPods", "WorkloadPods", "")
	if pool != nil {
		stable := out.Status.LastPodEventTime.Time
		if stable.Before(c.CreationTimestamp.Time) {
			stable = c.CreationTimestamp.Time
		}
		after := pool.Disruption.ConsolidateAfter
		set(v1.ConditionConsolidatable, after != nil && now.Sub(stable) >= *after, "ConsolidateAfterPassed", "Waiting", "")
		set(v1.ConditionDrifted, c.Annotations[v1.AnnotationNodePoolHash] != "" && c.Annotations[v1.AnnotationNodePoolHash] != pool.TemplateHash,
			"NodePoolDrifted", "NotDrifted", "")
	}
	expireAfter, expires := c.Spec.ExpireAfter.Duration()
	set(v1.ConditionExpired, expires && now.Sub(c.CreationTimestamp.Time) >= expireAfter, "ExpireAfterPassed", "NotExpired", "")
	if equality.Semantic.DeepEqual(out.Status, c.Status) {
		return nil
	}
	if err := a.client.Status().Update(ctx, out); err != nil {
		return ignoreConflict(client.IgnoreNotFound(err))
	}
	return nil
}

// disrupt deletes a claim for reason; termination drains it.
func (a *Agent) disrupt(ctx context.Context, c *v1.NodeClaim, reason, detail string) error {
	patch := client.MergeFrom(c.DeepCopy())
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annotationDisruptionReason] = reason
	if err := a.client.Patch(ctx, c, patch); err != nil {
		return client.IgnoreNotFound(err)
	}
	a.metrics.disruptionDecisions.WithLabelValues(reason, "delete").Inc()
	a.recorder.Eventf(c, nil, corev1.EventTypeNormal, ReasonDisrupting, "Disrupt", "Disrupting (%s): %s", reason, detail)
	a.log.Info("disrupting nodeclaim", "nodeclaim", c.Name, "reason", reason, "detail", detail)
	return client.IgnoreNotFound(a.client.Delete(ctx, c))
}

func isDaemonSetPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}

// budgetCron reads the five-field schedules of NodePool budgets.
var budgetCron = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// allowedDisruptions is the most restrictive budget of pool active now for
// reason: a count, or a percentage of the pool's nodes rounded up; the
// API's default is 10%.
func allowedDisruptions(pool *state.Pool, reason string, nodes int, now time.Time) (int, error) {
	budgets := pool.Disruption.Budgets
	if len(budgets) == 0 {
		budgets = []state.Budget{{Nodes: v1.DefaultBudgetNodes}}
	}
	allowed := math.MaxInt
	for _, b := range budgets {
		if len(b.Reasons) > 0 && !slices.Contains(b.Reasons, reason) {
			continue
		}
		if b.Schedule != "" {
			sched, err := budgetCron.Parse(b.Schedule)
			if err != nil {
				return 0, fmt.Errorf("budget schedule %q: %w", b.Schedule, err)
			}
			if b.Duration == nil {
				continue
			}
			// The window is open if the schedule fired within Duration.
			if next := sched.Next(now.UTC().Add(-*b.Duration)); next.After(now.UTC()) {
				continue
			}
		}
		n, err := budgetNodes(b.Nodes, nodes)
		if err != nil {
			return 0, err
		}
		allowed = min(allowed, n)
	}
	return allowed, nil
}

// budgetNodes reads "5" or "10%" of total (rounded up).
func budgetNodes(value string, total int) (int, error) {
	if p, ok := strings.CutSuffix(value, "%"); ok {
		pct, err := strconv.Atoi(p)
		if err != nil || pct < 0 {
			return 0, fmt.Errorf("budget nodes %q: want a count or a percentage such as 10%%", value)
		}
		return int(math.Ceil(float64(total) * float64(pct) / 100)), nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("budget nodes %q: want a count or a percentage such as 10%%", value)
	}
	return n, nil
}
