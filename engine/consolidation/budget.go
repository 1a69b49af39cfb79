package consolidation

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// cronParser reads the five-field schedules NodePool budgets use, and the
// @hourly-style descriptors.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

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

// activeBudget is the most restrictive budget in force for a reason.
type activeBudget struct {
	allowed int
	budget  state.Budget
	// unlimited is set when no budget applies to the reason.
	unlimited bool
}

// allowed returns the most restrictive budget active now for reason in
// pool: each budget's nodes (a count, or a percentage of the pool's nodes
// rounded up) when its cron window (UTC) is open and it covers the
// reason. A pool without budgets has the API's default, 10%.
func (b *budgets) allowed(pool *state.Pool, reason Reason) (activeBudget, error) {
	list := pool.Disruption.Budgets
	if len(list) == 0 {
		list = []state.Budget{{Nodes: "10%"}}
	}
	best := activeBudget{unlimited: true}
	for _, bg := range list {
		if len(bg.Reasons) > 0 && !slices.Contains(bg.Reasons, string(reason)) {
			continue
		}
		open, err := windowOpen(bg, b.now)
		if err != nil {
			return activeBudget{}, fmt.Errorf("nodepool %s: budget schedule %q: %w", pool.Name, bg.Schedule, err)
		}
		if !open {
			continue
		}
		n, err := budgetNodes(bg.Nodes, b.nodes[pool.Name])
		if err != nil {
			return activeBudget{}, fmt.Errorf("nodepool %s: budget nodes %q: %w", pool.Name, bg.Nodes, err)
		}
		if best.unlimited || n < best.allowed {
			best = activeBudget{allowed: n, budget: bg}
		}
	}
	return best, nil
}

// windowOpen reports whether a budget is in force at now: always without a
// schedule, else when the schedule fired within the last duration.
func windowOpen(bg state.Budget, now time.Time) (bool, error) {
	if bg.Schedule == "" {
		return true, nil
	}
	sched, err := cronParser.Parse(bg.Schedule)
	if err != nil {
		return false, err
	}
	if bg.Duration == nil {
		return false, fmt.Errorf("a schedule needs a duration")
	}
	now = now.UTC()
	// Next is strictly after its argument: a firing in (now-d, now] opens
	// the window now.
	next := sched.Next(now.Add(-*bg.Duration))
	return !next.After(now), nil
}

// budgetNodes reads "5" or "10%" of total, a percentage rounded up.
func budgetNodes(s string, total int) (int, error) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(pct, 64)
		if err != nil || v < 0 || v > 100 {
			return 0, fmt.Errorf("not a percentage from 0%% to 100%%")
		}
		return int(math.Ceil(v / 100 * float64(total))), nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("not a count or a percentage")
	}
	return v, nil
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
	if ab.unlimited {
		b.used[pool.Name]++
		return "", nil
	}
	busy := b.disrupting[pool.Name] + b.used[pool.Name]
	if busy < ab.allowed {
		b.used[pool.Name]++
		return "", nil
	}
	return b.describe(pool, ab), nil
}

// give returns a node taken by take.
func (b *budgets) give(pool *state.Pool) { b.used[pool.Name]-- }

// describe words a budget that allows no more disruptions now.
func (b *budgets) describe(pool *state.Pool, ab activeBudget) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "budget of nodepool %s allows %d now (", pool.Name, ab.allowed)
	if ab.budget.Schedule != "" {
		fmt.Fprintf(&sb, "schedule %q, %s", ab.budget.Schedule, formatDuration(*ab.budget.Duration))
	} else {
		fmt.Fprintf(&sb, "nodes %q", ab.budget.Nodes)
	}
	if len(ab.budget.Reasons) > 0 {
		fmt.Fprintf(&sb, ", reasons %s", strings.Join(ab.budget.Reasons, ","))
	}
	sb.WriteString(")")
	if ab.allowed > 0 {
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
