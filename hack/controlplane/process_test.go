package controlplane

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestStopPIDFiles starts a detached child as a dev cluster does, and stops it by its PID
// file from "another program"; a PID file naming a process that runs something else is left
// alone.
func TestStopPIDFiles(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("SKIPPED: no sleep binary to stand in for a component")
	}
	dir := t.TempDir()
	p, err := newStarter().start(dir, "sleep", sleep, []string{"300"}, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	// A PID file whose process runs another program: this test's own process.
	if err := os.WriteFile(filepath.Join(dir, "etcd.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := StopPIDFiles(ctx, dir, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the child still runs after StopPIDFiles")
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.pid")); len(files) != 0 {
		t.Errorf("PID files left: %v", files)
	}
}

// TestProcessStop stops a child that ignores SIGTERM with SIGKILL after the grace period.
func TestProcessStop(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("SKIPPED: no sh to stand in for a component")
	}
	p, err := newStarter().start(t.TempDir(), "stubborn", sh, []string{"-c", "trap '' TERM; while :; do sleep 0.1; done"}, false)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let the shell set its trap
	start := time.Now()
	p.stop(500 * time.Millisecond)
	if done, _ := p.exited(); !done {
		t.Fatal("stop returned before the child exited")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stop took %s", took)
	}
}
