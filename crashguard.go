package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// A crash the process cannot recover from (a panic in another goroutine, a
// fatal runtime error such as running out of memory or stack, a kill by the
// kernel's OOM killer) ends a Go program with exit status 2 or a signal, and
// 2 is what `tenon simulate` and `tenon convert` return for bad input. So
// these commands run in a child process of themselves: the child adds
// childExitBase to the code it means to return, and the parent returns that
// code, or exitInternal with a note when the child ended any other way.

// envCrashGuardChild marks the child process; its value is ignored.
const envCrashGuardChild = "TENON_CRASH_GUARD_CHILD"

// childExitBase is added to a guarded child's exit code: a deliberate exit
// of the child is 64 to 127, which the Go runtime never uses (it exits 2).
const childExitBase = 64

// crashGuarded reports whether the subcommand in args runs in a child
// process: those that read files or clusters given by someone else
// (simulate, explain, convert). The plugin server, the agent and the rest run as they are.
func crashGuarded(args []string) bool {
	return len(args) > 0 && (args[0] == "simulate" || args[0] == "explain" || args[0] == "convert")
}

// inCrashGuardChild reports whether this process is a guarded child.
func inCrashGuardChild() bool {
	_, ok := os.LookupEnv(envCrashGuardChild)
	return ok
}

// superviseCrashes runs this program with args as a child process sharing
// stdin, stdout and stderr, forwards SIGINT and SIGTERM to it and returns
// its exit code: the code the child meant, or exitInternal when it crashed.
// ok is false when the child could not be started (then the caller runs the
// command itself).
func superviseCrashes(args []string, stderr io.Writer) (code int, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envCrashGuardChild+"=1")
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		return 0, false
	}
	done := make(chan struct{})
	defer close(done)
	var stopped atomic.Bool
	go func() {
		for {
			select {
			case s := <-signals:
				stopped.Store(true)
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		fmt.Fprintf(stderr, "tenon %s: internal error: waiting for the command: %v\n", args[0], err)
		return exitInternal, true
	}
	return childCode(args[0], cmd.ProcessState, stopped.Load(), stderr), true
}

// childCode maps a guarded child's end to this process's exit code. A child
// ended by the SIGINT or SIGTERM this process forwarded was stopped, not
// crashed: that exits 128 plus the signal's number, as a shell reports it.
func childCode(name string, st *os.ProcessState, stopped bool, stderr io.Writer) int {
	code := st.ExitCode()
	if code >= childExitBase && code < 2*childExitBase {
		return code - childExitBase
	}
	how := fmt.Sprintf("exit status %d", code)
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		if sig := ws.Signal(); stopped && (sig == syscall.SIGINT || sig == syscall.SIGTERM) {
			return 128 + int(sig)
		}
		how = "killed by signal " + ws.Signal().String()
		if ws.Signal() == syscall.SIGKILL {
			how += ", as the kernel's out-of-memory killer does"
		}
	}
	fmt.Fprintf(stderr, "tenon %s: internal error: the process crashed (%s); this is a bug in tenon, not a problem with the input: please report it with the input and the output above\n", name, how)
	return exitInternal
}
