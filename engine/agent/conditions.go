package agent

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// claimConditions keeps the disruption conditions of registered claims
// current, so that people (and kubectl) see what the agent sees, and so
// that the clock consolidateAfter counts from survives restarts: Empty (no
// workload pods; its transition time is when the node emptied),
// Consolidatable (consolidateAfter has passed since the last pod event),
// Expired (older than expireAfter) and Drifted (launched from a pool
// template that has since changed); status.lastPodEventTime moves when
// pods come or go. It remembers each node's workload pod count at the last
// look, to notice pods coming and going.
type claimConditions struct {
	client client.Client
	mu     sync.Mutex
	counts map[string]int
}

func newClaimConditions(c client.Client) *claimConditions {
	return &claimConditions{client: c, counts: map[string]int{}}
}

// record updates the conditions of every initialized claim whose node is
// in v's snapshot, from the snapshot's workload pods, and sets each such
// node's LastPodEventTime in the snapshot to its claim's: a plan made on
// the snapshot then counts consolidateAfter from the clock the claims
// carry, including an event this look has just seen.
func (cc *claimConditions) record(ctx context.Context, v *clusterView, now time.Time) error {
	nodes := map[string]*state.Node{}
	for _, n := range v.snap.Nodes {
		nodes[n.Name] = n
	}
	pools := map[string]*state.Pool{}
	for _, p := range v.snap.Pools {
		pools[p.Name] = p
	}
	workload := map[string]int{}
	for _, p := range v.snap.Pods {
		if p.Workload() {
			workload[p.NodeName]++
		}
	}
	cc.forgetGone(nodes)
	for _, name := range sortedKeys(v.claims) {
		c := v.claims[name]
		node := nodes[c.Status.NodeName]
		if c.DeletionTimestamp != nil || !isTrue(c, v1.ConditionInitialized) || node == nil || node.InFlight {
			continue
		}
		count := workload[node.Name]
		out, err := cc.update(ctx, c, pools[c.Labels[v1.LabelNodePool]], count == 0, cc.changed(node.Name, count), now)
		if err != nil {
			return err
		}
		node.LastPodEventTime = out.Status.LastPodEventTime.Time
	}
	return nil
}

// changed reports whether node's workload pod count differs from the one
// seen last time (not on the first look).
func (cc *claimConditions) changed(node string, count int) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	last, seen := cc.counts[node]
	cc.counts[node] = count
	return seen && last != count
}

// forgetGone drops the pod counts of nodes that are gone.
func (cc *claimConditions) forgetGone(nodes map[string]*state.Node) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for name := range cc.counts {
		if nodes[name] == nil {
			delete(cc.counts, name)
		}
	}
}

// update sets c's conditions for what this look saw and writes the status
// when something changed. It returns the claim as written (or as it would
// have been, when the write lost a conflict: the next look writes it).
func (cc *claimConditions) update(ctx context.Context, c *v1.NodeClaim, pool *state.Pool, empty, podsChanged bool, now time.Time) (*v1.NodeClaim, error) {
	out := c.DeepCopy()
	if podsChanged {
		out.Status.LastPodEventTime = metav1.NewTime(now)
	}
	set := func(t string, on bool, reasonOn, reasonOff string) {
		status, reason := metav1.ConditionFalse, reasonOff
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
			Type: t, Status: status, Reason: reason, LastTransitionTime: metav1.NewTime(now), ObservedGeneration: c.Generation,
		})
	}
	set(v1.ConditionEmpty, empty, "NoWorkloadPods", "WorkloadPods")
	if pool != nil {
		stable := out.Status.LastPodEventTime.Time
		if stable.Before(c.CreationTimestamp.Time) {
			stable = c.CreationTimestamp.Time
		}
		after := pool.Disruption.ConsolidateAfter
		set(v1.ConditionConsolidatable, after != nil && now.Sub(stable) >= *after, "ConsolidateAfterPassed", "Waiting")
		hash := c.Annotations[v1.AnnotationNodePoolHash]
		set(v1.ConditionDrifted, hash != "" && hash != pool.TemplateHash, "NodePoolDrifted", "NotDrifted")
	}
	expireAfter, expires := c.Spec.ExpireAfter.Duration()
	set(v1.ConditionExpired, expires && now.Sub(c.CreationTimestamp.Time) >= expireAfter, "ExpireAfterPassed", "NotExpired")
	if equality.Semantic.DeepEqual(out.Status, c.Status) {
		return out, nil
	}
	if err := cc.client.Status().Update(ctx, out); err != nil {
		return out, ignoreConflict(client.IgnoreNotFound(err))
	}
	return out, nil
}
