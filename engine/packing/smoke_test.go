package packing

import (
	"math/rand/v2"
	"testing"
)

func TestSmokeW1(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cpus := []string{"100m", "250m", "500m", "1", "2", "4"}
	mems := []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"}
	var ps = pods(0, "", "", "")
	for i := range 1000 {
		ps = append(ps, pod("p-"+itoa(i), cpus[rng.IntN(6)], mems[rng.IntN(6)]))
	}
	r := mustSolve(t, snapshot(poolsOf(pool("default")), nil, nil), ps)
	t.Logf("claims=%d cost=%.3f lb=%.3f ratio=%.4f unsched=%d", len(r.Claims), r.CostPerHour, r.LowerBoundPerHour, r.CostPerHour/r.LowerBoundPerHour, len(r.Unschedulable))
	for _, c := range r.Claims[:min(5, len(r.Claims))] {
		t.Logf("%s %v %d pods", c.Name, c.Chosen(), len(c.Pods))
	}
}
