package consolidation

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// The bench's "fewest evictions" is a lower bound on the workload pods any
// consolidation must evict to cut a cluster's cost by a given saving.
// Consolidation evicts only the pods of the nodes it removes, so an end
// state is the set S of original nodes removed and the new nodes R
// launched, and it evicts every workload pod on S. It must save
//
//	price(S) - price(R) >= saving,
//
// and the pods of S must fit somewhere. For a resource r (cpu, memory)
// and a size T, a pod of S requesting at least T of r lands either on a
// kept node with at least T of r free or on a new node that can hold such
// a pod; so, with big_n the r the pods of node n of at least T request,
// free_n the r node n has free, counted only where it is at least T, and
// z_o new nodes bought at offering o, each offering room_o of r to pods
// (its allocatable less the daemonsets every node of its pool runs;
// counted only if it holds some pod of at least T):
//
//	sum over n in S of big_n <= sum over kept n of free_n + sum_o z_o room_o.
//
// A kept node's free room counts for a row only if it holds, in both
// resources, some workload pod of the row: free cpu beside no free memory
// takes no pod, so no pod of S can use it.
//
// Such pods request, together, a multiple of g, the greatest common
// divisor of their requests (in millicores and bytes), so free_n and
// room_o count only the largest multiple of g they hold: pods of 2 cpu use
// 2 of a room of 3.5.
//
// With a_n = big_n + free_n and F the sum of all free_n that is
// sum over S of a_n <= F + sum_o z_o room_o: one row j per (r, T), T = 0
// and each size a workload pod requests, and price(R) = sum_o z_o price_o.
// Relaxing "n in S" to a fraction x_n in [0, 1] and z_o to any z_o >= 0
// gives a linear program whose optimum bounds the fewest evictions from
// below. By weak duality every choice of multipliers l0, l_j >= 0 with
// l0 price_o >= sum_j l_j room_oj for every offering o bounds that
// optimum from below:
//
//	L = l0*saving - sum_j l_j F_j + sum_n min(0, pods_n + sum_j l_j a_nj - l0 price_n).
//
// With every l_j = 0 this is the fractional knapsack of nodes by pods per
// dollar (the bench's bound before the rows were counted); evictionBound
// searches the l_j for a larger L. Any l gives a proven bound, so the
// search only decides how tight it is. TestEvictionBoundNeverAboveTheMinimum
// checks it against brute force.

// evCluster is what the bound reads of a cluster: its nodes and the
// offerings a new node can be bought at.
type evCluster struct {
	nodes  []evNode
	offers []evOffer
}

// evNode is an original node: its price, allocatable and the requests of
// all its pods (used, daemonset pods included), and each workload pod's
// requests (cpu, memory).
type evNode struct {
	price       float64
	alloc, used [2]float64
	pods        [][2]float64
}

// evOffer is what a new node can be: the room its type offers pods
// beside its pool's daemonsets, and its price.
type evOffer struct {
	alloc [2]float64
	price float64
}

// evRow is one (resource, size) row of the program: the room F of the
// nodes with at least the size free.
type evRow struct{ room float64 }

// evictionNode is one node's column: its workload pods, its price, and
// a_n of each row.
type evictionNode struct {
	pods  int
	price float64
	a     []float64
}

// evNewNode is one offering's column: its price and its room_o of each
// row (0 where it holds no pod of the row's size).
type evNewNode struct {
	price float64
	room  []float64
}

