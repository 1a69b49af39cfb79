package agent

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestBatchClosesAfterTheLastNewController: with foresee, pods of a
// controller the open batch has seen do not keep it open (the batch plans
// for all its pods); a controller not seen before, or a pod without one,
// does; without foresee every trigger does.
func TestBatchClosesAfterTheLastNewController(t *testing.T) {
	const idle, maxWait = time.Second, 10 * time.Second
	for _, tc := range []struct {
		name    string
		foresee bool
		// owners trigger one every 500 ms, after the first.
		owners []string
		want   time.Duration
	}{
		{name: "one controller's pods", foresee: true, owners: []string{"a", "a", "a", "a", "a", "a"}, want: idle},
		{name: "a new controller extends", foresee: true, owners: []string{"a", "b", "a", "a", "a", "a"}, want: 500*time.Millisecond + idle},
		{name: "bare pods extend", foresee: true, owners: []string{"", "", "", "", "", ""}, want: 5*500*time.Millisecond + idle},
		{name: "without foresee", foresee: false, owners: []string{"a", "a", "a", "a", "a", "a"}, want: 5*500*time.Millisecond + idle},
		{name: "up to max", foresee: false, owners: make([]string, 40), want: maxWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(0, 0))
			closed := make(chan time.Time, 1)
			b := newBatcher(idle, maxWait, func(context.Context) error { closed <- clk.Now(); return nil }, clk, logr.Discard())
			b.foresee = tc.foresee
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { _ = b.Start(ctx) }()
			start := clk.Now()
			b.TriggerFor(tc.owners[0])
			waitForWaiters(t, clk, 2)
			for _, o := range tc.owners[1:] {
				clk.Step(500 * time.Millisecond)
				select {
				case at := <-closed:
					if got := at.Sub(start); got != tc.want {
						t.Fatalf("batch closed after %v; want %v", got, tc.want)
					}
					return
				default:
				}
				b.TriggerFor(o)
				settle(t, b)
			}
			for range 40 {
				select {
				case at := <-closed:
					if got := at.Sub(start); got != tc.want {
						t.Fatalf("batch closed after %v; want %v", got, tc.want)
					}
					return
				case <-time.After(20 * time.Millisecond):
					clk.Step(500 * time.Millisecond)
				}
			}
			t.Fatal("the batch never closed")
		})
	}
}

// waitForWaiters waits (in real time, bounded) until clk has n timers.
func waitForWaiters(t *testing.T, clk *clocktesting.FakeClock, n int) {
	t.Helper()
	for range 500 {
		if clk.Waiters() >= n {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("the batcher never started its %d timers", n)
}

// settle waits (in real time, bounded) until the batcher's goroutine took
// the trigger, and a moment more for it to reset its idle timer.
func settle(t *testing.T, b *batcher) {
	t.Helper()
	for range 1000 {
		if len(b.trigger) == 0 {
			time.Sleep(10 * time.Millisecond)
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the batcher never took the trigger")
}
