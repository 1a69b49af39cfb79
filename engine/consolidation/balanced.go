package consolidation

import (
	"fmt"
	"math"
	"strconv"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/deletioncost"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// The Balanced policy (Karpenter v1.15, disruption/balanced.go): a move of
// underutilized nodes of a Balanced pool must save a share of the pool's
// cost at least 1/v1.BalancedK of the share of the pool's disruption it
// causes. A node's disruption is 1 plus, for each workload pod on it, the
// pod's eviction cost (1, adjusted by its disruption-cost annotation,
// never below 0); the pool's is the sum over its nodes. So a pool of ten
// nodes may take a move that evicts a tenth of its pods for a twentieth of
// its cost, not for less: many pods are moved only for a large saving, a
// nearly empty node goes for a small one. Emptiness, expiration and drift
// are not scored, as in Karpenter. Tenon's savings thresholds
// (minSavingsPerHour, minSavingsPercent, minSavingsPerPod) still apply on
// top.

// balanceTotals are a Balanced pool's cost and disruption, over all its
// nodes in the Snapshot planned on (Karpenter's NodePoolTotals).
type balanceTotals struct{ cost, disruption float64 }

// balancedTotals computes the totals of every Balanced pool of snap.
func (p *planner) balancedTotals() map[string]balanceTotals {
	out := map[string]balanceTotals{}
	for _, n := range p.orig.Nodes {
		pool := p.pools[n.Pool]
		if pool == nil || pool.Disruption.ConsolidationPolicy != string(v1.ConsolidationPolicyBalanced) {
			continue
		}
		t := out[pool.Name]
		t.cost += n.PricePerHour
		t.disruption++
		out[pool.Name] = t
	}
	for _, pod := range p.orig.Pods {
		ni := p.info[pod.NodeName]
		if ni == nil || !pod.Workload() || ni.pool == nil {
			continue
		}
		if t, ok := out[ni.pool.Name]; ok {
			t.disruption += max(0, evictionCost(ni.pool, pod))
			out[ni.pool.Name] = t
		}
	}
	return out
}

// nodeDisruption is a node's disruption cost: 1 plus its pods' eviction
// costs.
func nodeDisruption(n *nodeInfo) float64 {
	d := 1.0
	for _, pod := range n.pods {
		d += max(0, evictionCost(n.pool, pod))
	}
	return d
}

// evictionCost is 1 adjusted by the pod's disruption-cost annotation
// (v1.AnnotationDisruptionCost, Karpenter's unless the pool ignores its
// annotations, else the pod deletion cost unless the agent wrote it:
// deletioncost.Owned); a value that is not an int32 counts as absent.
func evictionCost(pool *state.Pool, pod *state.Pod) float64 {
	if pod.Placeholder {
		// A capacity buffer's placeholder is no pod: moving it disrupts nothing.
		return 0
	}
	keys := []string{v1.AnnotationDisruptionCost}
	if pool == nil || !pool.IgnoreKarpenterAnnotations {
		keys = append(keys, v1.AnnotationKarpenterDisruptionCost)
	}
	if !deletioncost.Owned(pod.Annotations) {
		// The agent's own deletion costs (--pod-deletion-cost) rank nodes for
		// scale-downs; they say nothing about the pod.
		keys = append(keys, v1.AnnotationPodDeletionCost)
	}
	for _, key := range keys {
		s, ok := pod.Annotations[key]
		if !ok {
			continue
		}
		if v, err := strconv.ParseInt(s, 10, 32); err == nil {
			return 1 + float64(v)/math.Pow(2, 27)
		}
	}
	return 1
}

// balancedScore is a move's score for one pool: the share of the pool's
// cost it saves over the share of its disruption it causes.
func balancedScore(saving, disruption float64, t balanceTotals) float64 {
	if t.cost <= 0 || t.disruption <= 0 || saving <= 0 {
		return 0
	}
	if disruption <= 0 {
		return math.Inf(1)
	}
	return (saving / t.cost) / (disruption / t.disruption)
}

// balancedReason says why a command fails the Balanced score of one of its
// nodes' pools, or "". saving is the command's; a command spanning pools
// credits each pool its share of the saving by the price of its nodes, as
// Karpenter does.
func (p *planner) balancedReason(c *command, saving float64) string {
	type share struct{ price, disruption float64 }
	byPool := map[string]*share{}
	var order []string
	for _, n := range c.nodes {
		if n.pool == nil || n.pool.Disruption.ConsolidationPolicy != string(v1.ConsolidationPolicyBalanced) {
			continue
		}
		s := byPool[n.pool.Name]
		if s == nil {
			s = &share{}
			byPool[n.pool.Name] = s
			order = append(order, n.pool.Name)
		}
		s.price += n.price
		s.disruption += nodeDisruption(n)
	}
	for _, name := range order {
		s := byPool[name]
		poolSaving := saving
		if len(byPool) > 1 || len(c.nodes) > len(order) {
			poolSaving = saving * s.price / max(c.CostBeforePerHour, 1e-12)
		}
		if why := p.balancedVerdict(name, poolSaving, s.disruption); why != "" {
			return why
		}
	}
	return ""
}

// balancedVerdict words a failing score of pool, or "".
func (p *planner) balancedVerdict(pool string, saving, disruption float64) string {
	t := p.balanced[pool]
	score := balancedScore(saving, disruption, t)
	if score >= 1.0/v1.BalancedK {
		return ""
	}
	return fmt.Sprintf("Balanced: saves %s%% of nodepool %s's cost for %s%% of its disruption (score %s, needs %s)",
		pct(saving/t.cost), pool, pct(disruption/t.disruption), strconv.FormatFloat(math.Round(score*100)/100, 'f', -1, 64),
		strconv.FormatFloat(1.0/v1.BalancedK, 'f', -1, 64))
}

// balancedHopeless says why no move can take n (a node of a Balanced
// pool): even deleting it, which saves its whole price, scores too low.
func (p *planner) balancedHopeless(n *nodeInfo) string {
	if n.pool.Disruption.ConsolidationPolicy != string(v1.ConsolidationPolicyBalanced) {
		return ""
	}
	return p.balancedVerdict(n.pool.Name, n.price, nodeDisruption(n))
}

func pct(x float64) string {
	return strconv.FormatFloat(math.Round(x*1000)/10, 'f', -1, 64)
}
