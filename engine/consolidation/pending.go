package consolidation

import (
	"context"
	"fmt"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// PlanAroundPending is Plan as the agent runs it: when the plan disrupts anything while pods
// are pending, it solves the pending pods on snap as it is, marks the nodes (existing, or
// in-flight claims) the solve places them on as nominated, and plans again. An empty node a
// pending pod is about to land on is not empty for long, and removing it would only launch
// another node for the same pod. The agent's in-memory nominations say the same for the pods it
// nominated; the solve holds after a restart, for pods it never nominated, and in `tenon
// simulate`, which has no nominations. snap's nodes may be marked nominated; nothing else
// changes. ctx bounds the plans and the solve.
func PlanAroundPending(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options) (*Result, error) {
	res, err := Plan(ctx, snap, now, opts)
	if err != nil {
		return nil, err
	}
	pending := snap.PendingPods()
	if len(res.Commands) == 0 || len(pending) == 0 {
		return res, nil
	}
	solved, err := packing.Solve(ctx, snap, pending)
	if err != nil {
		return nil, fmt.Errorf("solving %d pending pods to see which nodes they need: %w", len(pending), err)
	}
	landing := map[string]bool{}
	for _, pl := range solved.Placements {
		landing[pl.Node] = true
	}
	marked := 0
	for _, n := range snap.Nodes {
		if !n.Nominated && landing[n.Name] {
			n.Nominated = true
			marked++
		}
	}
	if marked == 0 {
		return res, nil
	}
	return Plan(ctx, snap, now, opts)
}
