package agent

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// batcher collects triggers (new unschedulable pods) into batches: a batch
// closes idle after the last trigger or max after the first, then run is
// called once. It is a manager Runnable, so it runs only on the leader.
//
// With foresee (the agent anticipates the pods controllers are still
// creating, anticipate.go), a pod of a controller already seen in the
// open batch does not keep it open: the batch plans for all of that
// controller's pods, those that came and those to come, so waiting for
// them changes nothing but the time to their nodes. A burst's pods arrive
// for tens of seconds (the ReplicaSet controller creates them in growing
// batches, at its client's request rate), which kept every batch open to
// max; now it closes idle after the last controller not seen before.
type batcher struct {
	idle, max time.Duration
	run       func(ctx context.Context) error
	log       logr.Logger
	clock     agentClock
	trigger   chan struct{}
	foresee   bool

	mu sync.Mutex
	// owners are the controllers seen since the last batch closed.
	owners map[string]bool
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

// TriggerFor says a pod of owner (its controller, "" for none) needs a
// node: with foresee, a controller already seen in the open batch does not
// keep it open. It never blocks.
func (b *batcher) TriggerFor(owner string) {
	if b.foresee && owner != "" {
		b.mu.Lock()
		seen := b.owners[owner]
		if b.owners == nil {
			b.owners = map[string]bool{}
		}
		b.owners[owner] = true
		b.mu.Unlock()
		if seen {
			return
		}
	}
	b.Trigger()
}

// closed forgets the controllers seen: the next batch starts afresh.
func (b *batcher) closed() {
	b.mu.Lock()
	b.owners = nil
	b.mu.Unlock()
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
		b.closed()
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
