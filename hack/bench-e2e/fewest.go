package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Issue 18 judges a scale-down's evictions against Karpenter's, or against 1.2 × the fewest
// evictions that reach the same cost. This file bounds the latter from below, so that a run
// within 1.2 × the bound is within 1.2 × the true fewest.
//
// Whatever an engine does, the pods that are never evicted stay on the nodes they were on when
// the walk began, and those nodes are kept. So for every set K of the starting nodes, the walk
// that keeps exactly K evicts at least every pod not on K, and ends costing at least K's price
// plus the cheapest new capacity for the pods not on K beyond what K has free. That capacity is
// bounded below by a linear program over the pool's types (fractional nodes, resources pooled
// across K's free room, cpu and memory only): a relaxation, so no K a real walk could keep is
// ruled out. The bound is the fewest pods off K over the sets K that pass.

// placement is the cluster as a scale-down's first disruption found it: each engine node, its
// price and allocatable, and the workload pods bound to it with their requests.
type placement struct {
	Nodes []placedNode `json:"nodes"`
	Pods  []placedPod  `json:"pods"`
}

type placedNode struct {
	Name  string  `json:"name"`
	Price float64 `json:"pricePerHour"`
	// CPU (millicores) and Memory (bytes) are its allocatable.
	CPU, Memory float64
	// Unknown says its price or allocatable is not known: the bound is not computed then.
	Unknown bool
}

type placedPod struct {
	UID         types.UID
	Node        string
	CPU, Memory float64
}

// loadedNode is a placed node with the pods left on it: their count, requests and the room
// they leave.
type loadedNode struct {
	placedNode
	Pods                int
	UsedCPU, UsedMemory float64
}

// maxFewestNodes caps the subsets enumerated (2^n): past it the bound is not computed.
const maxFewestNodes = 20

// capture records the engine nodes (those being deleted too: their pods are still there) and
// the pods bound to them, with first (the pod whose disruption is being counted) although it
// may already be terminating.
func (o *observer) capture(first *corev1.Pod) *placement {
	out := &placement{}
	for _, n := range o.nodes {
		pn := placedNode{Name: n.Name, Price: o.pricer.price(n.Labels)}
		cpu, okCPU := n.Status.Allocatable[corev1.ResourceCPU]
		mem, okMem := n.Status.Allocatable[corev1.ResourceMemory]
		pn.Unknown = pn.Price == 0 || !okCPU || !okMem
		pn.CPU, pn.Memory = float64(cpu.MilliValue()), mem.AsApproximateFloat64()
		out.Nodes = append(out.Nodes, pn)
	}
	slices.SortFunc(out.Nodes, func(a, b placedNode) int { return cmp.Compare(a.Name, b.Name) })
	for _, p := range o.pods {
		if p.Spec.NodeName == "" || p.UID != first.UID && p.DeletionTimestamp != nil {
			continue
		}
		req := state.PodRequests(&p.Spec)
		cpu, mem := req[corev1.ResourceCPU], req[corev1.ResourceMemory]
		out.Pods = append(out.Pods, placedPod{UID: p.UID, Node: p.Spec.NodeName, CPU: float64(cpu.MilliValue()), Memory: mem.AsApproximateFloat64()})
	}
	return out
}

// settledPlacement is the phase's placement without the pods that left it undisrupted (the
// scale-down's own deletions, which may still run at the first disruption): the pods the walk
// had to keep in place or evict are those still there and those disrupted. Nil when the phase
// had no disruption.
func (o *observer) settledPlacement() *placement {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.phase.before
	if p == nil {
		return nil
	}
	out := &placement{Nodes: p.Nodes}
	for _, pod := range p.Pods {
		if _, present := o.pods[pod.UID]; present || o.seen[pod.UID] {
			out.Pods = append(out.Pods, pod)
		}
	}
	return out
}

// load sums each node's pods.
func (p *placement) load() []loadedNode {
	out := make([]loadedNode, len(p.Nodes))
	at := map[string]int{}
	for i, n := range p.Nodes {
		out[i].placedNode = n
		at[n.Name] = i
	}
	for _, pod := range p.Pods {
		if i, ok := at[pod.Node]; ok {
			out[i].Pods++
			out[i].UsedCPU += pod.CPU
			out[i].UsedMemory += pod.Memory
		}
	}
	return out
}

// capacityPrice is the cheapest fractional capacity of the pool's types: per type, the cpu
// (millicores) and memory (bytes) one dollar an hour buys, of the types no other beats on both.
type capacityPrice struct{ perDollar [][2]float64 }

