package simulate

import (
	"context"
	"time"
)

// Simulate solves the scenario's pending pods once with engine/packing and
// reports the result, SolveRuns holding the one run's time: the library
// form of `tenon simulate -o json`, for callers such as the
// tenon_simulation data source.
func (s *Scenario) Simulate(ctx context.Context) (*Report, error) {
	c := command{engine: packingSolver{}, now: time.Now}
	rep, _, err := c.simulate(ctx, s, &options{repeat: 1})
	return rep, err
}
