package consolidation

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEvictionBoundNeverAboveTheMinimum checks the bench's fewest-evictions
// bound against brute force on small random clusters: for every set of
// nodes a consolidation could remove, the cheapest new nodes that hold
// their pods beside the kept nodes' free room (every assignment tried);
// then, for each saving some end state reaches, the fewest pods any end
// state saving at least that much evicts. The bound must never exceed it,
// and a bound that forgets new nodes must, somewhere: the check
// can fail.
func TestEvictionBoundNeverAboveTheMinimum(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 4))
	checked, tighter, broken := 0, 0, 0
	for range 400 {
		c := randomEvCluster(r)
		ends := bruteForceEnds(c)
		nodes, rows, news := c.program()
		knapsack := freeRows(news) // every row left out
		for _, e := range ends {
			if e.saving <= 1e-9 {
				continue
			}
			least := math.MaxInt
			for _, f := range ends {
				if f.saving >= e.saving-1e-9 {
					least = min(least, f.evicted)
				}
			}
			got := evictionBound(nodes, rows, news, e.saving)
			if got > least {
				t.Fatalf("bound %d above the fewest evictions %d for saving %.4f on %+v", got, least, e.saving, c)
			}
			if evictionBound(nodes, rows, knapsack, e.saving) < got {
				tighter++
			}
			if evictionBound(nodes, rows, nil, e.saving) > least {
				broken++
			}
			checked++
		}
	}
	t.Logf("%d savings checked; the rows tighten the knapsack on %d; the forgetful bound is wrong on %d", checked, tighter, broken)
	if checked < 500 || tighter == 0 || broken == 0 {
		t.Fatalf("the random clusters do not exercise the bound: %d checked, %d tighter, %d wrong without new nodes", checked, tighter, broken)
	}
}

// TestEvictionBoundCases pins the bound on clusters small enough to
// solve by hand.
func TestEvictionBoundCases(t *testing.T) {
	small := evOffer{alloc: [2]float64{4, 4}, price: 1}
	big := evOffer{alloc: [2]float64{16, 16}, price: 3}
	pod := func(cpu, mem float64) [2]float64 { return [2]float64{cpu, mem} }
	for _, tc := range []struct {
		name   string
		c      evCluster
		saving float64
		// knapsack is the bound without the rows, least the fewest
		// evictions by brute force (MaxInt: none reaches the saving).
		knapsack, want, least int
	}{
		{
			name:     "nothing to save evicts nothing",
			c:        evCluster{nodes: []evNode{{price: 1, alloc: small.alloc, used: [2]float64{2, 2}, pods: [][2]float64{pod(2, 2)}}}, offers: []evOffer{small}},
			knapsack: 0, want: 0, least: 0,
		},
		{
			name: "an empty node saves its price for free",
			c: evCluster{nodes: []evNode{
				{price: 3, alloc: big.alloc},
				{price: 1, alloc: small.alloc, used: [2]float64{2, 2}, pods: [][2]float64{pod(2, 2)}},
			}, offers: []evOffer{small, big}},
			saving: 3, knapsack: 0, want: 0, least: 0,
		},
		{
			// By pods per dollar the big node goes first (4 pods for $3
			// against 2 for $1.25): half of it would save $1.5 for 2
			// evictions. But its pods of 2 fit no small node's free 1,
			// so a new node as costly per cpu as it must take them, and
			// removing it saves nothing. The small nodes must go: their
			// 4 pods (brute force: 4; the program, fractional, says 3).
			name: "pods that fit nowhere else keep the cheap-per-pod node",
			c: evCluster{nodes: []evNode{
				{price: 3, alloc: big.alloc, used: [2]float64{16, 16}, pods: [][2]float64{pod(4, 4), pod(4, 4), pod(4, 4), pod(4, 4)}},
				{price: 1.25, alloc: small.alloc, used: [2]float64{2, 2}, pods: [][2]float64{pod(1, 1), pod(1, 1)}},
				{price: 1.25, alloc: small.alloc, used: [2]float64{2, 2}, pods: [][2]float64{pod(1, 1), pod(1, 1)}},
			}, offers: []evOffer{small, big}},
			saving: 1.5, knapsack: 2, want: 3, least: 4,
		},
		{
			// The cpu-heavy node's 13 free cpu beside no free memory
			// take no pod, nor does the memory-heavy node's free
			// memory beside no free cpu: each pod needs a new node,
			// so saving $7 takes removing both for one new 8x8 node.
			// Counting that free room, the program let the $8 node's
			// pod move into the other's memory for 1 eviction.
			name: "free room in one resource only takes no pod",
			c: evCluster{nodes: []evNode{
				{price: 8, alloc: [2]float64{16, 4}, used: [2]float64{3, 4}, pods: [][2]float64{pod(3, 4)}},
				{price: 6, alloc: [2]float64{4, 8}, used: [2]float64{4, 3}, pods: [][2]float64{pod(4, 3)}},
			}, offers: []evOffer{{alloc: [2]float64{16, 4}, price: 8}, {alloc: [2]float64{4, 8}, price: 6}, {alloc: [2]float64{8, 8}, price: 7}}},
			saving: 7, knapsack: 1, want: 2, least: 2,
		},
		{
			name: "no end state saves that much: every pod",
			c: evCluster{nodes: []evNode{
				{price: 1, alloc: small.alloc, used: [2]float64{2, 2}, pods: [][2]float64{pod(2, 2)}},
			}, offers: []evOffer{small}},
			saving: 2, knapsack: 1, want: 1, least: math.MaxInt,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, rows, news := tc.c.program()
			if got := evictionBound(nodes, rows, news, tc.saving); got != tc.want {
				t.Errorf("evictionBound = %d, want %d", got, tc.want)
			}
			if got := evictionBound(nodes, rows, freeRows(news), tc.saving); got != tc.knapsack {
				t.Errorf("without the rows = %d, want %d", got, tc.knapsack)
			}
			least := math.MaxInt
			for _, e := range bruteForceEnds(tc.c) {
				if e.saving >= tc.saving-1e-9 {
					least = min(least, e.evicted)
				}
			}
			if least != tc.least {
				t.Errorf("brute force = %d, want %d", least, tc.least)
			}
		})
	}
}

