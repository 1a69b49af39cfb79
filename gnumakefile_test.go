package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The GNUmakefile's promises about the tools: `make demo` builds only what the demo runs, and
// every tool build goes through hack/tool-build.sh, which prints progress and elapsed time.

// dryRun runs `make -n TARGET` with an empty tool cache and bin folder, so every tool's build
// shows, and returns what make would run.
func dryRun(t *testing.T, target string) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("SKIPPED: no make on PATH")
	}
	tmp := t.TempDir()
	cmd := exec.Command("make", "-n", target, "BIN="+filepath.Join(tmp, "bin"), "TOOLS_CACHE="+filepath.Join(tmp, "cache"), "VERSION=v0.0.0-test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// builtTools are the tools a dry run builds, by the name tool-build.sh is given (name-version).
func builtTools(out string) []string {
	var tools []string
	for _, m := range regexp.MustCompile(`hack/tool-build\.sh ([a-z-]+)-v`).FindAllStringSubmatch(out, -1) {
		tools = append(tools, m[1])
	}
	return tools
}

func TestMakeDemoBuildsOnlyTheDemoTools(t *testing.T) {
	got := strings.Join(builtTools(dryRun(t, "demo")), " ")
	if want := "etcd kube-apiserver kube-scheduler kube-controller-manager kwok"; got != want {
		t.Errorf("make demo builds %q; want only what hack/demo runs: %q", got, want)
	}
}

func TestEveryToolBuildReportsProgress(t *testing.T) {
	out := dryRun(t, "tools")
	built := builtTools(out)
	versions, err := exec.Command("make", "--no-print-directory", "testbin-versions").Output()
	if err != nil {
		t.Fatalf("make testbin-versions: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(versions)), "\n") {
		if tool := strings.Fields(line)[0]; !slices.Contains(built, tool) {
			t.Errorf("make tools does not build %s through hack/tool-build.sh (it builds %v)", tool, built)
		}
	}
	// bench-e2e's Karpenter is built with its own toolchain, outside `make tools`.
	bench := dryRun(t, "bench-e2e")
	if !slices.Contains(builtTools(bench), "karpenter-kwok") {
		t.Errorf("make bench-e2e does not build karpenter-kwok through hack/tool-build.sh")
	}
	for _, line := range strings.Split(out+bench, "\n") {
		if (strings.Contains(line, "go install") || strings.Contains(line, "go build -v")) && !strings.Contains(line, "hack/tool-build.sh") {
			t.Errorf("a tool is built without hack/tool-build.sh (no progress, no elapsed time):\n%s", line)
		}
	}
}

func TestToolBuildPrintsProgressAndElapsedTime(t *testing.T) {
	cmd := exec.Command("hack/tool-build.sh", "sleeper-v1", "sh", "-c", "echo pkg/a; sleep 2; echo pkg/b")
	cmd.Env = append(os.Environ(), "TOOL_PROGRESS_SECONDS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tool-build.sh: %v\n%s", err, out)
	}
	for _, want := range []string{"building sleeper-v1", "sleeper-v1: 0m01s, 1 packages compiled so far", "built sleeper-v1 in 0m0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("tool-build.sh printed %q; want %q", out, want)
		}
	}
	cmd = exec.Command("hack/tool-build.sh", "broken-v1", "sh", "-c", "echo the compiler said no; exit 3")
	out, err = cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 3 || !strings.Contains(string(out), "FAILED building broken-v1") ||
		!strings.Contains(string(out), "the compiler said no") {
		t.Errorf("a failed build: exit %d, output %q; want exit 3, FAILED and the compiler's output", code, out)
	}
}
