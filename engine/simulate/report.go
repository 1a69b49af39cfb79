package simulate

import (
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Report is the outcome of one simulation, as `tenon simulate -o json`
// prints it. Nodes, Unschedulable and Summary are the fields the issue
// fixes; the others are extra.
type Report struct {
	// Scenario names the scenario simulated.
	Scenario string `json:"scenario"`
	// Nodes are the new nodes to launch, then the existing nodes (and
	// in-flight claims) that receive pending pods.
	Nodes []ReportNode `json:"nodes"`
	// Unschedulable are the pods that cannot be placed, with the reason.
	Unschedulable []ReportUnschedulable `json:"unschedulable"`
	Summary       Summary               `json:"summary"`
	// Overlays say what became of the scenario's NodeOverlays; absent
	// when it has none.
	Overlays []ReportOverlay `json:"overlays,omitempty"`
	// Buffers say what became of the NodePools' capacity buffers; absent
	// when no pool has one.
	Buffers []ReportBuffer `json:"buffers,omitempty"`
}

// ReportNode is a node that receives pending pods.
type ReportNode struct {
	Name         string  `json:"name"`
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	PricePerHour float64 `json:"pricePerHour"`
	// Existing is true for a node (or in-flight claim) that already exists.
	Existing bool `json:"existing"`
	// InFlight is true for an existing claim whose node has not registered.
	InFlight bool `json:"inFlight,omitempty"`
	// Pods are the keys of the pending pods placed on the node, sorted.
	Pods []string `json:"pods"`
	// CPUUtilization and MemoryUtilization are the node's requested share
	// of its allocatable cpu and memory after placement, daemonsets and
	// pods already bound included, from 0 to 1.
	CPUUtilization    float64 `json:"cpuUtilization"`
	MemoryUtilization float64 `json:"memoryUtilization"`
	// Options counts the instance-type options a new node may be launched
	// as (the first is the one priced).
	Options int `json:"options,omitempty"`
	// Labels are the node's labels: for a new node, those it is launched
	// with as its chosen option (instance type, pool, zone, capacity
	// type, the values its pool's requirements settle, hostname).
	Labels map[string]string `json:"labels,omitempty"`
}

// ReportUnschedulable is a pod that cannot be placed.
type ReportUnschedulable struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
}

// Summary totals a simulation.
type Summary struct {
	// Pods counts the pending pods simulated.
	Pods int `json:"pods"`
	// NewNodes counts the nodes to launch.
	NewNodes int `json:"newNodes"`
	// CostPerHour is the price of the new nodes.
	CostPerHour float64 `json:"costPerHour"`
	// BufferCostPerHour is the part of CostPerHour the capacity buffers
	// add (nodes launched for their placeholder pods alone).
	BufferCostPerHour float64 `json:"bufferCostPerHour,omitempty"`
	// LowerBoundPerHour is a proven lower bound on that price.
	LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
	// SolveSeconds is the median of SolveRuns.
	SolveSeconds float64 `json:"solveSeconds"`
	// SolveRuns are each run's in-process time from parsed input to result
	// (building the Snapshot and solving), in seconds.
	SolveRuns []float64 `json:"solveRuns"`
	// Placed counts the pods placed; Unschedulable those that are not.
	Placed        int `json:"placed"`
	Unschedulable int `json:"unschedulable"`
	// ExistingNodes counts existing nodes and in-flight claims that receive
	// pods.
	ExistingNodes int `json:"existingNodes"`
}

func addInto(dst, src corev1.ResourceList) {
	for name, q := range src {
		cur := dst[name]
		cur.Add(q)
		dst[name] = cur
	}
}

// round keeps prices readable: 6 decimal places.
func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// median returns the median of xs (the mean of the middle two for an even
// count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
