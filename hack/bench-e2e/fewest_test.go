package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestCapacityPriceIsTheLP: the fractional capacity cost of small type lists, worked by hand.
func TestCapacityPriceIsTheLP(t *testing.T) {
	cpuHeavy := [3]float64{2000, 1000, 1} // 2 cpu, 1 unit of memory, $1
	memHeavy := [3]float64{1000, 4000, 1} // 1 cpu, 4 units, $1
	dominated := [3]float64{500, 500, 1}  // worse than both on both
	dearer := [3]float64{2000, 1000, 1.5} // cpuHeavy at a higher price
	for _, tc := range []struct {
		name        string
		types       [][3]float64
		cpu, memory float64
		want        float64
	}{
		{name: "one type, cpu binds", types: [][3]float64{cpuHeavy}, cpu: 4000, memory: 500, want: 2},
		{name: "one type, memory binds", types: [][3]float64{cpuHeavy}, cpu: 1000, memory: 3000, want: 3},
		{name: "a mix beats either type", types: [][3]float64{cpuHeavy, memHeavy}, cpu: 3000, memory: 5000, want: 2},
		{name: "one type of two suffices", types: [][3]float64{cpuHeavy, memHeavy}, cpu: 4000, memory: 1000, want: 2},
		{name: "dominated types change nothing", types: [][3]float64{cpuHeavy, memHeavy, dominated, dearer}, cpu: 3000, memory: 5000, want: 2},
		{name: "nothing to hold", types: [][3]float64{cpuHeavy}, want: 0},
		{name: "more free room than demand", types: [][3]float64{cpuHeavy}, cpu: -5, memory: -7, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newCapacityPrice(tc.types).cost(tc.cpu, tc.memory); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("cost(%g, %g) = %g, want %g", tc.cpu, tc.memory, got, tc.want)
			}
		})
	}
}

// TestFewestEvictionsNeverAboveARealWalk builds random placements and, for each, a real end
// state: keep a random set of the nodes, put every other pod on one new node of a type that
// holds them. The bound at that end state's cost must not exceed the pods it evicted (a bound
// above a real walk is no lower bound), and must not fall when the cost is lower.
func TestFewestEvictionsNeverAboveARealWalk(t *testing.T) {
	catalogTypes := [][3]float64{{2000, 4e9, 0.1}, {4000, 16e9, 0.25}, {8000, 16e9, 0.35}, {16000, 64e9, 1.0}, {64000, 256e9, 4.1}}
	capacity := newCapacityPrice(catalogTypes)
	rng := rand.New(rand.NewPCG(18, 3))
	for trial := range 300 {
		p := &placement{}
		for i := range 1 + rng.IntN(8) {
			ty := catalogTypes[rng.IntN(len(catalogTypes))]
			n := placedNode{Name: string(rune('a' + i)), Price: ty[2], CPU: ty[0], Memory: ty[1]}
			freeCPU, freeMem := n.CPU, n.Memory
			for j := range rng.IntN(6) {
				cpu, mem := float64(250*(1+rng.IntN(4))), 512e6*float64(1+rng.IntN(4))
				if cpu > freeCPU || mem > freeMem {
					break
				}
				freeCPU -= cpu
				freeMem -= mem
				p.Pods = append(p.Pods, placedPod{UID: types.UID(fmt.Sprintf("%s-%d", n.Name, j)), Node: n.Name, CPU: cpu, Memory: mem})
			}
			p.Nodes = append(p.Nodes, n)
		}
		keep := rng.IntN(1 << len(p.Nodes))
		kept := map[string]bool{}
		var price, moveCPU, moveMem float64
		for i, n := range p.Nodes {
			if keep&(1<<i) != 0 {
				kept[n.Name] = true
				price += n.Price
			}
		}
		evicted := 0
		for _, pod := range p.Pods {
			if !kept[pod.Node] {
				evicted++
				moveCPU += pod.CPU
				moveMem += pod.Memory
			}
		}
		// One new node holds everything moved (whether or not it would fit the free room).
		if evicted > 0 {
			bought := false
			for _, ty := range catalogTypes {
				if ty[0] >= moveCPU && ty[1] >= moveMem {
					price += ty[2]
					bought = true
					break
				}
			}
			if !bought {
				continue
			}
		}
		got, err := fewestEvictions(p, price, capacity)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if got > evicted {
			t.Fatalf("trial %d: bound %d above a walk that evicts %d at $%.2f/h: %+v (kept %v)", trial, got, evicted, price, p, kept)
		}
		if lower, _ := fewestEvictions(p, price*0.8, capacity); lower < got {
			t.Fatalf("trial %d: bound %d at $%.2f/h but %d at a lower cost", trial, got, price, lower)
		}
	}
}

