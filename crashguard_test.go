//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envTestAsMain makes the test binary run main with its arguments, so the
// tests below start the real program, crash guard included.
const envTestAsMain = "TENON_TEST_AS_MAIN"

// envTestCrash makes a guarded child crash in one of the ways that end a
// Go program outside any recover, while its command waits for input.
const envTestCrash = "TENON_TEST_CRASH"

func TestMain(m *testing.M) {
	if _, ok := os.LookupEnv(envTestAsMain); ok {
		if inCrashGuardChild() {
			crashSoon(os.Getenv(envTestCrash))
		}
		main()
	}
	os.Exit(m.Run())
}

// crashSoon crashes the process 100ms from now as kind says: a panic in
// another goroutine, a stack overflow (a fatal runtime error, as running out
// of memory is), or SIGKILL (as the kernel's OOM killer sends).
func crashSoon(kind string) {
	if kind == "" {
		return
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		switch kind {
		case "panic":
			panic("index out of range [3] with length 3")
		case "stack":
			debug.SetMaxStack(1 << 20)
			var deep func(n int) int
			deep = func(n int) int { return deep(n+1) + 1 }
			deep(0)
		case "kill":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}()
}

// runTenon runs the test binary as `tenon args...` with stdin and returns
// its exit code and stderr.
func runTenon(t *testing.T, stdin *os.File, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), envTestAsMain+"=1"), env...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = stdin, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case waitErr := <-done:
		_ = waitErr // the exit code below says how it ended
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("tenon %v still running after 2 minutes", args)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestCrashExitsThreeNotTwo: a crash outside the command's goroutine (which
// no recover reaches) used to end `tenon convert` and `tenon simulate` with
// Go's exit status 2, bad input's code, or with a signal; it exits 3 and
// says it is a bug.
func TestCrashExitsThreeNotTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the program as a process")
	}
	for _, kind := range []string{"panic", "stack", "kill"} {
		t.Run(kind, func(t *testing.T) {
			r, w, err := os.Pipe() // stdin that never ends: the command waits
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			code, stderr := runTenon(t, r, []string{envTestCrash + "=" + kind}, "convert", "-")
			if code != exitInternal || !strings.Contains(stderr, "tenon convert: internal error: the process crashed") {
				t.Errorf("exit %d, want %d; stderr:\n%.2000s", code, exitInternal, stderr)
			}
		})
	}
}

// TestCrashGuardKeepsExitCodes: through the child process, bad input still
// exits 2, a finding 1 and success 0.
func TestCrashGuardKeepsExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the program as a process")
	}
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pool := write("pool.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n")
	unmapped := write("unmapped.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n  extra: 1\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n")
	empty := write("empty.yaml", "")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"convert", pool}, 0},
		{[]string{"convert", "--strict", unmapped}, 1},
		{[]string{"convert", empty}, 2},
		{[]string{"simulate", "-f", empty}, 2},
		{[]string{"simulate", "--example", "nope"}, 2},
	} {
		if code, stderr := runTenon(t, nil, nil, tc.args...); code != tc.want {
			t.Errorf("tenon %v: exit %d, want %d; stderr:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}