// randomEvCluster is 2–5 nodes of a 3–4-offering catalog holding up to 8
// workload pods in all, some nodes also running daemon pods.
func randomEvCluster(r *rand.Rand) evCluster {
	var c evCluster
	// Offerings of every shape (cpu-heavy to memory-heavy), priced per
	// cpu and per memory at random: no one offering is the cheapest
	// for both.
	for range 3 + r.IntN(2) {
		cpu := []float64{4, 8, 16}[r.IntN(3)]
		mem := cpu * []float64{0.25, 0.5, 1, 2}[r.IntN(4)]
		c.offers = append(c.offers, evOffer{alloc: [2]float64{cpu, mem}, price: cpu*(0.4+0.6*r.Float64()) + mem*(0.2+0.3*r.Float64())})
	}
	left := 8
	for range 2 + r.IntN(4) {
		o := c.offers[r.IntN(len(c.offers))]
		n := evNode{price: o.price, alloc: o.alloc}
		if r.IntN(3) == 0 {
			n.used = [2]float64{1, 1} // a daemon pod
		}
		for range r.IntN(4) {
			p := [2]float64{float64(1 + r.IntN(4)), float64(1 + r.IntN(4))}
			if left == 0 || n.used[0]+p[0] > n.alloc[0] || n.used[1]+p[1] > n.alloc[1] {
				continue
			}
			n.pods = append(n.pods, p)
			n.used[0] += p[0]
			n.used[1] += p[1]
			left--
		}
		c.nodes = append(c.nodes, n)
	}
	return c
}

// evEnd is one end state: what it saves and the pods it evicts.
type evEnd struct {
	saving  float64
	evicted int
}

// bruteForceEnds is, for every set of nodes removed whose pods fit, the
// end state with the cheapest new nodes.
func bruteForceEnds(c evCluster) []evEnd {
	var out []evEnd
	for mask := range 1 << len(c.nodes) {
		var pods [][2]float64
		var rooms [][2]float64
		removed := 0.0
		for i, n := range c.nodes {
			if mask&(1<<i) != 0 {
				pods = append(pods, n.pods...)
				removed += n.price
			} else {
				rooms = append(rooms, [2]float64{n.alloc[0] - n.used[0], n.alloc[1] - n.used[1]})
			}
		}
		slices.SortFunc(pods, func(a, b [2]float64) int { return -cmpPair(a, b) })
		if cost := cheapestNewNodes(c.offers, pods, rooms, nil, math.Inf(1)); !math.IsInf(cost, 1) {
			out = append(out, evEnd{saving: removed - cost, evicted: len(pods)})
		}
	}
	return out
}

func cmpPair(a, b [2]float64) int {
	switch {
	case a[0] != b[0]:
		return map[bool]int{true: -1, false: 1}[a[0] < b[0]]
	case a[1] != b[1]:
		return map[bool]int{true: -1, false: 1}[a[1] < b[1]]
	}
	return 0
}

// cheapestNewNodes places pods[0] on a kept node with room, a new node
// opened before, or a new node, recursively, and returns the least the
// new nodes cost (each the cheapest offering that holds its pods), or
// +Inf when no placement costs less than best.
func cheapestNewNodes(offers []evOffer, pods, rooms, bins [][2]float64, best float64) float64 {
	cost := 0.0
	for _, b := range bins {
		cost += cheapestOffer(offers, b)
	}
	if cost >= best {
		return math.Inf(1)
	}
	if len(pods) == 0 {
		return cost
	}
	p, rest := pods[0], pods[1:]
	found := math.Inf(1)
	try := func(v float64) {
		if v < found {
			found = v
			best = min(best, v)
		}
	}
	for i := range rooms {
		if rooms[i][0] >= p[0]-1e-9 && rooms[i][1] >= p[1]-1e-9 {
			rooms[i][0] -= p[0]
			rooms[i][1] -= p[1]
			try(cheapestNewNodes(offers, rest, rooms, bins, best))
			rooms[i][0] += p[0]
			rooms[i][1] += p[1]
		}
	}
	for i := range bins {
		bins[i][0] += p[0]
		bins[i][1] += p[1]
		if !math.IsInf(cheapestOffer(offers, bins[i]), 1) {
			try(cheapestNewNodes(offers, rest, rooms, bins, best))
		}
		bins[i][0] -= p[0]
		bins[i][1] -= p[1]
	}
	try(cheapestNewNodes(offers, rest, rooms, append(slices.Clone(bins), p), best))
	return found
}

// cheapestOffer is the price of the cheapest offering that holds load.
func cheapestOffer(offers []evOffer, load [2]float64) float64 {
	best := math.Inf(1)
	for _, o := range offers {
		if o.alloc[0] >= load[0]-1e-9 && o.alloc[1] >= load[1]-1e-9 {
			best = min(best, o.price)
		}
	}
	return best
}

// freeRows is news with one free offering that has room in every row:
// every row then bounds nothing, and the bound is the knapsack's.
func freeRows(news []evNewNode) []evNewNode {
	if len(news) == 0 {
		return nil
	}
	all := slices.Clone(news[0].room)
	for j := range all {
		all[j] = 1
	}
	return append(slices.Clone(news), evNewNode{room: all})
}
