package check

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// domainOf is a node's value for a topology key; "" when it has none.
func domainOf(n *checkNode, key string) string {
	return scheduling.TopologyDomain(key, n.name, n.labels)
}

// termUse is one pod carrying a pod (anti-)affinity term.
type termUse struct {
	pod  *checkPod
	sel  scheduling.PodSelector
	key  string
	self bool
}

// checkPodTerms checks required pod anti-affinity (both ways) and required
// pod affinity with the first-pod rule, on the final placement.
func (ck *checker) checkPodTerms() {
	anti := map[string][]termUse{}
	aff := map[string][]termUse{}
	var antiSigs, affSigs []string
	for _, cp := range ck.all {
		a := cp.pod.Affinity
		if a == nil {
			continue
		}
		collect := func(terms []corev1.PodAffinityTerm, into map[string][]termUse, sigs *[]string) {
			for _, t := range terms {
				sel, err := scheduling.AffinityTermSelector(t, cp.pod.Namespace, cp.pod.Labels)
				if err != nil {
					continue
				}
				key := scheduling.NormalizeLabelKey(t.TopologyKey)
				sig := key + "#" + sel.String()
				if _, ok := into[sig]; !ok {
					*sigs = append(*sigs, sig)
				}
				into[sig] = append(into[sig], termUse{pod: cp, sel: sel, key: key, self: sel.Matches(cp.pod.Namespace, cp.pod.Labels)})
			}
		}
		if a.PodAntiAffinity != nil {
			collect(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, anti, &antiSigs)
		}
		if a.PodAffinity != nil && cp.pending {
			collect(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, aff, &affSigs)
		}
	}
	for _, sig := range antiSigs {
		ck.checkAnti(anti[sig])
	}
	for _, sig := range affSigs {
		ck.checkAffinity(aff[sig])
	}
}

func (ck *checker) checkAnti(uses []termUse) {
	sel, key := uses[0].sel, uses[0].key
	matches := map[string]int{}
	pending := map[string]int{}
	for _, cp := range ck.all {
		if d := domainOf(cp.node, key); d != "" && sel.Matches(cp.pod.Namespace, cp.pod.Labels) {
			matches[d]++
			if cp.pending {
				pending[d]++
			}
		}
	}
	for _, u := range uses {
		d := domainOf(u.pod.node, key)
		if d == "" {
			continue
		}
		others := matches[d]
		if u.self {
			others--
		}
		mine := 0
		if u.pod.pending && u.self {
			mine = 1
		}
		if others > 0 && (u.pod.pending || pending[d]-mine > 0) {
			ck.add(u.pod.pod.Key(), "required pod anti-affinity on %s (%s): %d other matching pods share %s %s", key, sel, others, key, d)
		}
	}
}

func (ck *checker) checkAffinity(uses []termUse) {
	sel, key := uses[0].sel, uses[0].key
	carrier := map[*checkPod]bool{}
	carrierDomains := map[string]bool{}
	selfIn := map[string]bool{}
	for _, u := range uses {
		carrier[u.pod] = true
		d := domainOf(u.pod.node, key)
		carrierDomains[d] = true
		if u.self {
			selfIn[d] = true
		}
	}
	support := map[string]bool{}
	for _, cp := range ck.all {
		if !carrier[cp] && sel.Matches(cp.pod.Namespace, cp.pod.Labels) {
			support[domainOf(cp.node, key)] = true
		}
	}
	var bad []string
	for d := range carrierDomains {
		if !support[d] {
			bad = append(bad, d)
		}
	}
	slices.Sort(bad)
	if len(bad) == 0 || (len(bad) == 1 && selfIn[bad[0]] && bad[0] != "") {
		return
	}
	for _, u := range uses {
		if slices.Contains(bad, domainOf(u.pod.node, key)) {
			ck.add(u.pod.pod.Key(), "required pod affinity on %s (%s): %s %q holds no matching pod (%d such domains)", key, sel, key, domainOf(u.pod.node, key), len(bad))
		}
	}
}
