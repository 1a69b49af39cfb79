package check

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// checkSpread checks each DoNotSchedule topology spread of the placed pods
// on the final placement: max − min of matching pods over the domains is at
// most maxSkew, with zone domains the zones of the pools and nodes the pod
// may use, hostname domains every node it may use (empty ones count 0), and
// min taken as 0 when there are fewer domains than minDomains.
func (ck *checker) checkSpread() {
	type spreadUse struct {
		sel  scheduling.PodSelector
		c    corev1.TopologySpreadConstraint
		pods []*checkPod
	}
	uses := map[string]*spreadUse{}
	var sigs []string
	for _, cp := range ck.all {
		if !cp.pending {
			continue
		}
		for _, c := range cp.pod.TopologySpread {
			if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
				continue
			}
			sel, err := scheduling.SpreadSelector(c, cp.pod.Namespace, cp.pod.Labels)
			if err != nil {
				continue
			}
			sig := fmt.Sprintf("%s#%s#%d", scheduling.NormalizeLabelKey(c.TopologyKey), sel, c.MaxSkew)
			if uses[sig] == nil {
				uses[sig] = &spreadUse{sel: sel, c: c}
				sigs = append(sigs, sig)
			}
			uses[sig].pods = append(uses[sig].pods, cp)
		}
	}
	for _, sig := range sigs {
		u := uses[sig]
		key := scheduling.NormalizeLabelKey(u.c.TopologyKey)
		domains := ck.domains(key, u.pods[0].pod)
		counts := map[string]int{}
		for _, d := range domains {
			counts[d] = 0
		}
		for _, cp := range ck.all {
			d := domainOf(cp.node, key)
			if _, ok := counts[d]; ok && u.sel.Matches(cp.pod.Namespace, cp.pod.Labels) {
				counts[d]++
			}
		}
		if len(counts) == 0 {
			continue
		}
		lo, hi := -1, 0
		var hiDomain string
		for _, d := range domains {
			v := counts[d]
			if lo < 0 || v < lo {
				lo = v
			}
			if v > hi {
				hi, hiDomain = v, d
			}
		}
		if u.c.MinDomains != nil && int32(len(domains)) < *u.c.MinDomains {
			lo = 0
		}
		if int32(hi-lo) > max(u.c.MaxSkew, 1) {
			ck.add(u.pods[0].pod.Key(), "topology spread on %s (%s, maxSkew %d): %s %q has %d matching pods, the least %d", key, u.sel, u.c.MaxSkew, key, hiDomain, hi, lo)
		}
	}
}

// domains lists the values of key the pod may be placed in: for hostname
// every node whose labels satisfy its node affinity, for zone and capacity
// type those of the pools' priced offerings and of the nodes, filtered by
// the pod's node affinity, else the values nodes carry.
func (ck *checker) domains(key string, pod *state.Pod) []string {
	set := map[string]bool{}
	switch key {
	case scheduling.LabelHostname:
		for _, n := range ck.order {
			if nodeAffinityOK(pod, n.labels) {
				set[n.name] = true
			}
		}
	case scheduling.LabelTopologyZone, scheduling.LabelCapacityType:
		for _, p := range ck.snap.Pools {
			for _, v := range poolValues(p, key) {
				set[v] = true
			}
		}
		for _, n := range ck.order {
			if v := n.labels[key]; v != "" {
				set[v] = true
			}
		}
		for v := range set {
			if !allowsValue(pod, key, v) {
				delete(set, v)
			}
		}
	default:
		for _, n := range ck.order {
			if v := n.labels[key]; v != "" {
				set[v] = true
			}
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for v := range set {
			if !yield(v) {
				return
			}
		}
	})
}

// allowsValue reports whether the pod's node selector and required node
// affinity allow value for key, looking at that key only; a pod whose
// node affinity cannot be parsed allows nothing.
func allowsValue(p *state.Pod, key, value string) bool {
	f, err := p.NodeFilter()
	return err == nil && f.AllowsValue(key, value)
}

// poolValues are the zones (or capacity types) in which a pool has a
// priced, available offering of a type its requirements allow.
func poolValues(p *state.Pool, key string) []string {
	offerings := p.Offerings()
	set := map[string]bool{}
	for _, it := range p.InstanceTypes {
		if !p.Launchable(it) {
			continue
		}
		for _, o := range it.Offerings {
			if offerings.Allows(o) {
				if key == scheduling.LabelTopologyZone {
					set[o.Zone] = true
				} else {
					set[o.CapacityType] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}
