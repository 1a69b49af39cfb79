package packing

import (
	"math"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
)

// take is k pods of a bucket on one claim.
type take struct {
	b *bucket
	k int64
}

// fill packs n from the active buckets, the seed first, placing the pods:
// each step takes the bucket whose pods best use the resource the node
// has most of left, half of what fits at a time. It returns what it took,
// bucket by bucket.
func (f *filler) fill(n *node, seed *bucket) []take {
	return f.pack(n, seed, nil, f.s.place)
}

// dryFill is fill simulated on n (a scratch node, see dryNode): the pods
// stay in their buckets. Its takes are valid until the next dry fill,
// which reuses their buffer.
func (f *filler) dryFill(n *node, seed *bucket) []take {
	takes := f.pack(n, seed, f.dryTakes[:0], f.dryPut)
	// The dry puts counted the pods in the buckets' taken fields.
	for _, tk := range takes {
		tk.b.taken = 0
	}
	f.dryTakes = takes[:0]
	return takes
}

// pack is fill with put doing the placing, appending to takes.
func (f *filler) pack(n *node, seed *bucket, takes []take, put func(*bucket, *node, int64)) []take {
	record := func(b *bucket, k int64) {
		put(b, n, k)
		if len(takes) > 0 && takes[len(takes)-1].b == b {
			takes[len(takes)-1].k += k
		} else {
			takes = append(takes, take{b, k})
		}
	}
	k := f.s.room(seed, n, seed.left()-seed.taken)
	if k <= 0 {
		return takes
	}
	record(seed, (k+1)/2)
	run := f.startRun(n)
	for f.minReq.Fits(n.room) {
		best, bestK := f.choose(run)
		if best < 0 {
			break
		}
		c := &run.cands[best]
		k := (bestK + 1) / 2
		c.left -= k
		record(c.b, k)
	}
	return takes
}

// fillRun is one fill's candidates: the buckets n admits at all (zone,
// capacity type, instance type), in f.active's order, with what a step
// reads of each kept at hand, and those that may still go on n (live).
type fillRun struct {
	n     *node
	alloc resources.Vector
	price float64
	cands []fillCand
	// live are the candidates that may still go on n: one leaves for good
	// once it is empty, no longer fits n's room (which only shrinks), or n
	// refuses it, unless it has pod affinity terms, which a pod placed
	// later may satisfy.
	live []int32
	// shrinking is set when no request is negative: n's room then only
	// shrinks, and so does every score (rounding is monotonic), so a
	// candidate's last score bounds its next ones, and one whose bound is
	// no better than the step's best so far cannot be chosen (a later
	// step looks at it again).
	shrinking bool
}

// startRun lists the candidates of a fill of n in f.run, whose buffers
// every fill reuses.
func (f *filler) startRun(n *node) *fillRun {
	run := &f.run
	*run = fillRun{n: n, alloc: n.typ.alloc, price: n.typ.price[n.zone*numCapacityTypes+n.capacityType], cands: run.cands[:0], live: run.live[:0], shrinking: true}
	for _, b := range f.active {
		if f.s.admits(b, n) {
			run.cands = append(run.cands, fillCand{b: b, left: b.left() - b.taken, req: b.class.req, free: b.class.unconstrained(), affinity: len(b.class.affinity) > 0, bound: math.Inf(1)})
		}
	}
	for d := range resources.MaxDims {
		run.shrinking = run.shrinking && f.minReq[d] >= 0
	}
	for i := range run.cands {
		run.live = append(run.live, int32(i))
	}
	return run
}

