package consolidation

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// stableRun is the outcome of planning and applying until nothing changes.
type stableRun struct {
	rounds, evicted int
	// vacated counts the workload pods on the nodes the run removed:
	// each is evicted at least once, so evicted/vacated measures pods
	// moved twice. minEvictions is the fewest evictions any plan reaching
	// the run's end cost must make (see leastEvictions).
	vacated, minEvictions int
	firstPlan, total      time.Duration
	// maxPlan and maxPlanCPU are the longest single Plan, in wall and
	// CPU time.
	maxPlan, maxPlanCPU time.Duration
	// unreached is the most nodes any plan kept untried because the
	// search ran out of simulations.
	unreached int
	// firstPlanCPU and totalCPU are the process's CPU time for the same.
	firstPlanCPU, totalCPU time.Duration
	cost, lowerBound       float64
	final                  *state.Snapshot
}

// untilStable plans and applies up to maxRounds times, the clock moving a
// minute a round, and measures the result against the lower bound of the
// workload pods left.
func untilStable(tb testing.TB, snap *state.Snapshot, opts Options, maxRounds int) stableRun {
	tb.Helper()
	var out stableRun
	cur, now := snap, t0
	start, startCPU := time.Now(), cpuTime()
	for out.rounds < maxRounds {
		t, tCPU := time.Now(), cpuTime()
		res, err := Plan(context.Background(), cur, now, opts)
		if err != nil {
			tb.Fatal(err)
		}
		out.maxPlan, out.maxPlanCPU = max(out.maxPlan, time.Since(t)), max(out.maxPlanCPU, cpuTime()-tCPU)
		if out.rounds == 0 {
			out.firstPlan, out.firstPlanCPU = time.Since(t), cpuTime()-tCPU
		}
		out.rounds++
		unreached := 0
		for _, k := range res.Kept {
			if strings.Contains(k.Reason, "the search stopped") {
				unreached++
			}
		}
		out.unreached = max(out.unreached, unreached)
		if len(res.Commands) == 0 {
			break
		}
		out.evicted += res.PodsEvicted
		if cur, err = Apply(cur, res); err != nil {
			tb.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
	out.total, out.totalCPU = time.Since(start), cpuTime()-startCPU
	out.final = cur
	left := survivors(snap.Nodes, cur.Nodes)
	for _, n := range cur.Nodes {
		out.cost += n.PricePerHour
	}
	var workload []*state.Pod
	for _, p := range snap.Pods {
		if p.DaemonSet {
			continue
		}
		workload = append(workload, p)
		if !left[p.NodeName] {
			out.vacated++
		}
	}
	before := 0.0
	for _, n := range snap.Nodes {
		before += n.PricePerHour
	}
	out.minEvictions = leastEvictions(snap, before-out.cost)
	empty := &state.Snapshot{Pools: snap.Pools, DaemonSets: snap.DaemonSets}
	r, err := packing.Solve(context.Background(), empty, workload)
	if err != nil {
		tb.Fatal(err)
	}
	out.lowerBound = r.LowerBoundPerHour
	return out
}
