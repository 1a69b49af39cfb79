package agent

import (
	"context"
	"time"

	"github.com/go-logr/logr"
)

// batcher collects triggers (new unschedulable pods) into batches: a batch
// closes idle after the last trigger or max after the first, then run is
// called once. It is a manager Runnable, so it runs only on the leader.
type batcher struct {
	idle, max time.Duration
	run       func(ctx context.Context) error
	log       logr.Logger
	clock     agentClock
	trigger   chan struct{}
}

func newBatcher(idle, max time.Duration, run func(ctx context.Context) error, clk agentClock, log logr.Logger) *batcher {
	return &batcher{idle: idle, max: max, run: run, log: log, clock: clk, trigger: make(chan struct{}, 1)}
}

// Trigger says a pod needs a node; it never blocks.
func (b *batcher) Trigger() {
	select {
	case b.trigger <- struct{}{}:
	default:
	}
}

// Start runs batches until ctx ends.
func (b *batcher) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-b.trigger:
		}
		if !b.wait(ctx) {
			return nil
		}
		if err := b.run(ctx); err != nil && ctx.Err() == nil {
			b.log.Error(err, "provisioning failed; retrying with the next batch")
			// Try again soon even without a new pod.
			b.clock.AfterFunc(b.idle, b.Trigger)
		}
	}
}

// wait returns when the batch closes (true) or ctx ends (false).
func (b *batcher) wait(ctx context.Context) bool {
	maxTimer := b.clock.NewTimer(b.max)
	defer maxTimer.Stop()
	idleTimer := b.clock.NewTimer(b.idle)
	defer idleTimer.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-maxTimer.C():
			return true
		case <-idleTimer.C():
			return true
		case <-b.trigger:
			if !idleTimer.Stop() {
				select {
				case <-idleTimer.C():
				default:
				}
			}
			idleTimer.Reset(b.idle)
		}
	}
}
