package agent_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScaleFigures measures what the closing note quotes: pending →
// all Running for 100 pods, the agent's resident memory with 1,000 pods,
// and the tenon_scheduling_duration_seconds metric. It takes minutes and
// loads the machine, so it runs only with TENON_E2E_SCALE=1.
func TestScaleFigures(t *testing.T) {
	if os.Getenv("TENON_E2E_SCALE") == "" {
		t.Skip("SKIPPED: set TENON_E2E_SCALE=1 to measure latency at 100 pods and memory at 1,000 pods")
	}
	e := require(t)
	ns := namespace(t, e, "scale")
	apply(t, e, ns, kwokClass("scale")+"\n---\n"+poolYAML("scale", "scale", ""))
	p := startAgent(t, e, "scale")
	cleanupPool(t, e, ns, "scale")
	apply(t, e, ns, strings.Replace(deploymentYAML("scale", "scale", 0, "100m"), "cpu: \"100m\"", "cpu: \"100m\"\n              memory: 64Mi", 1))

	for _, n := range []int{100, 1000} {
		scale(t, e, ns, "scale", int32(n))
		took := waitFor(t, 10*time.Minute, fmt.Sprintf("%d pods Running", n), func() (bool, string) {
			running, _, _ := runningOn(t, e, ns, "app=scale", "scale")
			return running == n, fmt.Sprintf("%d of %d running", running, n)
		})
		rss := rssKiB(t, p.cmd.Process.Pid)
		sum, count := histogram(t, p.metricsAddr, "tenon_scheduling_duration_seconds")
		t.Logf("FIGURE %d pods: pending -> all Running %s on %d nodes; agent RSS %.1f MiB; tenon_scheduling_duration_seconds sum %.3fs over %d batches (mean %.3fs)",
			n, took.Round(100*time.Millisecond), len(poolNodes(t, e, "scale")), float64(rss)/1024, sum, count, sum/float64(max(count, 1)))
	}
}

// rssKiB reads a process's resident memory from /proc.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// histogram scrapes a histogram's sum and count from /metrics.
func histogram(t *testing.T, addr, name string) (float64, int) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	var count int
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 10<<20))
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, name+"_sum "); ok {
			sum, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(line, name+"_count "); ok {
			count, _ = strconv.Atoi(v)
		}
	}
	return sum, count
}
