package simulate

import (
	"context"
	"fmt"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// fakeSolver puts every pending pod on its own m5.large in the first zone,
// so the CLI can be tested without engine/packing. It reports the pods
// named in unschedulable as unplaceable, and violations when set.
type fakeSolver struct {
	unschedulable map[string]string
	violations    []string
}

func (f fakeSolver) Solve(_ context.Context, _ *state.Snapshot, pending []*state.Pod) (solution, error) {
	return fakeSolution(f), nil
}

type fakeSolution fakeSolver

func (f fakeSolution) Report(s *Scenario, _ *state.Snapshot, pending []*state.Pod) *Report {
	rep := &Report{Scenario: s.Name, Nodes: []ReportNode{}, Unschedulable: []ReportUnschedulable{}}
	for i, p := range pending {
		if reason, ok := f.unschedulable[p.Key()]; ok {
			rep.Unschedulable = append(rep.Unschedulable, ReportUnschedulable{Pod: p.Key(), Reason: reason})
			continue
		}
		rep.Nodes = append(rep.Nodes, ReportNode{
			Name: fmt.Sprintf("default-%d", i+1), NodePool: "default", InstanceType: "m5.large", Zone: s.Zones[0],
			CapacityType: "on-demand", PricePerHour: 0.096, Pods: []string{p.Key()}, CPUUtilization: 0.5, MemoryUtilization: 0.25,
		})
	}
	rep.Summary = Summary{
		Pods: len(pending), NewNodes: len(rep.Nodes), CostPerHour: round(0.096 * float64(len(rep.Nodes))),
		LowerBoundPerHour: round(0.09 * float64(len(rep.Nodes))), Placed: len(rep.Nodes), Unschedulable: len(rep.Unschedulable),
	}
	return rep
}

func (f fakeSolution) Violations(*state.Snapshot, []*state.Pod) []string { return f.violations }

// flakySolver decides differently on every run, as a nondeterministic
// engine would.
type flakySolver struct{ runs *int }

func (f flakySolver) Solve(context.Context, *state.Snapshot, []*state.Pod) (solution, error) {
	*f.runs++
	return flakySolution(*f.runs), nil
}

type flakySolution int

func (f flakySolution) Report(s *Scenario, _ *state.Snapshot, pending []*state.Pod) *Report {
	rep := fakeSolution{}.Report(s, nil, pending)
	rep.Summary.CostPerHour = float64(f)
	return rep
}

func (flakySolution) Violations(*state.Snapshot, []*state.Pod) []string { return nil }

// slowSolver waits for the context, as an engine that honours deadlines
// does when it runs out of time.
type slowSolver struct{}

func (slowSolver) Solve(ctx context.Context, _ *state.Snapshot, _ []*state.Pod) (solution, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("solving: %w", ctx.Err())
}