// program builds the rows and columns of the bound for c.
func (c evCluster) program() ([]evictionNode, []evRow, []evNewNode) {
	// Row (r, size, step): the pods requesting at least size of r, and
	// step, the greatest common divisor of what they request (0 when they
	// request none): any set of them requests a multiple of step.
	type row struct {
		r          int
		size, step float64
	}
	var rows []row
	for r := range 2 {
		sizes := map[float64]bool{0: true}
		for _, n := range c.nodes {
			for _, p := range n.pods {
				sizes[p[r]] = true
			}
		}
		for _, t := range slices.Sorted(maps.Keys(sizes)) {
			var step int64
			for _, n := range c.nodes {
				for _, p := range n.pods {
					if p[r] >= t {
						step = gcd(step, int64(math.Round(p[r])))
					}
				}
			}
			rows = append(rows, row{r, t, float64(step)})
		}
	}
	// usable is what a room holds of the row's pods: nothing below its
	// size, else the largest multiple of its step.
	usable := func(rw row, room float64) float64 {
		if room < rw.size || room <= 0 {
			return 0
		}
		if rw.step > 0 {
			return rw.step * math.Floor(room/rw.step+1e-9)
		}
		return room
	}
	out := make([]evRow, len(rows))
	news := make([]evNewNode, len(c.offers))
	for o, of := range c.offers {
		news[o] = evNewNode{price: of.price, room: make([]float64, len(rows))}
		for j, rw := range rows {
			// The offering counts for the row if it holds some pod of
			// at least the row's size.
			holds := false
			for _, n := range c.nodes {
				for _, p := range n.pods {
					holds = holds || (p[rw.r] >= rw.size && p[0] <= of.alloc[0] && p[1] <= of.alloc[1])
				}
			}
			if holds {
				news[o].room[j] = usable(rw, of.alloc[rw.r])
			}
		}
	}
	cols := make([]evictionNode, len(c.nodes))
	for i, n := range c.nodes {
		cols[i] = evictionNode{pods: len(n.pods), price: n.price, a: make([]float64, len(rows))}
		room := [2]float64{max(0, n.alloc[0]-n.used[0]), max(0, n.alloc[1]-n.used[1])}
		for j, rw := range rows {
			free := 0.0
			if holdsRow(c.nodes, rw.r, rw.size, room) {
				free = usable(rw, room[rw.r])
			}
			big := 0.0
			for _, p := range n.pods {
				if p[rw.r] >= rw.size {
					big += p[rw.r]
				}
			}
			cols[i].a[j] = big + free
			out[j].room += free
		}
	}
	return cols, out, news
}

// holdsRow reports whether room holds, in both resources, some workload
// pod of nodes requesting at least size of resource r: a kept node's free
// room counts for a row only then (free cpu beside no free memory takes
// no pod).
func holdsRow(nodes []evNode, r int, size float64, room [2]float64) bool {
	for _, n := range nodes {
		for _, p := range n.pods {
			if p[r] >= size && p[0] <= room[0] && p[1] <= room[1] {
				return true
			}
		}
	}
	return false
}

// gcd is the greatest common divisor of a and b (b when a is 0).
func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return max(a, -a)
}

// evictionBound is the largest L (above) its search finds, rounded up: no
// end state saving at least saving evicts fewer pods.
func evictionBound(nodes []evictionNode, rows []evRow, news []evNewNode, saving float64) int {
	if saving <= 1e-9 {
		return 0
	}
	// A free offering with room in a row makes that row bound nothing:
	// its multiplier stays 0. The others are scaled to pods per average
	// node's a, so one step size suits every row.
	scale := make([]float64, len(rows))
	var live []int
	for j := range rows {
		total := 0.0
		for _, n := range nodes {
			total += n.a[j]
		}
		free := slices.ContainsFunc(news, func(o evNewNode) bool { return o.price <= 0 && o.room[j] > 0 })
		if total > 0 && !free {
			scale[j] = float64(len(nodes)) / total
			live = append(live, j)
		}
	}
	lam := make([]float64, len(rows))
	dual := func(l []float64) float64 {
		floor := 0.0
		for _, o := range news {
			if o.price <= 0 {
				continue
			}
			v := 0.0
			for _, j := range live {
				lam[j] = l[j] * scale[j]
				v += lam[j] * o.room[j]
			}
			floor = max(floor, v/o.price)
		}
		for _, j := range live {
			lam[j] = l[j] * scale[j]
		}
		return evictionDual(nodes, rows, lam, floor, saving)
	}
	l := make([]float64, len(rows))
	best := dual(l)
	// Pattern search: the dual is concave, so moving each multiplier
	// while it helps, and halving the step when nothing does, climbs
	// towards its maximum. Every point is a valid bound. The climb stops
	// after a number of tries, so a dual that grows without end (no end
	// state saves that much) stops too.
	tries := 400 * len(live)
	for step := 1.0; len(live) > 0 && step > 1.0/4096 && tries > 0; tries-- {
		moved := false
		for _, j := range live {
			for _, d := range []float64{step, -step} {
				old := l[j]
				l[j] = max(0, old+d)
				if l[j] != old {
					if v := dual(l); v > best+1e-9 {
						best, moved = v, true
						break
					}
				}
				l[j] = old
			}
		}
		if !moved {
			step /= 2
		}
	}
	if math.IsInf(best, 1) {
		// No end state saves that much; every pod is as good a bound.
		all := 0
		for _, n := range nodes {
			all += n.pods
		}
		return all
	}
	return max(0, int(math.Ceil(best-1e-6)))
}

