package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// agentProcess is the agent, running as a local process with its output in a log file.
type agentProcess struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // the exit status, valid once done is closed
}

// startAgent runs bin with args, output to logPath. On Linux the kernel kills the agent if
// the demo dies; the process is started from a goroutine locked to its thread for good,
// because the parent-death signal fires when the forking thread ends.
func startAgent(bin string, args []string, logPath string) (*agentProcess, error) {
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child holds its own copy
	fmt.Fprintf(out, "# %s %s\n", bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread must outlive the child
		started <- cmd.Start()
		select {} // keep the thread alive for as long as the program runs
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &agentProcess{cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited returns the agent's exit error if it has exited.
func (p *agentProcess) exited() (bool, error) {
	select {
	case <-p.done:
		if p.err == nil {
			return true, errors.New("the agent exited (status 0) while the demo needed it")
		}
		return true, fmt.Errorf("the agent exited: %w", p.err)
	default:
		return false, nil
	}
}

// stop sends SIGTERM, waits up to grace for a clean exit (the agent releases its Lease), then
// kills it.
func (p *agentProcess) stop(grace time.Duration) {
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

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
