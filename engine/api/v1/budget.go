package v1

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// BudgetNodes is how many of total nodes a budget's nodes value allows to be disrupted at
// once: a count such as "5", or a percentage such as "10%" of total, rounded up. It accepts
// exactly what validation accepts (a count, or a whole percentage from 0% to 100%), so the
// rule that checks a budget and the rule that applies it are one; "" is the default,
// DefaultBudgetNodes.
func BudgetNodes(nodes string, total int) (int, error) {
	if nodes == "" {
		nodes = DefaultBudgetNodes
	}
	if !budgetNodesRE.MatchString(nodes) {
		return 0, fmt.Errorf("budget nodes %q: %s", nodes, msgBudgetNodes)
	}
	if pct, ok := strings.CutSuffix(nodes, "%"); ok {
		p, err := strconv.Atoi(pct)
		if err != nil {
			return 0, fmt.Errorf("budget nodes %q: %w", nodes, err)
		}
		// Whole numbers: ceil(total*p/100) without floating-point rounding.
		return (total*p + 99) / 100, nil
	}
	n, err := strconv.Atoi(nodes)
	if err != nil {
		return 0, fmt.Errorf("budget nodes %q: %w", nodes, err)
	}
	return n, nil
}

// BudgetWindowOpen reports whether a budget with schedule and duration is in force at now:
// always without a schedule, else when the schedule (UTC, read by the same parser validation
// uses) fired within the last duration. A schedule without a duration is an error, as
// validation says ("schedule needs a duration").
func BudgetWindowOpen(schedule string, duration *time.Duration, now time.Time) (bool, error) {
	if schedule == "" {
		return true, nil
	}
	sched, err := cron.ParseStandard(schedule)
	if err != nil {
		return false, fmt.Errorf("budget schedule %q: %s (%w)", schedule, msgBudgetSchedule, err)
	}
	if duration == nil {
		return false, fmt.Errorf("budget schedule %q: %s", schedule, msgScheduleNeedsDur)
	}
	now = now.UTC()
	// Next is strictly after its argument: a firing in (now-duration, now] opens the window.
	return !sched.Next(now.Add(-*duration)).After(now), nil
}