// evictionDual is L (above) at multipliers lam and the best l0 >= floor:
// with q_n = pods_n + sum_j lam_j a_nj and the nodes sorted by
// q_n/price_n, l0 is the ratio at which their prices first reach the
// saving (L's slope in l0 turns negative there).
func evictionDual(nodes []evictionNode, rows []evRow, lam []float64, floor, saving float64) float64 {
	type item struct{ q, price float64 }
	items := make([]item, 0, len(nodes))
	for _, n := range nodes {
		q := float64(n.pods)
		for j, a := range n.a {
			q += lam[j] * a
		}
		items = append(items, item{q, n.price})
	}
	ratio := func(it item) float64 {
		if it.price <= 0 {
			return math.Inf(1) // never below l0: min(0, q - l0*0) is 0
		}
		return it.q / it.price
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(ratio(a), ratio(b)) })
	l0, sum := math.Inf(1), 0.0
	for _, it := range items {
		if it.price <= 0 {
			break
		}
		if sum += it.price; sum >= saving {
			l0 = ratio(it)
			break
		}
	}
	if math.IsInf(l0, 1) {
		// Every node together saves less: no end state reaches saving.
		return math.Inf(1)
	}
	l0 = max(l0, floor)
	v := l0 * saving
	for j, rw := range rows {
		v -= lam[j] * rw.room
	}
	for _, it := range items {
		v += min(0, it.q-l0*it.price)
	}
	return v
}

// leastEvictions is evictionBound for a snapshot: the fewest workload pods
// any consolidation of snap that cuts its cost by saving $/h must evict.
func leastEvictions(snap *state.Snapshot, saving float64) int {
	nodes, rows, news := evClusterOf(snap).program()
	return evictionBound(nodes, rows, news, saving)
}

// evClusterOf reads snap's nodes, pods and, as offerings, every offering
// a pool of snap can launch (its requirements allow the type, the zone and
// the capacity type; reservations count at their price), each with the
// room its type's allocatable leaves beside the daemonsets that surely
// run on every node of the pool (daemonsetOverhead); offerings without
// room for those are left out.
func evClusterOf(snap *state.Snapshot) evCluster {
	var c evCluster
	idx := map[string]int{}
	for i, n := range snap.Nodes {
		idx[n.Name] = i
		c.nodes = append(c.nodes, evNode{price: n.PricePerHour, alloc: [2]float64{float64(n.Allocatable.Cpu().MilliValue()), float64(n.Allocatable.Memory().Value())}})
	}
	for _, p := range snap.Pods {
		i, ok := idx[p.NodeName]
		if !ok {
			continue
		}
		cpu, mem := podRequests(p)
		req := [2]float64{float64(cpu), float64(mem)}
		c.nodes[i].used[0] += req[0]
		c.nodes[i].used[1] += req[1]
		if !p.DaemonSet {
			c.nodes[i].pods = append(c.nodes[i].pods, req)
		}
	}
	for _, pool := range snap.Pools {
		overhead := daemonsetOverhead(snap, pool)
		zones := pool.Requirements.Get(scheduling.LabelTopologyZone)
		cts := pool.Requirements.Get(scheduling.LabelCapacityType)
		for _, it := range pool.InstanceTypes {
			if pool.Requirements.Intersects(it.Requirements) != nil {
				continue
			}
			room := [2]float64{float64(it.Allocatable.Cpu().MilliValue()) - overhead[0], float64(it.Allocatable.Memory().Value()) - overhead[1]}
			if room[0] < 0 || room[1] < 0 {
				continue
			}
			for _, o := range it.Offerings {
				if (pool.Requirements.Has(scheduling.LabelTopologyZone) && !zones.Has(o.Zone)) ||
					(pool.Requirements.Has(scheduling.LabelCapacityType) && !cts.Has(o.CapacityType)) {
					continue
				}
				c.offers = append(c.offers, evOffer{alloc: room, price: o.PricePerHour})
			}
		}
	}
	return c
}

// daemonsetOverhead is the cpu and memory the daemonsets of snap request
// on every node of pool for certain: those whose pod selects no nodes
// (no node selector, no affinity), on a pool without taints. Leaving out
// a daemonset that does run there only loosens the bound.
func daemonsetOverhead(snap *state.Snapshot, pool *state.Pool) [2]float64 {
	var out [2]float64
	if len(pool.Taints) > 0 {
		return out
	}
	for _, ds := range snap.DaemonSets {
		if ds.Pod == nil || len(ds.Pod.NodeSelector) > 0 || ds.Pod.Affinity != nil {
			continue
		}
		cpu, mem := podRequests(ds.Pod)
		out[0] += float64(cpu)
		out[1] += float64(mem)
	}
	return out
}
