package consolidation

import (
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
)

// Reason is why a command disrupts its nodes. Budgets are per reason
// (Expired is never limited by budgets).
type Reason string

// Reasons, in the order the methods run.
const (
	ReasonEmpty         Reason = "Empty"
	ReasonExpired       Reason = "Expired"
	ReasonDrifted       Reason = "Drifted"
	ReasonUnderutilized Reason = "Underutilized"
	// ReasonUnhealthy is node repair: a node unhealthy past its toleration.
	ReasonUnhealthy Reason = "Unhealthy"
)

// Result is the plan consolidation made at one instant: the commands to run
// in order, and for every node of the Snapshot no command touches, why.
type Result struct {
	// Commands run in this order: each launches its replacements first,
	// then evicts the pods and removes the nodes.
	Commands []Command `json:"commands"`
	// Kept lists every node of the Snapshot that no command removes, by
	// name, with why.
	Kept []Kept `json:"kept"`
	// CostBeforePerHour is the price of every node of the Snapshot;
	// CostAfterPerHour the same after the plan (removed nodes gone,
	// replacements added).
	CostBeforePerHour float64 `json:"costBeforePerHour"`
	CostAfterPerHour  float64 `json:"costAfterPerHour"`
	// PodsEvicted counts the pods the plan moves.
	PodsEvicted int `json:"podsEvicted"`
	// Evaluations counts the packing simulations the search ran.
	Evaluations int `json:"evaluations"`
	// Leaving are the nodes of the Snapshot the plan's walk ends without
	// (see walk): those this plan's commands remove and those the plans
	// after it are expected to remove, sorted. The agent steers new pods
	// away from them, so a pod evicted now does not land on a node a later
	// command evicts it from again. Not part of the report.
	Leaving []string `json:"-"`

	// result is the plan as one packing result against the Snapshot less
	// the removed nodes: every evicted pod placed (or, for expired nodes,
	// unschedulable) and every replacement a claim. Apply and Validate use it.
	result  *packing.Result
	evicted []string
	removed []string
	now     time.Time
}

// Command is one disruption: launch the replacements, move the pods, remove
// the nodes.
type Command struct {
	Reason Reason `json:"reason"`
	// Nodes are the nodes removed, sorted.
	Nodes []string `json:"nodes"`
	// Replacements are the nodes launched first, empty for a deletion.
	Replacements []Replacement `json:"replacements"`
	// Moves are the pods evicted and where they go, lowest priority first.
	Moves []Move `json:"moves"`
	// CostBeforePerHour is the price of Nodes; CostAfterPerHour the price of
	// Replacements.
	CostBeforePerHour float64 `json:"costBeforePerHour"`
	CostAfterPerHour  float64 `json:"costAfterPerHour"`
	// Detail says what the command does in words, e.g. "delete: its pods
	// fit on other nodes" or "replace with 1 cheaper node".
	Detail string `json:"detail"`
}

// Replacement is a node a command launches before it evicts.
type Replacement struct {
	Name         string  `json:"name"`
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	PricePerHour float64 `json:"pricePerHour"`
	// Options counts the instance-type offerings the claim may launch as.
	Options int `json:"options"`
	// Pods are the keys of the pods the replacement receives, sorted.
	Pods []string `json:"pods"`
	// Labels are the values the replacement commits to on keys its pool
	// leaves open (a requirement such as example.com/team In [a, b]): the
	// node must carry them for the pods planned onto it to fit.
	Labels map[string]string `json:"labels,omitempty"`
}

// Move is one pod evicted from a node and where it is expected to land.
type Move struct {
	Pod  string `json:"pod"`
	From string `json:"from"`
	// To is an existing node or a replacement; "" when no node can take
	// the pod (only for expired nodes, which go regardless).
	To       string `json:"to"`
	Priority int32  `json:"priority,omitempty"`
}

// Kept is a node no command touches, and why.
type Kept struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
	// Held is set when a rule held back a node that Method would have
	// disrupted, naming the rule; both are zero otherwise. They classify
	// Reason for the agent's metrics and are not part of the report.
	Held   Hold   `json:"-"`
	Method Reason `json:"-"`
}

// Hold is a rule that held back a node a method chose.
type Hold string

