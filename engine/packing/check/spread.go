package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// checkSpread checks each DoNotSchedule topology spread of the placed pods
// as kube-scheduler applies it, per placement: some order of the
// placements must let each pod go where it went with its domain's
// matching pods, plus itself, at most maxSkew above the least. Zone
// domains are the zones of the pools and nodes the pod may use, hostname
// domains every node it may use (empty ones count 0), and the least is 0
// when there are fewer domains than minDomains. Already skewed nodes do
// not make a placement that lowers the skew invalid.
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
			pol := policiesOf(c)
			sig := fmt.Sprintf("%s#%s#%d#%s#%s", scheduling.NormalizeLabelKey(c.TopologyKey), sel, c.MaxSkew, pol, pol.domainSig(cp.pod))
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
		domains := ck.domains(key, u.pods[0].pod, policiesOf(u.c))
		if len(domains) == 0 {
			continue
		}
		sp := newSpreadRun(domains, u.c)
		carrier := map[*checkPod]bool{}
		for _, cp := range u.pods {
			carrier[cp] = true
		}
		for _, cp := range ck.all {
			d := domainOf(cp.node, key)
			if _, ok := sp.count[d]; !ok || cp.pod.Terminating || !u.sel.Matches(cp.pod.Namespace, cp.pod.Labels) {
				continue
			}
			switch {
			case !cp.pending:
				sp.count[d]++
			case carrier[cp]:
				sp.adds[d]++
			default:
				sp.later[d]++
			}
		}
		for _, cp := range u.pods {
			if d := domainOf(cp.node, key); !u.sel.Matches(cp.pod.Namespace, cp.pod.Labels) {
				sp.outside = append(sp.outside, d)
			}
		}
		if d, hi, lo, ok := sp.run(); !ok {
			ck.add(u.pods[0].pod.Key(), "topology spread on %s (%s, maxSkew %d): a pod placed in %s %q finds %d matching pods there, the least %d", key, u.sel, u.c.MaxSkew, key, d, hi, lo)
		}
	}
}

// spreadRun replays the placements of one spread: count are the matching
// pods per domain so far, adds the placed pods carrying the spread still to
// add, later the placed matching pods without it (added last: no rule
// checks them), outside the domains of carriers the selector does not
// match (checked against the counts before and after).
type spreadRun struct {
	domains            []string
	count, adds, later map[string]int
	outside            []string
	maxSkew            int
	minDomains         int
}

func newSpreadRun(domains []string, c corev1.TopologySpreadConstraint) *spreadRun {
	sp := &spreadRun{domains: domains, count: map[string]int{}, adds: map[string]int{}, later: map[string]int{}, maxSkew: int(max(c.MaxSkew, 1))}
	if c.MinDomains != nil {
		sp.minDomains = int(*c.MinDomains)
	}
	for _, d := range domains {
		sp.count[d] = 0
	}
	return sp
}

// least is the smallest count, 0 below minDomains domains.
func (sp *spreadRun) least() int {
	if len(sp.domains) < sp.minDomains {
		return 0
	}
	lo := -1
	for _, d := range sp.domains {
		if lo < 0 || sp.count[d] < lo {
			lo = sp.count[d]
		}
	}
	return lo
}

// run replays the placements in the order that keeps the least count
// highest: always into the domain with the fewest matching pods among
// those still to fill, a carrier before a pod without the spread there;
// failing that, the carriers first and the others after. It reports the
// first placement that breaks maxSkew in the first order when both fail.
func (sp *spreadRun) run() (domain string, have, least int, ok bool) {
	saved := maps.Clone(sp.count)
	adds, later := maps.Clone(sp.adds), maps.Clone(sp.later)
	domain, have, least, ok = sp.replay(true)
	if ok {
		return domain, have, least, ok
	}
	sp.count, sp.adds, sp.later = saved, adds, later
	if _, _, _, ok2 := sp.replay(false); ok2 {
		return "", 0, 0, true
	}
	return domain, have, least, false
}

