package controlplane

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Suite is the control plane of one test package: the first test that needs it starts it,
// every later test shares it, and Main stops it after the last. A package whose tests do not
// run (go test -run '^$' -bench ., as make bench does) starts nothing.
type Suite struct {
	opts  Options
	once  sync.Once
	cp    *ControlPlane
	err   error
	stops chan os.Signal
}

// NewSuite returns a Suite that starts a control plane with opts.
func NewSuite(opts Options) *Suite {
	return &Suite{opts: opts}
}

// Main is the package's TestMain: it runs the tests, then stops the control plane if one was
// started, keeping its folder (the components' logs) when a test failed. With -short it prints
// a banner saying the tests are skipped, and Require skips them.
func (s *Suite) Main(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		fmt.Fprintf(os.Stderr, "\n*** SKIPPING the integration tests of %s: -short was given; they need a real control plane (make testbin) ***\n\n", packageName())
	}
	code := m.Run()
	if s.cp == nil {
		return code
	}
	signal.Stop(s.stops)
	if err := s.cp.Exited(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL %s: a control-plane component exited during the tests:\n%v\n", packageName(), err)
		code = 1
	}
	keep := code != 0
	if keep {
		fmt.Fprintf(os.Stderr, "%s: tests failed; control-plane logs kept in %s:\n  %s\n", packageName(), s.cp.Dir, strings.Join(s.cp.Logs(), "\n  "))
	}
	if err := s.cp.Close(keep); err != nil {
		fmt.Fprintf(os.Stderr, "%s: removing %s: %v\n", packageName(), s.cp.Dir, err)
	}
	return code
}

// Require returns the package's control plane, starting it on first use. It skips the test
// under -short and fails it when the control plane cannot start (missing binaries say to run
// `make testbin`): integration tests never skip silently.
func (s *Suite) Require(t testing.TB) *ControlPlane {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIPPED: -short was given and this test needs a real control plane; run it without -short after `make testbin`")
	}
	s.once.Do(s.start)
	if s.err != nil {
		t.Fatalf("starting the control plane: %v", s.err)
	}
	return s.cp
}

func (s *Suite) start() {
	s.cp, s.err = Start(context.Background(), s.opts)
	if s.err != nil {
		return
	}
	// ^C and SIGTERM: stop the components by PID before dying. (go test's own timeout ends
	// the program with SIGQUIT, after which the kernel ends the children.)
	s.stops = make(chan os.Signal, 1)
	signal.Notify(s.stops, os.Interrupt, syscall.SIGTERM)
	cp := s.cp
	go func() {
		sig, ok := <-s.stops
		if !ok {
			return
		}
		fmt.Fprintf(os.Stderr, "%s: %v: stopping the control plane, logs kept in %s\n", packageName(), sig, cp.Dir)
		cp.Stop()
		os.Exit(1)
	}()
}

// packageName names the test binary's package for messages: its folder.
func packageName() string {
	wd, err := os.Getwd()
	if err != nil {
		return "this package"
	}
	return wd
}
