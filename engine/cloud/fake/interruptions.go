package fake

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// Interruptions is an in-memory cloud.InterruptionSource: tests Send
// events, the agent Receives them, and an event stays until Done, as in a
// real queue.
type Interruptions struct {
	// Wait is how long Receive waits for an event when there is none
	// (default 100ms), like a queue's long poll.
	Wait time.Duration

	mu      sync.Mutex
	pending []cloud.Interruption
	next    int
	wake    chan struct{}
}

var _ cloud.InterruptionSource = (*Interruptions)(nil)

// NewInterruptions returns an empty source.
func NewInterruptions() *Interruptions {
	return &Interruptions{wake: make(chan struct{}, 1)}
}

// Send queues an event; its Handle is set when empty.
func (s *Interruptions) Send(ev cloud.Interruption) {
	s.mu.Lock()
	s.next++
	if ev.Handle == "" {
		ev.Handle = fmt.Sprintf("fake-%d", s.next)
	}
	s.pending = append(s.pending, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Pending returns the events not yet Done.
func (s *Interruptions) Pending() []cloud.Interruption {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pending)
}

// Receive returns every pending event, waiting up to Wait when there is
// none.
func (s *Interruptions) Receive(ctx context.Context) ([]cloud.Interruption, error) {
	if evs := s.Pending(); len(evs) > 0 {
		return evs, nil
	}
	wait := s.Wait
	if wait <= 0 {
		wait = 100 * time.Millisecond
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.wake:
	case <-time.After(wait):
	}
	return s.Pending(), nil
}

// Done removes ev (by Handle).
func (s *Interruptions) Done(_ context.Context, ev cloud.Interruption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = slices.DeleteFunc(s.pending, func(e cloud.Interruption) bool { return e.Handle == ev.Handle })
	return nil
}
