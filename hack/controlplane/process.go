package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one component the control plane started: its command, its log file and a
// channel closed when it exits.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // the exit status, valid once done is closed
}

// starter starts every child from one goroutine locked to its OS thread for the life of the
// program: Linux sends the parent-death signal when the thread that forked a child exits, so
// children started from a thread the Go runtime may retire could be killed early.
type starter struct {
	requests chan startRequest
}

type startRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func newStarter() *starter {
	s := &starter{requests: make(chan startRequest)}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the program
		for r := range s.requests {
			r.done <- r.cmd.Start()
		}
	}()
	return s
}

// start runs bin with args, its output appended to dir/<name>.log. Unless detached, the child
// is killed by the kernel when this program dies, however it dies (a failed test, a panic, a
// go test timeout, ^C); detached children outlive it in their own session, for dev clusters.
func (s *starter) start(dir, name, bin string, args []string, detached bool) (*process, error) {
	return s.startEnv(dir, name, bin, args, nil, detached)
}

// startEnv is start with env added to the child's environment (this program's).
func (s *starter) startEnv(dir, name, bin string, args, env []string, detached bool) (*process, error) {
	logFile := filepath.Join(dir, name+".log")
	out, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child holds its own copy
	cmd := exec.Command(bin, args...)
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = sysProcAttr(detached)
	fmt.Fprintf(out, "# %s %s\n", bin, strings.Join(args, " "))
	done := make(chan error, 1)
	s.requests <- startRequest{cmd: cmd, done: done}
	if err := <-done; err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logFile, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := os.WriteFile(filepath.Join(dir, name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
		return p, err
	}
	return p, nil
}

// exited reports whether the process has exited, with its status.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop sends SIGTERM, waits up to grace, then SIGKILL, and waits for the exit.
func (p *process) stop(grace time.Duration) {
	if done, _ := p.exited(); done {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// failure describes a process that exited early, with the end of its log.
func (p *process) failure() error {
	err := p.err
	if err == nil {
		err = errors.New("exit status 0")
	}
	return fmt.Errorf("%s exited: %w; last lines of %s:\n%s", p.name, err, p.log, tail(p.log, 30))
}

// tail returns the last n lines of a file.
func tail(file string, n int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", file, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// StopPIDFiles stops the processes whose <name>.pid files are in dir, as a dev cluster
// started in another program left them: SIGTERM, then SIGKILL after grace. A PID whose
// process is gone, or now runs another program, is skipped.
func StopPIDFiles(ctx context.Context, dir string, grace time.Duration) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.pid"))
	if err != nil {
		return err
	}
	// The last started first: an API server whose etcd is gone takes long to stop.
	order := []string{KWOK, Scheduler, ControllerManager, APIServer, Etcd}
	rank := func(f string) int {
		if i := slices.Index(order, strings.TrimSuffix(filepath.Base(f), ".pid")); i >= 0 {
			return i
		}
		return -1
	}
	slices.SortStableFunc(files, func(a, b string) int { return rank(a) - rank(b) })
	var errs []error
	for _, f := range files {
		if err := stopPIDFile(ctx, f, grace); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func stopPIDFile(ctx context.Context, file string, grace time.Duration) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	name := strings.TrimSuffix(filepath.Base(file), ".pid")
	if !runs(pid, name) {
		return os.Remove(file)
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for runs(pid, name) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return os.Remove(file)
}

// runs reports whether pid is alive and runs the component name (its command line names it),
// so a PID the kernel gave to another program since is never signalled.
func runs(pid int, name string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		// A zombie (state Z) has exited and only awaits its parent.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat)[i+1:], " Z") {
			return false
		}
	}
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	return strings.Contains(filepath.Base(argv0), name)
}
