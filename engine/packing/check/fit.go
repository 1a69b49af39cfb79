package check

import (
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

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
		for _, cp := range n.pods {
			addList(used, cp.pod.Requests)
			addPodSlot(used, cp.pod.Requests)
		}
		for _, ds := range ck.comingDaemons(n) {
			addList(used, ds.Pod.Requests)
			addPodSlot(used, ds.Pod.Requests)
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

// comingDaemons are the daemonsets whose pods will run on n but are not
// bound yet: on a new claim, each daemonset that runs on its labels and
// taints; on an existing node or in-flight claim, each such daemonset with
// no pod bound to the node (a node just registered gets them soon).
func (ck *checker) comingDaemons(n *checkNode) []*state.DaemonSet {
	var out []*state.DaemonSet
	for _, ds := range ck.snap.DaemonSets {
		if n.claim == nil && slices.ContainsFunc(n.pods, func(cp *checkPod) bool {
			return cp.pod.DaemonSet && cp.pod.Namespace == ds.Namespace && cp.pod.Owner.Name == ds.Name
		}) {
			continue
		}
		if ds.RunsOn(n.labels, n.taints) {
			out = append(out, ds)
		}
	}
	return out
}

// checkNodeRules checks node affinity, taints and host ports of placed pods
// (against each other, bound pods and the daemonsets coming to the node).
func (ck *checker) checkNodeRules() {
	for _, n := range ck.order {
		daemons := ck.comingDaemons(n)
		for i, cp := range n.pods {
			if !cp.pending {
				continue
			}
			p := cp.pod
			for _, ds := range daemons {
				if state.HostPortsClash(p.HostPorts, ds.Pod.HostPorts) {
					ck.add(p.Key(), "host port clashes with daemonset %s/%s on %s", ds.Namespace, ds.Name, n.name)
				}
			}
			if !nodeAffinityOK(p, n.labels) {
				ck.add(p.Key(), "node %s does not satisfy the pod's node selector or required node affinity", n.name)
			}
			if err := n.taints.ToleratesPod(p.Tolerations); err != nil {
				ck.add(p.Key(), "node %s: %v", n.name, err)
			}
			for _, c := range p.TopologySpread {
				key := scheduling.NormalizeLabelKey(c.TopologyKey)
				if c.WhenUnsatisfiable != corev1.ScheduleAnyway && scheduling.TopologyDomain(key, n.name, n.labels) == "" {
					ck.add(p.Key(), "node %s has no label %s, the key of the pod's DoNotSchedule topology spread", n.name, key)
				}
			}
			for j, other := range n.pods {
				if j != i && (!other.pending || j < i) && state.HostPortsClash(p.HostPorts, other.pod.HostPorts) {
					ck.add(p.Key(), "host port clashes with %s on %s", other.pod.Key(), n.name)
				}
			}
		}
	}
}

// checkLimits checks each pool's limits against its existing nodes and
// in-flight claims plus the new claims' chosen types.
func (ck *checker) checkLimits() {
	for _, p := range ck.snap.Pools {
		if len(p.Limits) == 0 {
			continue
		}
		used := corev1.ResourceList{}
		claims := 0
		for _, n := range ck.order {
			if n.pool != p || n.capacity == nil {
				continue
			}
			if n.claim != nil {
				claims++
			}
			addList(used, n.capacity)
			addList(used, corev1.ResourceList{state.ResourceNodes: resource.MustParse("1")})
		}
		if claims == 0 {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(p.Limits)) {
			limit := p.Limits[name]
			if q, ok := used[name]; ok && q.Cmp(limit) > 0 {
				ck.add(p.Name, "limit %s=%s exceeded: nodes and claims have %s", name, limit.String(), q.String())
			}
		}
	}
}
