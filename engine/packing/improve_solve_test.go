package packing_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
)

// TestImproveKeepsRulesAndNeverCostsMore solves random scenarios (with
// every constraint kind, see randomScenario) with and without the
// local-improvement pass: the improved result must pass check.Result, place the
// same pods and cost no more; and over all scenarios the pass must save
// something somewhere, or it does nothing.
func TestImproveKeepsRulesAndNeverCostsMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	helped := 0
	for i := range 400 {
		snap, pending, _ := randomScenario(rng)
		name := fmt.Sprintf("scenario-%d", i)
		opts := []packing.Option{packing.WithStrategy(i % packing.Strategies)}
		with, err := packing.Solve(t.Context(), snap, pending, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		without, err := packing.Solve(t.Context(), snap, pending, append(opts, packing.WithoutImprove())...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, v := range check.Result(snap, pending, with) {
			t.Errorf("%s: violation after improving: %s", name, v)
		}
		if len(with.Unschedulable) != len(without.Unschedulable) {
			t.Errorf("%s: improving changed the unschedulable pods: %d -> %d", name, len(without.Unschedulable), len(with.Unschedulable))
		}
		if with.CostPerHour > without.CostPerHour+1e-9 {
			t.Errorf("%s: improving raised the cost %.5f -> %.5f", name, without.CostPerHour, with.CostPerHour)
		}
		if with.CostPerHour < without.CostPerHour-1e-9 {
			helped++
		}
	}
	if helped == 0 {
		t.Fatal("the improve pass saved nothing in 400 random scenarios")
	}
	t.Logf("improving saved money in %d of 400 scenarios", helped)
}
