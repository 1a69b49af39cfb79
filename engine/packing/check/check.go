// Package check validates a packing.Result against the Snapshot it was
// solved for, independently of the solver: it re-derives every rule from
// the Snapshot and the pools' catalogs (through the shared rules of
// engine/scheduling and engine/state, never the solver's compiled state),
// so a packer bug shows up as a violation rather than as a result that
// agrees with itself.
package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Result validates r against snap and the pending pods, re-deriving every
// rule from the Snapshot and the pools' catalogs rather than trusting
// Solve: each pod placed once or listed unschedulable; every node's pods
// plus daemonset overhead within allocatable (new claims: the chosen
// option's); node selectors, required node affinity, taints, host ports
// (daemonsets' included), required pod (anti-)affinity on the final
// placement and DoNotSchedule topology spread per placement, as
// kube-scheduler applies it; pool limits (nodes included); and every chosen offering existing at its
// price. It returns the violations, sorted; none means valid.
func Result(snap *state.Snapshot, pods []*state.Pod, r *packing.Result) []Violation {
	ck := &checker{snap: snap, r: r, nodes: map[string]*checkNode{}, pools: map[string]*state.Pool{}}
	if snap == nil || r == nil {
		return []Violation{{Subject: "result", Message: "nil snapshot or result"}}
	}
	for _, p := range snap.Pools {
		ck.pools[p.Name] = p
	}
	ck.buildNodes()
	ck.checkClaims()
	ck.checkAccounting(pods)
	ck.checkFit()
	ck.checkNodeRules()
	ck.checkPodTerms()
	ck.checkSpread()
	ck.checkLimits()
	slices.SortStableFunc(ck.out, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(ck.out)
}

// Violation is one broken rule Result found.
type Violation struct {
	// Subject is the pod key, node, claim or pool the violation concerns.
	Subject string
	// Message says which rule is broken and by how much.
	Message string
}

// String returns "subject: message".
func (v Violation) String() string { return v.Subject + ": " + v.Message }

type checker struct {
	snap  *state.Snapshot
	r     *packing.Result
	nodes map[string]*checkNode
	order []*checkNode
	pools map[string]*state.Pool
	// all are the pods on nodes after the result: bound and placed.
	all []*checkPod
	out []Violation
}

type checkNode struct {
	name        string
	pool        *state.Pool
	labels      map[string]string
	taints      scheduling.Taints
	allocatable corev1.ResourceList
	capacity    corev1.ResourceList
	claim       *packing.Claim
	inFlight    bool
	pods        []*checkPod
}

type checkPod struct {
	pod     *state.Pod
	node    *checkNode
	pending bool
}

func (ck *checker) add(subject, format string, args ...any) {
	ck.out = append(ck.out, Violation{Subject: subject, Message: fmt.Sprintf(format, args...)})
}

func (ck *checker) buildNodes() {
	for _, sn := range ck.snap.Nodes {
		n := &checkNode{name: sn.Name, labels: sn.Labels, allocatable: sn.Allocatable, capacity: sn.Allocatable, inFlight: sn.InFlight}
		n.pool = ck.pools[sn.Pool]
		n.taints = sn.SchedulingTaints(n.pool)
		if n.pool != nil {
			n.capacity = n.pool.NodeCapacity(sn)
		}
		ck.nodes[n.name] = n
		ck.order = append(ck.order, n)
	}
	for _, c := range ck.r.Claims {
		if _, dup := ck.nodes[c.Name]; dup {
			ck.add(c.Name, "claim name is already a node or another claim")
			continue
		}
		n := &checkNode{name: c.Name, claim: c, pool: ck.pools[c.Pool], labels: map[string]string{}}
		ck.nodes[c.Name] = n
		ck.order = append(ck.order, n)
	}
}

// checkClaims checks each claim's pool, chosen offering, requirements and
// minValues, and derives its node's labels, taints and daemonsets.
func (ck *checker) checkClaims() {
	for _, c := range ck.r.Claims {
		n := ck.nodes[c.Name]
		if n == nil || n.claim != c {
			continue
		}
		if n.pool == nil {
			ck.add(c.Name, "nodepool %q does not exist", c.Pool)
			continue
		}
		if len(c.Options) == 0 {
			ck.add(c.Name, "claim has no instance-type option")
			continue
		}
		o := c.Options[0]
		it := n.pool.InstanceType(o.InstanceType)
		if it == nil {
			ck.add(c.Name, "instance type %s is not offered to nodepool %q", o.InstanceType, c.Pool)
			continue
		}
		if !hasOffering(it, o) {
			ck.add(c.Name, "%s has no available offering in %s %s at $%g/h", o.InstanceType, o.Zone, o.CapacityType, o.PricePerHour)
		}
		n.allocatable, n.capacity = it.Allocatable, it.Capacity
		n.labels = n.pool.ClaimLabels(it, o.Zone, o.CapacityType, c.Name, c.Requirements)
		if !n.pool.Requirements.SatisfiedBy(n.labels) {
			ck.add(c.Name, "%s in %s %s is not allowed by nodepool %q requirements %s", o.InstanceType, o.Zone, o.CapacityType, c.Pool, n.pool.Requirements)
		}
		n.taints = n.pool.NewNodeTaints()
		for key, req := range n.pool.Requirements {
			if req.MinValues == nil {
				continue
			}
			seen := map[string]bool{}
			for _, opt := range c.Options {
				if t := n.pool.InstanceType(opt.InstanceType); t != nil {
					seen[n.pool.NodeLabel(t, opt.Zone, opt.CapacityType, c.Name, key)] = true
				}
			}
			if len(seen) < *req.MinValues {
				ck.add(c.Name, "options have %d distinct values of %s; nodepool %q requires at least %d", len(seen), key, c.Pool, *req.MinValues)
			}
		}
	}
}

func hasOffering(it *catalog.InstanceType, o packing.InstanceOption) bool {
	for _, off := range it.Offerings {
		if off.Zone == o.Zone && off.CapacityType == o.CapacityType && off.Available && off.PricePerHour > 0 &&
			math.Abs(off.PricePerHour-o.PricePerHour) <= 1e-9*math.Max(1, off.PricePerHour) {
			return true
		}
	}
	return false
}