// newCapacityPrice keeps the types (allocatable cpu and memory, cheapest offering's price) that
// no other type beats on both cpu and memory per dollar: only they can be in an optimal mix.
func newCapacityPrice(types [][3]float64) *capacityPrice {
	var eff [][2]float64
	for _, t := range types {
		cpu, mem, price := t[0], t[1], t[2]
		if price <= 0 || cpu <= 0 || mem <= 0 {
			continue
		}
		eff = append(eff, [2]float64{cpu / price, mem / price})
	}
	var front [][2]float64
	for i, e := range eff {
		dominated := false
		for j, f := range eff {
			if j != i && f[0] >= e[0] && f[1] >= e[1] && (f[0] > e[0] || f[1] > e[1] || j < i) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, e)
		}
	}
	return &capacityPrice{perDollar: front}
}

// cost is the least $/h of fractional capacity that holds cpu and memory: the optimum of
// min Σ y_t s.t. Σ y_t·cpu_t ≥ cpu, Σ y_t·mem_t ≥ memory, y ≥ 0 (y in dollars an hour), which
// a basic solution reaches with one type or two.
func (c *capacityPrice) cost(cpu, memory float64) float64 {
	cpu, memory = math.Max(cpu, 0), math.Max(memory, 0)
	if cpu == 0 && memory == 0 {
		return 0
	}
	best := math.Inf(1)
	for _, e := range c.perDollar {
		best = math.Min(best, math.Max(cpu/e[0], memory/e[1]))
	}
	for i, a := range c.perDollar {
		for _, b := range c.perDollar[i+1:] {
			// Both constraints tight: ya·a + yb·b = (cpu, memory).
			det := a[0]*b[1] - a[1]*b[0]
			if det == 0 {
				continue
			}
			ya := (cpu*b[1] - memory*b[0]) / det
			yb := (a[0]*memory - a[1]*cpu) / det
			if ya >= 0 && yb >= 0 {
				best = math.Min(best, ya+yb)
			}
		}
	}
	return best
}

// fewestEvictions bounds from below the evictions any walk from p needs to end at or below
// costPerHour: the fewest pods off the starting nodes a walk may keep (see the file comment).
// It fails when the placement is too large to enumerate or a node's price or size is unknown.
func fewestEvictions(p *placement, costPerHour float64, capacity *capacityPrice) (int, error) {
	nodes := p.load()
	n := len(nodes)
	if n > maxFewestNodes {
		return 0, fmt.Errorf("%d nodes at the first eviction, more than the %d the bound enumerates", n, maxFewestNodes)
	}
	var pods int
	var cpu, mem float64
	for _, node := range nodes {
		if node.Unknown {
			return 0, fmt.Errorf("node %s has no known price or allocatable", node.Name)
		}
		pods += node.Pods
		cpu += node.UsedCPU
		mem += node.UsedMemory
	}
	best := pods
	limit := costPerHour*(1+1e-9) + 1e-9
	for set := range 1 << n {
		var price, freeCPU, freeMem, keptCPU, keptMem float64
		kept := 0
		for i, node := range nodes {
			if set&(1<<i) == 0 {
				continue
			}
			price += node.Price
			freeCPU += math.Max(node.CPU-node.UsedCPU, 0)
			freeMem += math.Max(node.Memory-node.UsedMemory, 0)
			keptCPU += node.UsedCPU
			keptMem += node.UsedMemory
			kept += node.Pods
		}
		if pods-kept >= best || price > limit {
			continue
		}
		if price+capacity.cost(cpu-keptCPU-freeCPU, mem-keptMem-freeMem) <= limit {
			best = pods - kept
		}
	}
	return best, nil
}

// poolCapacityPrice is capacityPrice over the shared policy's types, at their allocatable and
// their cheapest offering the policy allows.
func poolCapacityPrice() (*capacityPrice, error) {
	pool, err := policyPool()
	if err != nil {
		return nil, err
	}
	allowed := pool.Offerings()
	var types [][3]float64
	for _, it := range pool.InstanceTypes {
		if !pool.Launchable(it) {
			continue
		}
		price := math.Inf(1)
		for _, o := range it.Offerings {
			if allowed.Allows(o) {
				price = math.Min(price, o.PricePerHour)
			}
		}
		if math.IsInf(price, 1) {
			continue
		}
		cpu, mem := it.Allocatable[corev1.ResourceCPU], it.Allocatable[corev1.ResourceMemory]
		types = append(types, [3]float64{float64(cpu.MilliValue()), mem.AsApproximateFloat64(), price})
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("the shared policy allows no instance type of the catalog")
	}
	return newCapacityPrice(types), nil
}
