package simulate

import (
	"context"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// solver is the engine a simulation runs: engine/packing, or a fake in
// tests.
type solver interface {
	// Solve decides where the pending pods go. It is the timed part.
	Solve(ctx context.Context, snap *state.Snapshot, pending []*state.Pod) (solution, error)
}

// solution is what a solver decided.
type solution interface {
	// Report describes the solution, without timings.
	Report(s *Scenario, snap *state.Snapshot, pending []*state.Pod) *Report
	// Violations are the rules the solution breaks, each "subject: message".
	Violations(snap *state.Snapshot, pending []*state.Pod) []string
}
