package simulate

import (
	"context"
	"testing"
)

func TestScenarioSimulate(t *testing.T) {
	requirePacking(t)
	s, err := Parse(File{Name: "s.yaml", Data: []byte(header + pool + deployment("500m"))})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Simulate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scenario != "s" || rep.Summary.Pods != 2 || rep.Summary.Placed != 2 || rep.Summary.NewNodes == 0 ||
		rep.Summary.CostPerHour <= 0 || len(rep.Summary.SolveRuns) != 1 {
		t.Errorf("report: %+v", rep)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Simulate(ctx); err == nil {
		t.Error("a cancelled context still simulated")
	}
}
