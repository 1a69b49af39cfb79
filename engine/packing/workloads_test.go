package packing_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// workloadsDir holds the shared benchmark scenarios, beside the repository.
const workloadsDir = "../../../shared/workloads"

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type workload struct {
	name    string
	snap    *state.Snapshot
	pending []*state.Pod
}

func loadWorkloads(tb testing.TB) []workload {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(workloadsDir, "*.yaml"))
	if len(files) == 0 {
		tb.Skipf("no scenario files in %s (the shared workloads live beside the repository)", workloadsDir)
	}
	slices.Sort(files)
	var out []workload
	for _, f := range files {
		sc, err := simulate.Load(f)
		if err != nil {
			tb.Fatalf("loading %s: %v", f, err)
		}
		snap, err := sc.Snapshot()
		if err != nil {
			tb.Fatalf("converting %s: %v", f, err)
		}
		out = append(out, workload{name: strings.TrimSuffix(filepath.Base(f), ".yaml"), snap: snap, pending: snap.PendingPods()})
	}
	return out
}

// TestWorkloads solves every shared scenario and validates the result.
func TestWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("solves every shared scenario")
	}
	if _, err := os.Stat(workloadsDir); err != nil {
		t.Skipf("no %s: %v", workloadsDir, err)
	}
	for _, w := range loadWorkloads(t) {
		t.Run(w.name, func(t *testing.T) {
			start := time.Now()
			r, err := packing.Solve(t.Context(), w.snap, w.pending)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			v := check.Result(w.snap, w.pending, r)
			for i, x := range v {
				if i < 10 {
					t.Errorf("violation: %s", x)
				}
			}
			if len(r.Unschedulable) > 0 {
				t.Errorf("%d unschedulable, first: %+v", len(r.Unschedulable), r.Unschedulable[0])
			}
			t.Logf("pods=%d nodes=%d cost=%.3f lb=%.3f ratio=%.4f solve=%v pods/s=%.0f violations=%d",
				len(w.pending), len(r.Claims), r.CostPerHour, r.LowerBoundPerHour, r.CostPerHour/r.LowerBoundPerHour, took, float64(len(w.pending))/took.Seconds(), len(v))
		})
	}
}

// BenchmarkWorkloads solves every shared scenario; pods/s and the cost over
// the lower bound are reported per scenario.
func BenchmarkWorkloads(b *testing.B) {
	for _, w := range loadWorkloads(b) {
		b.Run(w.name, func(b *testing.B) {
			var r *packing.Result
			var runs []time.Duration
			cpu0 := cpuTime()
			for b.Loop() {
				var err error
				start := time.Now()
				if r, err = packing.Solve(b.Context(), w.snap, w.pending); err != nil {
					b.Fatal(err)
				}
				runs = append(runs, time.Since(start))
			}
			slices.Sort(runs)
			b.ReportMetric(float64(len(w.pending))/runs[len(runs)/2].Seconds(), "median-pods/s")
			b.ReportMetric(float64(len(w.pending))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
			b.ReportMetric(r.CostPerHour/r.LowerBoundPerHour, "cost/lb")
			b.ReportMetric(r.CostPerHour, "$/h")
			// CPU seconds per solve, which other load on the machine
			// inflates less than wall time.
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
