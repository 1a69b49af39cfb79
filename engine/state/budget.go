package state

import (
	"slices"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// ActiveBudget is the budget of a pool in force for one disruption reason at
// one instant.
type ActiveBudget struct {
	// Allowed is how many of the pool's nodes may be disrupted at once.
	Allowed int
	// Budget is the budget that sets Allowed.
	Budget Budget
	// Unlimited is set when no budget covers the reason now.
	Unlimited bool
}

// ActiveBudget is the one evaluation of a pool's disruption budgets, which
// consolidation (and through it the agent and `tenon simulate`) applies:
// the most restrictive budget in force at now for reason, its nodes counted
// against poolNodes (v1.BudgetNodes: a count, or a whole percentage rounded
// up). A budget is in force when it covers the reason (no reasons means
// all) and its window is open (v1.BudgetWindowOpen: always without a
// schedule; a schedule without a duration is an error, as validation says).
// A pool without budgets has the API's default, one budget of
// v1.DefaultBudgetNodes.
func (d Disruption) ActiveBudget(reason string, poolNodes int, now time.Time) (ActiveBudget, error) {
	budgets := d.Budgets
	if len(budgets) == 0 {
		budgets = []Budget{{Nodes: v1.DefaultBudgetNodes}}
	}
	best := ActiveBudget{Unlimited: true}
	for _, b := range budgets {
		if len(b.Reasons) > 0 && !slices.Contains(b.Reasons, reason) {
			continue
		}
		open, err := v1.BudgetWindowOpen(b.Schedule, b.Duration, now)
		if err != nil {
			return ActiveBudget{}, err
		}
		if !open {
			continue
		}
		n, err := v1.BudgetNodes(b.Nodes, poolNodes)
		if err != nil {
			return ActiveBudget{}, err
		}
		if best.Unlimited || n < best.Allowed {
			best = ActiveBudget{Allowed: n, Budget: b}
		}
	}
	return best, nil
}
