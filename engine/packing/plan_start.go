package packing

import (
	"slices"
	"sync"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/lp"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// planStarts shares the first column generation of plans between the
// strategies of one Solve. With a large clique both strategies pack from
// a plan (strategiesFor), with efforts that differ only in how they round
// (planEfforts 1 and 2): for the same pods and types their start and
// first planEffort.rounds rounds are the same computation, which took a
// sixth of diverse-20k's CPU twice. The first strategy to get there runs
// it and keeps a copy; the other waits for it and goes on from its own
// copy. A plan whose inputs differ in anything the generation reads
// (see planStartKey) runs its own.
type planStarts struct {
	mu      sync.Mutex
	entries []*planStart
}

// planStart is one shared start: its inputs, and once done is closed,
// the state column generation left.
type planStart struct {
	key       planStartKey
	done      chan struct{}
	master    *lp.Cover
	cols      []planConfig
	left      []int64
	stepsLeft int
}

// planStartKey is what start and generate read: the items' requests and
// counts, the types' allocatable, price and largest count held, the
// dimensions, what limits the generation's effort and whether searches
// are proven empty.
type planStartKey struct {
	reqs         []resources.Vector
	counts       []int64
	types        []planType
	ndims        int
	effort       planEffort
	noEmptyProof bool
}

func (plan *planner) startKey() planStartKey {
	k := planStartKey{ndims: plan.ndims, noEmptyProof: plan.noEmptyProof}
	// The rounding fields do not touch the first generation.
	e := plan.effort
	k.effort = planEffort{rounds: e.rounds, perRound: e.perRound, pivots: e.pivots, steps: e.steps,
		totalSteps: e.totalSteps, bigSteps: e.bigSteps, bigPods: e.bigPods, tailGain: e.tailGain}
	for _, it := range plan.items {
		k.reqs = append(k.reqs, it.req)
		k.counts = append(k.counts, it.count)
	}
	k.types = slices.Clone(plan.types)
	return k
}

func (k *planStartKey) equal(o *planStartKey) bool {
	return k.ndims == o.ndims && k.effort == o.effort && k.noEmptyProof == o.noEmptyProof &&
		slices.Equal(k.reqs, o.reqs) && slices.Equal(k.counts, o.counts) && slices.Equal(k.types, o.types)
}

// startAndGenerate runs plan's start and first plan.effort.rounds rounds
// of column generation, or takes them from another strategy's plan of the
// same inputs through starts (nil: no sharing).
func (plan *planner) startAndGenerate(starts *planStarts) {
	if starts == nil {
		plan.start()
		plan.generate(plan.effort.rounds)
		return
	}
	key := plan.startKey()
	starts.mu.Lock()
	for _, e := range starts.entries {
		if e.key.equal(&key) {
			starts.mu.Unlock()
			<-e.done
			plan.master, plan.cols = e.master.Clone(), slices.Clone(e.cols)
			plan.left, plan.stepsLeft = slices.Clone(e.left), e.stepsLeft
			return
		}
	}
	e := &planStart{key: key, done: make(chan struct{})}
	starts.entries = append(starts.entries, e)
	starts.mu.Unlock()
	plan.start()
	plan.generate(plan.effort.rounds)
	e.master, e.cols = plan.master.Clone(), slices.Clone(plan.cols)
	e.left, e.stepsLeft = slices.Clone(plan.left), plan.stepsLeft
	close(e.done)
}
