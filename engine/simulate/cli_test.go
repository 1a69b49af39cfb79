package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeScenario(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeClock advances one millisecond per reading.
func fakeClock() func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

func TestCommandUsage(t *testing.T) {
	path := writeScenario(t, header+pool+deployment("1"))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"an unknown output format names -o", []string{"-f", path, "-o", "yaml"}, ExitBadInput, `invalid value "yaml" for flag -o: must be text or json`},
		{"a zero repeat names -repeat", []string{"-f", path, "--repeat", "0"}, ExitBadInput, "invalid value 0 for flag -repeat"},
		{"a non-number repeat names -repeat", []string{"-f", path, "--repeat", "x"}, ExitBadInput, `invalid value "x" for flag -repeat`},
		{"an unknown flag is named", []string{"-f", path, "--fast"}, ExitBadInput, "flag provided but not defined: -fast"},
		{"a stray argument says to use -f", []string{path}, ExitBadInput, "pass scenario files with -f"},
		{"an empty -f", []string{"-f", ""}, ExitBadInput, `invalid value "" for flag -f`},
		{"a missing file", []string{"-f", filepath.Join(t.TempDir(), "none.yaml")}, ExitBadInput, "none.yaml: no such file"},
		{"help", []string{"-h"}, ExitOK, "Usage: tenon simulate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := command{engine: fakeSolver{}, now: fakeClock()}
			code := c.run(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr does not contain %q:\n%s", tt.want, stderr.String())
			}
		})
	}
}

func TestCommandJSON(t *testing.T) {
	path := writeScenario(t, header+pool+deployment("1"))
	tests := []struct {
		name       string
		args       []string
		solver     fakeSolver
		code       int
		runs       int
		wantNodes  int
		wantStderr string
	}{
		{name: "one run", args: []string{"-f", path, "-o", "json"}, code: ExitOK, runs: 1, wantNodes: 2},
		{name: "repeat reports each run after a warm-up", args: []string{"-f", path, "-o", "json", "--repeat", "3"}, code: ExitOK, runs: 3, wantNodes: 2},
		{
			name:   "unschedulable pods are listed",
			args:   []string{"-f", path, "-o", "json"},
			solver: fakeSolver{unschedulable: map[string]string{"default/web-1": "too big"}},
			code:   ExitOK, runs: 1, wantNodes: 1,
		},
		{
			name:   "check fails with violations",
			args:   []string{"-f", path, "-o", "json", "--check"},
			solver: fakeSolver{violations: []string{"default-1: cpu over-committed"}},
			code:   ExitCheckFails, runs: 1, wantNodes: 2, wantStderr: "default-1: cpu over-committed",
		},
		{name: "check passes without", args: []string{"-f", path, "-o", "json", "--check"}, code: ExitOK, runs: 1, wantNodes: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := command{engine: tt.solver, now: fakeClock()}
			if code := c.run(context.Background(), tt.args, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantStderr, stderr.String())
			}
			var rep map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
			}
			for _, key := range []string{"nodes", "unschedulable", "summary"} {
				if _, ok := rep[key]; !ok {
					t.Errorf("output lacks %q", key)
				}
			}
			summary := rep["summary"].(map[string]any)
			for _, key := range []string{"pods", "newNodes", "costPerHour", "lowerBoundPerHour", "solveSeconds", "solveRuns"} {
				if _, ok := summary[key]; !ok {
					t.Errorf("summary lacks %q", key)
				}
			}
			if runs := summary["solveRuns"].([]any); len(runs) != tt.runs {
				t.Errorf("solveRuns = %v, want %d", runs, tt.runs)
			}
			if got := summary["solveSeconds"].(float64); got != 0.001 {
				t.Errorf("solveSeconds = %v, want 0.001 (one clock tick per run)", got)
			}
			if nodes := rep["nodes"].([]any); len(nodes) != tt.wantNodes {
				t.Errorf("nodes = %d, want %d", len(nodes), tt.wantNodes)
			}
			node := rep["nodes"].([]any)[0].(map[string]any)
			for _, key := range []string{"name", "nodePool", "instanceType", "zone", "capacityType", "pricePerHour", "existing", "pods"} {
				if _, ok := node[key]; !ok {
					t.Errorf("node lacks %q", key)
				}
			}
		})
	}
}

func TestCommandText(t *testing.T) {
	path := writeScenario(t, header+pool+deployment("1"))
	var stdout, stderr bytes.Buffer
	c := command{engine: fakeSolver{unschedulable: map[string]string{"default/web-1": "no instance type fits"}}, now: fakeClock()}
	if code := c.run(context.Background(), []string{"-f", path, "--repeat", "2"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"Scenario s: 2 pending pods from 1 workload, 1 pool, 0 existing nodes, region us-east-1 (us-east-1a, us-east-1b, us-east-1c).",
		"POOL     INSTANCE TYPE  ZONE        CAPACITY   NODES  $/H EACH     $/H  PODS  CPU  MEMORY",
		"default  m5.large       us-east-1a  on-demand      1    0.0960  0.0960     1  50%     25%",
		"Cost:         $0.0960/h for 1 new node",
		"the cost is 1.067× the bound",
		"Solve time:   1ms, the median of 2 runs after a warm-up (1ms, 1ms)",
		"Pods that cannot be placed (1):",
		"default/web-1  no instance type fits",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCommandWarnsWhenRunsDiffer(t *testing.T) {
	path := writeScenario(t, header+pool+deployment("1"))
	tests := []struct {
		name   string
		solver solver
		warn   bool
	}{
		{"a deterministic engine", fakeSolver{}, false},
		{"an engine that decides differently each run", flakySolver{runs: new(int)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := command{engine: tt.solver, now: fakeClock()}
			if code := c.run(context.Background(), []string{"-f", path, "-o", "json", "--repeat", "2"}, &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			if got := strings.Contains(stderr.String(), "not deterministic"); got != tt.warn {
				t.Errorf("warned = %v, want %v; stderr:\n%s", got, tt.warn, stderr.String())
			}
		})
	}
}

func TestCommandTimeout(t *testing.T) {
	path := writeScenario(t, header+pool+deployment("1"))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a deadline stops the solve", []string{"-f", path, "--timeout", "10ms"}, ExitCheckFails, "gave up after --timeout 10ms"},
		{"a negative timeout names the flag", []string{"-f", path, "--timeout", "-1s"}, ExitBadInput, "invalid value -1s for flag -timeout"},
		{"a malformed timeout names the flag", []string{"-f", path, "--timeout", "soon"}, ExitBadInput, `invalid value "soon" for flag -timeout`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := command{engine: slowSolver{}, now: time.Now}
			if code := c.run(context.Background(), tt.args, &stdout, &stderr); code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr does not contain %q:\n%s", tt.want, stderr.String())
			}
		})
	}
}
