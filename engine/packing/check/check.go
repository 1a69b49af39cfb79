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
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Result validates r against snap and the pending pods, re-deriving every
// rule from the Snapshot and the pools' catalogs rather than trusting
// Solve: each pod placed once or listed unschedulable; every node's pods
// plus daemonset overhead within allocatable (new claims: the chosen
// option's); node selectors, required node affinity, taints, host ports,
// required pod (anti-)affinity and DoNotSchedule topology spread on the
// final placement; pool limits; and every chosen offering existing at its
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
			if it := findType(n.pool, sn.InstanceType); it != nil {
				n.capacity = it.Capacity
			}
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

func findType(p *state.Pool, name string) *catalog.InstanceType {
	for _, it := range p.InstanceTypes {
		if it.Name == name {
			return it
		}
	}
	return nil
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
		it := findType(n.pool, o.InstanceType)
		if it == nil {
			ck.add(c.Name, "instance type %s is not offered to nodepool %q", o.InstanceType, c.Pool)
			continue
		}
		if !hasOffering(it, o) {
			ck.add(c.Name, "%s has no available offering in %s %s at $%g/h", o.InstanceType, o.Zone, o.CapacityType, o.PricePerHour)
		}
		n.allocatable, n.capacity = it.Allocatable, it.Capacity
		n.labels = n.pool.NodeLabels(it, o.Zone, o.CapacityType, c.Name)
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
				if t := findType(n.pool, opt.InstanceType); t != nil {
					seen[n.pool.NodeLabels(t, opt.Zone, opt.CapacityType, c.Name)[key]] = true
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

// checkAccounting checks that every pending pod is placed exactly once or
// listed unschedulable, and that claims list exactly their pods.
func (ck *checker) checkAccounting(pods []*state.Pod) {
	pending := map[string]*state.Pod{}
	for _, p := range pods {
		pending[p.Key()] = p
	}
	seen := map[string]int{}
	for _, pl := range ck.r.Placements {
		seen[pl.Pod]++
		p := pending[pl.Pod]
		if p == nil {
			ck.add(pl.Pod, "placed but not a pending pod")
			continue
		}
		n := ck.nodes[pl.Node]
		if n == nil {
			ck.add(pl.Pod, "placed on %s, which is neither a node nor a claim", pl.Node)
			continue
		}
		if seen[pl.Pod] > 1 {
			continue
		}
		cp := &checkPod{pod: p, node: n, pending: true}
		n.pods = append(n.pods, cp)
		ck.all = append(ck.all, cp)
	}
	for _, u := range ck.r.Unschedulable {
		seen[u.Pod]++
		if pending[u.Pod] == nil {
			ck.add(u.Pod, "listed unschedulable but not a pending pod")
		}
		if u.Reason == "" {
			ck.add(u.Pod, "unschedulable without a reason")
		}
	}
	for key, p := range pending {
		switch seen[key] {
		case 0:
			ck.add(p.Key(), "neither placed nor listed unschedulable")
		case 1:
		default:
			ck.add(p.Key(), "placed or listed %d times", seen[key])
		}
	}
	for _, p := range ck.snap.Pods {
		if n := ck.nodes[p.NodeName]; n != nil && p.NodeName != "" && pending[p.Key()] == nil {
			cp := &checkPod{pod: p, node: n}
			n.pods = append(n.pods, cp)
			ck.all = append(ck.all, cp)
		}
	}
	for _, c := range ck.r.Claims {
		n := ck.nodes[c.Name]
		if n == nil || n.claim != c {
			continue
		}
		var got []string
		for _, cp := range n.pods {
			got = append(got, cp.pod.Key())
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.Pods))
		if !slices.Equal(got, want) {
			ck.add(c.Name, "claim lists pods %v but placements put %v on it", want, got)
		}
	}
}

// checkFit checks requests plus daemonset overhead against allocatable.
func (ck *checker) checkFit() {
	var cost float64
	for _, c := range ck.r.Claims {
		if len(c.Options) > 0 {
			cost += c.Options[0].PricePerHour
		}
	}
	if math.Abs(cost-ck.r.CostPerHour) > 1e-6*math.Max(1, cost) {
		ck.add("result", "cost %.6f is not the sum of the chosen options' prices %.6f", ck.r.CostPerHour, cost)
	}
	if ck.r.LowerBoundPerHour > ck.r.CostPerHour*(1+1e-9)+1e-9 {
		ck.add("result", "lower bound %.6f exceeds the cost %.6f", ck.r.LowerBoundPerHour, ck.r.CostPerHour)
	}
	for _, n := range ck.order {
		if n.allocatable == nil {
			continue
		}
		used := corev1.ResourceList{}
		hasDaemon := false
		for _, cp := range n.pods {
			addList(used, cp.pod.Requests)
			addPodSlot(used, cp.pod.Requests)
			hasDaemon = hasDaemon || cp.pod.DaemonSet
		}
		if n.claim != nil || (n.inFlight && !hasDaemon) {
			for _, ds := range ck.snap.DaemonSets {
				if ds.RunsOn(n.labels, n.taints) {
					addList(used, ds.Pod.Requests)
					addPodSlot(used, ds.Pod.Requests)
				}
			}
		}
		if !anyPending(n) {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(used)) {
			q := used[name]
			alloc, ok := n.allocatable[name]
			if q.IsZero() {
				continue
			}
			if !ok || q.Cmp(alloc) > 0 {
				ck.add(n.name, "%s requested %s (daemonsets included) exceeds allocatable %s", name, q.String(), alloc.String())
			}
		}
	}
}

func anyPending(n *checkNode) bool {
	for _, cp := range n.pods {
		if cp.pending {
			return true
		}
	}
	return false
}

func addList(into, list corev1.ResourceList) {
	for name, q := range list {
		cur := into[name]
		cur.Add(q)
		into[name] = cur
	}
}

// addPodSlot counts a pod's slot unless its requests already do.
func addPodSlot(into, requests corev1.ResourceList) {
	if _, ok := requests[corev1.ResourcePods]; ok {
		return
	}
	cur := into[corev1.ResourcePods]
	cur.Add(*resource.NewQuantity(1, resource.DecimalSI))
	into[corev1.ResourcePods] = cur
}

// nodeAffinityOK checks a pod's nodeSelector and required node affinity
// against a node's labels; a pod whose node affinity cannot be parsed fits
// no node.
func nodeAffinityOK(p *state.Pod, labels map[string]string) bool {
	f, err := p.NodeFilter()
	return err == nil && f.MatchesLabels(labels)
}

// checkNodeRules checks node affinity, taints and host ports of placed pods.
func (ck *checker) checkNodeRules() {
	for _, n := range ck.order {
		for i, cp := range n.pods {
			if !cp.pending {
				continue
			}
			p := cp.pod
			if !nodeAffinityOK(p, n.labels) {
				ck.add(p.Key(), "node %s does not satisfy the pod's node selector or required node affinity", n.name)
			}
			if err := n.taints.ToleratesPod(p.Tolerations); err != nil {
				ck.add(p.Key(), "node %s: %v", n.name, err)
			}
			for j, other := range n.pods {
				if j != i && (!other.pending || j < i) && state.HostPortsClash(p.HostPorts, other.pod.HostPorts) {
					ck.add(p.Key(), "host port clashes with %s on %s", other.pod.Key(), n.name)
				}
			}
		}
	}
}