// choose is one step of a fill: the live candidate whose pods best use
// n's room, and how many of them fit (-1 when none does). It drops the
// candidates that can no longer go on n.
func (f *filler) choose(run *fillRun) (int, int64) {
	s, n := f.s, run.n
	best := -1
	var bestK int64
	bestScore := -1.0
	kept := 0
	for _, i := range run.live {
		c := &run.cands[i]
		if c.left == 0 {
			continue
		}
		if run.shrinking && c.bound <= bestScore {
			run.live[kept] = i
			kept++
			continue
		}
		if !c.req.Fits(n.room) {
			continue
		}
		// roomLeft, for a candidate n admits.
		k := c.req.Times(&n.room, c.left)
		if k > 0 && !c.free {
			k = s.constrain(c.b.class, n, k)
		}
		if k <= 0 {
			if c.affinity {
				run.live[kept] = i
				kept++
			}
			continue
		}
		run.live[kept] = i
		kept++
		// A bucket's worth and shares of n are the same at every step of
		// the fill.
		if !c.priced {
			c.worth, c.shares, c.priced = worth(c.b, run.alloc, run.price, s.opts.worth), shares(c.req, run.alloc), true
		}
		score := c.shares.align(n.room, run.alloc) * c.worth
		if c.worth >= 0 {
			c.bound = score
		}
		if score > bestScore {
			best, bestK, bestScore = int(i), k, score
		}
	}
	run.live = run.live[:kept]
	return best, bestK
}

// dryPut simulates placing k pods of b on n: n's room and per-node counts
// change as with place, and b counts them in taken, which the caller
// resets.
func (f *filler) dryPut(b *bucket, n *node, k int64) {
	n.room.SubTimes(&b.class.req, k)
	for _, g := range b.class.matches {
		n.bumpMatch(g, int32(k))
	}
	for _, t := range b.class.activeTerms(b.class.anti) {
		n.bumpCarry(t.group, int32(k))
	}
	if len(b.class.ports) > 0 {
		for range k {
			n.ports = append(n.ports, b.class.ports...)
		}
	}
	b.taken += k
}

// fillCand is a bucket during one fill: what is left of it for the node
// (less what a dry fill took), its requests, whether its class has no
// constraint for constrain to check or has pod affinity terms, and, once
// computed, its worth and shares of the node.
type fillCand struct {
	b        *bucket
	left     int64
	req      resources.Vector
	free     bool
	affinity bool
	priced   bool
	worth    float64
	shares   reqShares
	// bound is the candidate's last score, +Inf before the first.
	bound float64
}

// worth is how well a pod pays for the share of the node it takes: its
// value over the node's price times its dominant share, capped at 1 so
// that among pods that pay their way the best fit wins, raised to the
// strategy's exponent.
func worth(b *bucket, alloc resources.Vector, price, exponent float64) float64 {
	if exponent == 0 {
		return 1
	}
	share := 0.0
	for d := range resources.MaxDims {
		if alloc[d] > 0 && b.class.req[d] > 0 {
			share = max(share, float64(b.class.req[d])/float64(alloc[d]))
		}
	}
	if share <= 0 || price <= 0 {
		return 1
	}
	return math.Pow(min(1, b.value/(price*share)), exponent)
}

// reqShares are a request's shares of a node's allocatable in every
// resource but pods, computed once per fill for align.
type reqShares struct {
	n    int
	dims [resources.MaxDims]int8
	r    [resources.MaxDims]float64
}

func shares(req, alloc resources.Vector) reqShares {
	var sh reqShares
	for d := range resources.MaxDims {
		if alloc[d] > 0 && req[d] > 0 && d != resources.Pods {
			sh.dims[sh.n], sh.r[sh.n] = int8(d), float64(req[d])/float64(alloc[d])
			sh.n++
		}
	}
	return sh
}

// align scores how well a request uses the room a node has left: the dot
// product of both, each relative to the node's allocatable
// (req/alloc * room/alloc summed over the resources, in order).
func (sh *reqShares) align(room, alloc resources.Vector) float64 {
	var sum float64
	for i := range sh.n {
		d := sh.dims[i]
		sum += sh.r[i] * float64(room[d]) / float64(alloc[d])
	}
	return sum
}