// Rules that hold back a node a method chose.
const (
	// HeldByBudget: the pool's disruption budget allows no more now.
	HeldByBudget Hold = "budget"
	// HeldByDoNotDisrupt: the node is annotated tenon.dev/do-not-disrupt.
	HeldByDoNotDisrupt Hold = "do-not-disrupt"
	// HeldByPendingPods: pods not bound yet are expected on the node
	// (state.Node.Nominated).
	HeldByPendingPods Hold = "pending-pods"
	// HeldByUnhealthyThreshold: more of the pool's nodes are unhealthy
	// than its repair.maxUnhealthy allows, so repair stops for the pool.
	HeldByUnhealthyThreshold Hold = "unhealthy-threshold"
)

// Options tune Plan. Start from DefaultOptions.
type Options struct {
	// MinSavingsPerHour, MinSavingsPercent and MinSavingsPerPod are the
	// savings thresholds of pools whose disruption block leaves them out
	// (minSavingsPerHour, minSavingsPercent, minSavingsPerPod); a node's
	// own pool's settings win (see commandSavings for a command spanning
	// pools).
	//
	// MinSavingsPerHour is the least a consolidation command must save,
	// in $/h, so that tiny gains do not churn pods.
	MinSavingsPerHour float64
	// MinSavingsPercent is the least a consolidation command must save as
	// a percentage of the price of the nodes it removes. The search also
	// asks every node it adds to a merge to pay for itself by this margin.
	MinSavingsPercent float64
	// MinSavingsPerPod is the least a consolidation command that launches
	// replacements must save per pod it evicts, in $/h: moving 150 pods to
	// a slightly cheaper node to save $0.08/h is churn. (A deletion frees a
	// whole node and is not held to it.)
	MinSavingsPerPod float64
	// MinSpotTypes is how many cheaper spot instance types a spot node's
	// spot replacement must be allowed, so spot capacity is not chased
	// into a corner where it is interrupted more (Karpenter's rule: 15).
	MinSpotTypes int
	// MaxEvaluations caps the packing simulations per Plan; MaxWork caps
	// their work in total, counted as the pods of the snapshot each
	// compiles plus the pods it places. Both keep Plan bounded and
	// deterministic (no wall-clock limit decides anything). Emptiness,
	// expiration and drift always run; only the consolidation search
	// stops at the caps.
	MaxEvaluations int
	MaxWork        int
	// Packing are the options every simulation passes to packing.Solve.
	Packing []packing.Option
	// Lookahead is how many plans ahead Plan looks for the node set
	// consolidation ends at (see walk); 0 plans one step at a time.
	Lookahead int
	// Reasons limits Plan to the methods of these reasons, still in their
	// fixed order; nil runs them all. The agent plans ReasonEmpty alone on
	// its fast tick, so an empty node goes within a second of its
	// consolidateAfter by the same rule the full plan applies.
	Reasons []Reason
	// uncached makes Plan simulate without a packing.Cache (and with the
	// packing lower bound), as before it had one: tests compare the two.
	uncached bool
	// prefixOnly makes the consolidation search keep the prefix it chose
	// without asking thriftySet for another set: tests compare the two.
	prefixOnly bool
	// noFuller makes the consolidation search leave fullerSet out: tests
	// compare the two.
	noFuller bool
	// soloLast makes the local search leave replaceAloneFirst out: tests
	// compare plans with and without it.
	soloLast bool
}

// DefaultOptions are the options to start from: unless a pool says
// otherwise, save at least $0.01/h, 10% and $0.003/h per pod evicted per
// command, spot-to-spot with 15 cheaper types,
// one packing strategy per simulation (a core, not two), and a look-ahead
// of 16 plans to the end state.
func DefaultOptions() Options {
	return Options{
		MinSavingsPerHour: v1.DefaultMinSavingsPerHour,
		MinSavingsPercent: v1.DefaultMinSavingsPercent,
		MinSavingsPerPod:  v1.DefaultMinSavingsPerPod,
		MinSpotTypes:      15,
		MaxEvaluations:    40,
		MaxWork:           300_000,
		Lookahead:         16,
		Packing:           []packing.Option{packing.WithStrategy(0)},
	}
}