// replay adds the placements one at a time (interleaved or carriers
// first, see run) and reports the first that breaks maxSkew.
func (sp *spreadRun) replay(interleave bool) (domain string, have, least int, ok bool) {
	fits := func(d string, self int) bool { return sp.count[d]+self-sp.least() <= sp.maxSkew }
	before := map[string]bool{}
	for _, d := range sp.outside {
		before[d] = fits(d, 0)
	}
	for {
		next := ""
		for _, d := range sp.domains {
			if (sp.adds[d] > 0 || (interleave && sp.later[d] > 0)) && (next == "" || sp.count[d] < sp.count[next]) {
				next = d
			}
		}
		if next == "" {
			break
		}
		if sp.adds[next] == 0 {
			sp.count[next]++
			sp.later[next]--
			continue
		}
		if !fits(next, 1) {
			return next, sp.count[next] + 1, sp.least(), false
		}
		sp.count[next]++
		sp.adds[next]--
	}
	for d, k := range sp.later {
		sp.count[d] += k
	}
	for _, d := range sp.outside {
		if !before[d] && !fits(d, 0) {
			return d, sp.count[d], sp.least(), false
		}
	}
	return "", 0, 0, true
}

// policies are a spread's nodeAffinityPolicy and nodeTaintsPolicy, with
// Kubernetes' defaults (Honor and Ignore): whether the pod's required node
// affinity and its tolerations decide which nodes' domains count.
type policies struct {
	honorAffinity, honorTaints bool
}

func policiesOf(c corev1.TopologySpreadConstraint) policies {
	return policies{
		honorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy != corev1.NodeInclusionPolicyIgnore,
		honorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
	}
}

func (pol policies) String() string { return fmt.Sprintf("%t/%t", pol.honorAffinity, pol.honorTaints) }

// domainSig is what of the pod decides its domains under the policies:
// its node affinity under Honor, its tolerations under nodeTaintsPolicy
// Honor. Carriers of one spread that differ in it are replayed apart,
// each over its own domains.
func (pol policies) domainSig(p *state.Pod) string {
	var b strings.Builder
	if pol.honorAffinity {
		fmt.Fprintf(&b, "%v", p.NodeSelector)
		if p.Affinity != nil && p.Affinity.NodeAffinity != nil && p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			b.WriteString(p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.String())
		}
	}
	if pol.honorTaints {
		for _, t := range p.Tolerations {
			b.WriteString(t.String())
		}
	}
	return b.String()
}

// counts reports whether a node with labels and taints counts for the
// pod's spread under the policies.
func (pol policies) counts(pod *state.Pod, labels map[string]string, taints scheduling.Taints) bool {
	if pol.honorAffinity && !nodeAffinityOK(pod, labels) {
		return false
	}
	return !pol.honorTaints || taints.ToleratesPod(pod.Tolerations) == nil
}

// domains lists the values of key the pod's spread counts, its nodes
// filtered by the policies: for hostname every node, for zone and
// capacity type those of the pools' priced offerings and of the nodes
// (under nodeAffinityPolicy Honor, those the pod's node affinity allows;
// under nodeTaintsPolicy Honor, only pools whose taints it tolerates),
// for any other key the values nodes carry.
func (ck *checker) domains(key string, pod *state.Pod, pol policies) []string {
	set := map[string]bool{}
	switch key {
	case scheduling.LabelHostname:
		for _, n := range ck.order {
			if pol.counts(pod, n.labels, n.taints) {
				set[n.name] = true
			}
		}
	case scheduling.LabelTopologyZone, scheduling.LabelCapacityType:
		for _, p := range ck.snap.Pools {
			if pol.honorTaints && p.NewNodeTaints().ToleratesPod(pod.Tolerations) != nil {
				continue
			}
			for _, v := range poolValues(p, key) {
				set[v] = true
			}
		}
		for _, n := range ck.order {
			if v := n.labels[key]; v != "" && (!pol.honorTaints || n.taints.ToleratesPod(pod.Tolerations) == nil) {
				set[v] = true
			}
		}
		for v := range set {
			if pol.honorAffinity && !allowsValue(pod, key, v) {
				delete(set, v)
			}
		}
	default:
		for _, n := range ck.order {
			if v := n.labels[key]; v != "" && pol.counts(pod, n.labels, n.taints) {
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
