package controlplane

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

// Main is the TestMain of a package whose tests need a control plane. It starts one with opts
// for all the package's tests, stores it in *out, runs the tests and stops it, keeping its
// folder (the components' logs) when a test failed.
//
// With -short it starts nothing, prints a banner saying the tests are skipped, and the tests
// skip through Require. Without -short, missing binaries fail the package with what to run:
// integration tests never skip silently.
func Main(m *testing.M, opts Options, out **ControlPlane) int {
	flag.Parse()
	pkg := packageName()
	if testing.Short() {
		fmt.Fprintf(os.Stderr, "\n*** SKIPPING the integration tests of %s: -short was given; they need a real control plane (make testbin) ***\n\n", pkg)
		return m.Run()
	}
	cp, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL %s: starting the control plane: %v\n", pkg, err)
		return 1
	}
	*out = cp
	// ^C and SIGTERM (go test's own timeout uses SIGQUIT, after which the kernel ends the
	// children): stop the components by PID before dying.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-sig
		if !ok {
			return
		}
		fmt.Fprintf(os.Stderr, "%s: %v: stopping the control plane, logs kept in %s\n", pkg, s, cp.Dir)
		cp.Stop()
		os.Exit(1)
	}()
	code := m.Run()
	signal.Stop(sig)
	close(sig)
	if err := cp.Exited(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL %s: a control-plane component exited during the tests:\n%v\n", pkg, err)
		code = 1
	}
	keep := code != 0
	if keep {
		fmt.Fprintf(os.Stderr, "%s: tests failed; control-plane logs kept in %s:\n  %s\n", pkg, cp.Dir, strings.Join(cp.Logs(), "\n  "))
	}
	if err := cp.Close(keep); err != nil {
		fmt.Fprintf(os.Stderr, "%s: removing %s: %v\n", pkg, cp.Dir, err)
	}
	return code
}

// Require skips the test when Main started no control plane, which it does only under -short.
func Require(t testing.TB, cp *ControlPlane) *ControlPlane {
	t.Helper()
	if cp == nil {
		t.Skip("SKIPPED: -short was given and this test needs a real control plane; run it without -short after `make testbin`")
	}
	return cp
}

// packageName names the test binary's package for messages: its folder.
func packageName() string {
	wd, err := os.Getwd()
	if err != nil {
		return "this package"
	}
	return wd
}