// TestFewestEvictionsCases: what the bound says on clusters worked by hand.
func TestFewestEvictionsCases(t *testing.T) {
	capacity := newCapacityPrice([][3]float64{{1000, 1000, 1}})
	// Two nodes at $1 of 1000 cpu and memory: a holds 3 pods of 200, b 1 pod of 200.
	p := &placement{Nodes: []placedNode{{Name: "a", Price: 1, CPU: 1000, Memory: 1000}, {Name: "b", Price: 1, CPU: 1000, Memory: 1000}}}
	for i, node := range []string{"a", "a", "a", "b"} {
		p.Pods = append(p.Pods, placedPod{UID: types.UID(fmt.Sprint(i)), Node: node, CPU: 200, Memory: 200})
	}
	for _, tc := range []struct {
		cost float64
		want int
	}{
		{cost: 2, want: 0},   // keep both
		{cost: 1, want: 1},   // keep a, b's pod fits a's free room
		{cost: 0.9, want: 4}, // nothing reaches it: every pod, the most there is
	} {
		if got, err := fewestEvictions(p, tc.cost, capacity); err != nil || got != tc.want {
			t.Errorf("fewestEvictions at $%g/h = %d, %v; want %d", tc.cost, got, err, tc.want)
		}
	}
	big := &placement{Nodes: make([]placedNode, maxFewestNodes+1)}
	if _, err := fewestEvictions(big, 1, capacity); err == nil || !strings.Contains(err.Error(), "nodes") {
		t.Errorf("fewestEvictions on %d nodes: %v; want an error naming the node count", len(big.Nodes), err)
	}
	unpriced := &placement{Nodes: []placedNode{{Name: "x", Unknown: true}}}
	if _, err := fewestEvictions(unpriced, 1, capacity); err == nil || !strings.Contains(err.Error(), "x") {
		t.Errorf("fewestEvictions with an unpriced node: %v; want an error naming it", err)
	}
}

// TestSettledPlacementDropsTheScaleDownsDeletions: the pods a scale-down deleted after the
// first disruption was captured left undisrupted and are no eviction a walk needed; those
// still there and those disrupted stay.
func TestSettledPlacementDropsTheScaleDownsDeletions(t *testing.T) {
	o := newObserver(nil)
	o.phase.before = &placement{Nodes: []placedNode{{Name: "n"}}, Pods: []placedPod{{UID: "stays", Node: "n"}, {UID: "evicted", Node: "n"}, {UID: "scaled-away", Node: "n"}}}
	o.pods["stays"] = &corev1.Pod{}
	o.seen["evicted"] = true
	var got []types.UID
	for _, p := range o.settledPlacement().Pods {
		got = append(got, p.UID)
	}
	if want := []types.UID{"stays", "evicted"}; !slices.Equal(got, want) {
		t.Errorf("settled pods %v, want %v", got, want)
	}
	o.phase.before = nil
	if o.settledPlacement() != nil {
		t.Error("a phase without a disruption has a placement")
	}
}

// TestCapacityPriceMatchesItsDual checks cost against the dual LP, solved by brute force over
// every type (no dominance pruning): max cpu·a + memory·b over a, b ≥ 0 with
// cpu_t·a + mem_t·b ≤ price_t for every type t, whose optimum is a vertex where two of those
// lines (or the axes) meet. Strong duality makes the two equal.
func TestCapacityPriceMatchesItsDual(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 4))
	for trial := range 500 {
		var offers [][3]float64
		for range 1 + rng.IntN(10) {
			offers = append(offers, [3]float64{float64(500 * (1 + rng.IntN(64))), float64(1 + rng.IntN(256)), 0.05 + rng.Float64()*4})
		}
		cpu, memory := float64(rng.IntN(100000)), float64(rng.IntN(2000))
		got := newCapacityPrice(offers).cost(cpu, memory)
		if want := dualCapacityPrice(offers, cpu, memory); math.Abs(got-want) > 1e-6*math.Max(1, want) {
			t.Fatalf("trial %d: cost(%g, %g) = %g, the dual gives %g; types %v", trial, cpu, memory, got, want, offers)
		}
	}
}

func dualCapacityPrice(offers [][3]float64, cpu, memory float64) float64 {
	// Lines cpu_t·a + mem_t·b = price_t, and the axes a = 0 (as 1·a + 0·b = 0) and b = 0.
	lines := [][3]float64{{1, 0, 0}, {0, 1, 0}}
	lines = append(lines, offers...)
	feasible := func(a, b float64) bool {
		if a < -1e-12 || b < -1e-12 {
			return false
		}
		for _, ty := range offers {
			if ty[0]*a+ty[1]*b > ty[2]*(1+1e-9) {
				return false
			}
		}
		return true
	}
	best := 0.0
	for i, l := range lines {
		for _, m := range lines[i+1:] {
			det := l[0]*m[1] - l[1]*m[0]
			if det == 0 {
				continue
			}
			a := (l[2]*m[1] - l[1]*m[2]) / det
			b := (l[0]*m[2] - l[2]*m[0]) / det
			if feasible(a, b) {
				best = math.Max(best, cpu*a+memory*b)
			}
		}
	}
	return best
}
