package consolidation

import (
	"fmt"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// budgets tracks, per pool, how many nodes the plan may still disrupt for
// each reason.
type budgets struct {
	now time.Time
	// nodes counts each pool's nodes; disrupting those already being
	// deleted; used those this plan disrupts (any reason).
	nodes, disrupting, used map[string]int
}

func newBudgets(snap *state.Snapshot, now time.Time) *budgets {
	b := &budgets{now: now, nodes: map[string]int{}, disrupting: map[string]int{}, used: map[string]int{}}
	for _, n := range snap.Nodes {
		if n.Pool == "" {
			continue
		}
		b.nodes[n.Pool]++
		if n.MarkedForDeletion {
			b.disrupting[n.Pool]++
		}
	}
	return b
}

// allowed returns the budget of pool in force now for reason
// (state.Disruption.ActiveBudget, the one evaluation of budgets), counted
// against the pool's nodes in the snapshot.
func (b *budgets) allowed(pool *state.Pool, reason Reason) (state.ActiveBudget, error) {
	ab, err := pool.Disruption.ActiveBudget(string(reason), b.nodes[pool.Name], b.now)
	if err != nil {
		return state.ActiveBudget{}, fmt.Errorf("nodepool %s: %w", pool.Name, err)
	}
	return ab, nil
}

// take reserves one node of pool's budget for reason, or says why it
// cannot. Expired nodes are not limited but still count as disrupted.
func (b *budgets) take(pool *state.Pool, reason Reason) (string, error) {
	if reason == ReasonExpired {
		b.used[pool.Name]++
		return "", nil
	}
	ab, err := b.allowed(pool, reason)
	if err != nil {
		return "", err
	}
	if ab.Unlimited {
		b.used[pool.Name]++
		return "", nil
	}
	busy := b.disrupting[pool.Name] + b.used[pool.Name]
	if busy < ab.Allowed {
		b.used[pool.Name]++
		return "", nil
	}
	return b.describe(pool, ab), nil
}

// give returns a node taken by take.
func (b *budgets) give(pool *state.Pool) { b.used[pool.Name]-- }

// describe words a budget that allows no more disruptions now.
func (b *budgets) describe(pool *state.Pool, ab state.ActiveBudget) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "budget of nodepool %s allows %d now (", pool.Name, ab.Allowed)
	if ab.Budget.Schedule != "" {
		fmt.Fprintf(&sb, "schedule %q, %s", ab.Budget.Schedule, formatDuration(*ab.Budget.Duration))
	} else {
		fmt.Fprintf(&sb, "nodes %q", ab.Budget.Nodes)
	}
	if len(ab.Budget.Reasons) > 0 {
		fmt.Fprintf(&sb, ", reasons %s", strings.Join(ab.Budget.Reasons, ","))
	}
	sb.WriteString(")")
	if ab.Allowed > 0 {
		var parts []string
		if d := b.disrupting[pool.Name]; d > 0 {
			parts = append(parts, fmt.Sprintf("%d already being deleted", d))
		}
		if u := b.used[pool.Name]; u > 0 {
			parts = append(parts, fmt.Sprintf("%d in this plan", u))
		}
		fmt.Fprintf(&sb, ", all taken: %s", strings.Join(parts, ", "))
	}
	return sb.String()
}
