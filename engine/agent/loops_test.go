package agent

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestWokenLoopRunsBeforeItsTick checks everyOrWoken: a signal runs the
// loop settle after it, not at the next tick; the next tick then comes a
// whole interval after that run; signals sent while one is pending merge;
// without a signal the loop keeps its interval.
func TestWokenLoopRunsBeforeItsTick(t *testing.T) {
	const interval, settle = 10 * time.Second, time.Second
	start := time.Unix(0, 0)
	clk := clocktesting.NewFakeClock(start)
	w := newWake()
	runs := make(chan time.Duration, 10)
	loop := everyOrWoken(clk, interval, settle, w, logr.Discard(), func(_ context.Context, now time.Time) error {
		runs <- now.Sub(start)
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- loop.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the loop ended with %v", err)
		}
	}()

	expectRun := func(at time.Duration) {
		t.Helper()
		select {
		case got := <-runs:
			if got != at {
				t.Fatalf("the loop ran at %s, want %s", got, at)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the loop did not run at %s", at)
		}
	}
	expectNoRun := func() {
		t.Helper()
		select {
		case got := <-runs:
			t.Fatalf("the loop ran at %s, too early", got)
		case <-time.After(50 * time.Millisecond):
		}
	}
	// stepTo waits for the loop to wait on a timer, then moves the clock.
	stepTo := func(at time.Duration) {
		t.Helper()
		waitForWaiters(t, clk, 1)
		clk.SetTime(start.Add(at))
	}

	stepTo(interval) // no signal: the first tick
	expectRun(interval)

	w.signal()
	waitForWaiters(t, clk, 2) // the tick's timer and settle's
	stepTo(interval + settle/2)
	expectNoRun() // still settling
	stepTo(interval + settle)
	expectRun(interval + settle)

	stepTo(2*interval + settle/2) // the old tick's time: reset by the woken run
	expectNoRun()
	stepTo(2*interval + settle)
	expectRun(2*interval + settle)
	expectNoRun()
}

// TestWakeSignalsMerge checks that signals sent while one is pending
// merge into one, and that a nil wake ignores them.
func TestWakeSignalsMerge(t *testing.T) {
	w := newWake()
	for range 3 {
		w.signal()
	}
	if len(w.c) != 1 {
		t.Fatalf("%d signals pending, want 1", len(w.c))
	}
	var none *wake
	none.signal() // a controller without a loop to wake
}
