package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// agentClock is what the controllers read time from and wait on:
// clock.RealClock in production (created in Run, the one place the agent
// takes the wall clock), a fake clock in tests.
type agentClock = clock.WithTickerAndDelayedExecution

// every returns a runnable that calls run every interval of clk until ctx
// ends, with the tick's time; a failure is logged and retried on the next
// tick. Like every runnable that does not say otherwise, it runs only on
// the leader.
func every(clk agentClock, interval time.Duration, log logr.Logger, run func(context.Context, time.Time) error) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		t := clk.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case now := <-t.C():
				if err := run(ctx, now); err != nil && ctx.Err() == nil {
					log.Error(err, "loop failed; retrying on the next tick")
				}
			}
		}
	})
}

// wake carries "something a loop waits for has happened" from one
// controller to a loop: signals that arrive while one is pending merge.
type wake struct{ c chan struct{} }

func newWake() *wake { return &wake{c: make(chan struct{}, 1)} }

// signal wakes the loop, at once if it waits, else when it next does.
// A nil wake ignores it.
func (w *wake) signal() {
	if w == nil {
		return
	}
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// everyOrWoken is every, except that a signal on w runs the loop settle
// after it instead of at the next tick, and each run starts a full
// interval before the next tick: a loop that waits for something to end
// (consolidation for a drain) runs when it ends, not up to an interval
// later. settle lets the informer cache see what the signal reported.
func everyOrWoken(clk agentClock, interval, settle time.Duration, w *wake, log logr.Logger, run func(context.Context, time.Time) error) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		t := clk.NewTimer(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C():
			case <-w.c:
				if !sleep(ctx, clk, settle) {
					return nil
				}
				if !t.Stop() {
					select {
					case <-t.C():
					default:
					}
				}
			}
			if err := run(ctx, clk.Now()); err != nil && ctx.Err() == nil {
				log.Error(err, "loop failed; retrying on the next tick")
			}
			t.Reset(interval)
		}
	})
}

// addEvery adds every's runnable to mgr as the loop called name.
func addEvery(mgr manager.Manager, name string, clk agentClock, interval time.Duration, log logr.Logger, run func(context.Context, time.Time) error) error {
	if err := mgr.Add(every(clk, interval, log, run)); err != nil {
		return fmt.Errorf("adding the %s loop: %w", name, err)
	}
	return nil
}

// sleep waits d on clk, or until ctx ends (false).
func sleep(ctx context.Context, clk agentClock, d time.Duration) bool {
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}
