package packing_test

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// unconstrainedPods draws W1's mix: cpu and memory per pod, one owner per
// distinct pair.
func unconstrainedPods(n int, seed uint64) []*state.Pod {
	rng := rand.New(rand.NewPCG(seed, seed))
	cpus := []string{"100m", "250m", "500m", "1", "2", "4"}
	mems := []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"}
	out := make([]*state.Pod, n)
	for i := range out {
		c, m := rng.IntN(6), rng.IntN(6)
		out[i] = statetest.Pod(fmt.Sprintf("u-%d", i), cpus[c], mems[m], statetest.WithLabel("app", fmt.Sprintf("u-%d-%d", c, m)))
	}
	return out
}

// diversePods draws Karpenter's benchmark mix: generic, zonal spread,
// hostname spread, zonal self-affinity and hostname anti-affinity, a fifth
// each.
func diversePods(n int, seed uint64) []*state.Pod {
	rng := rand.New(rand.NewPCG(seed, seed))
	cpus := []string{"100m", "250m", "500m", "1000m", "1500m"}
	mems := []string{"100Mi", "250Mi", "500Mi", "1Gi", "2Gi", "4Gi"}
	values := []string{"a", "b", "c", "d", "e", "f", "g"}
	out := make([]*state.Pod, n)
	for i := range out {
		cpu, mem, v := cpus[rng.IntN(5)], mems[rng.IntN(6)], values[rng.IntN(7)]
		name := fmt.Sprintf("d-%d", i)
		switch i * 5 / n {
		case 1:
			out[i] = statetest.Pod(name, cpu, mem, statetest.WithLabel("zone-spread", v), statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"zone-spread": v}))
		case 2:
			out[i] = statetest.Pod(name, cpu, mem, statetest.WithLabel("host-spread", v), statetest.WithSpread(scheduling.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"host-spread": v}))
		case 3:
			out[i] = statetest.Pod(name, cpu, mem, statetest.WithLabel("my-affinity", v), statetest.WithPodAffinity(scheduling.LabelTopologyZone, map[string]string{"my-affinity": v}))
		case 4:
			out[i] = statetest.Pod(name, cpu, mem, statetest.WithLabel("role", "nginx"), statetest.WithAntiAffinity(scheduling.LabelHostname, map[string]string{"role": "nginx"}))
		default:
			out[i] = statetest.Pod(name, cpu, mem, statetest.WithLabel("my-label", v))
		}
	}
	return out
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkSolve reports pods/s and cost over the lower bound for 1k, 5k
// and 20k pods, unconstrained and diverse, to show how time grows.
func BenchmarkSolve(b *testing.B) {
	snap := statetest.Snapshot(statetest.Pools(statetest.Pool("default", statetest.WithSpot())), nil, nil)
	for _, mix := range []struct {
		name string
		gen  func(int, uint64) []*state.Pod
	}{{"unconstrained", unconstrainedPods}, {"diverse", diversePods}} {
		for _, n := range []int{1000, 5000, 20000} {
			ps := mix.gen(n, uint64(n))
			b.Run(fmt.Sprintf("%s-%d", mix.name, n), func(b *testing.B) {
				var r *packing.Result
				cpu0 := cpuSeconds()
				for b.Loop() {
					var err error
					if r, err = packing.Solve(b.Context(), snap, ps); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
				b.ReportMetric(r.CostPerHour/r.LowerBoundPerHour, "cost/lb")
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
			})
		}
	}
}
