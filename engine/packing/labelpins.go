package packing

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Topology on any node label. Zone and capacity type are pinned by
// pins.go and hostname is checked per node; every other topology key
// (kubernetes.io/arch, a pool's template label, a custom key of a pool's
// multi-valued requirements) is settled here, before those pins: each pod
// of a class with a spread or a required pod affinity on such a key is
// given a value of the key, and moves to a sub-class whose node terms
// require it. Compatibility, the claims' committed requirements (a new
// node commits to one value of an open key) and the checker then treat
// the value like any node requirement.

// isLabelKey reports whether key is a topology key labelpins.go settles.
func isLabelKey(key string) bool {
	return key != scheduling.LabelHostname && key != scheduling.LabelTopologyZone && key != scheduling.LabelCapacityType
}

// labelPinner assigns label values to the pods of one round.
type labelPinner struct {
	s *solver
	// counts are, per group on a label key, the matching pods per value:
	// those counted before the round and those pinned in it.
	counts map[int]map[string]int32
	// value is the value chosen for the carriers of a required pod
	// affinity group on a label key.
	value map[int]string
	// subs are the sub-classes by base class id and assignment.
	subs map[int]map[string]*class
	// existing is, per sub-class no pool serves, the pods existing nodes
	// can still take.
	existing map[*class]int64
	domains  map[[2]int][]string
	failed   map[*state.Pod]string
	// failedBy lists the failed pods by the class they came in.
	failedBy map[*class][]*state.Pod
}

func (s *solver) newLabelPinner() *labelPinner {
	return &labelPinner{s: s, counts: map[int]map[string]int32{}, value: map[int]string{}, subs: map[int]map[string]*class{},
		existing: map[*class]int64{}, domains: map[[2]int][]string{}, failed: map[*state.Pod]string{}, failedBy: map[*class][]*state.Pod{}}
}

// pin returns classes with every class that has a label-keyed rule split
// into sub-classes by the values its pods were given.
func (lp *labelPinner) pin(classes []*class) []*class {
	if !slices.ContainsFunc(lp.s.groups.list, func(g *group) bool { return isLabelKey(g.key) }) {
		return classes
	}
	lp.chooseAffinityValues(classes)
	out := make([]*class, 0, len(classes))
	for _, c := range classes {
		if !lp.constrained(c) {
			out = append(out, c)
			continue
		}
		out = append(out, lp.pinClass(c)...)
	}
	return out
}

// constrained reports whether c has a label-keyed spread or affinity, or
// matches an affinity group whose value is chosen.
func (lp *labelPinner) constrained(c *class) bool {
	for _, sp := range c.activeSpreads() {
		if isLabelKey(lp.s.groups.list[sp.group].key) {
			return true
		}
	}
	for _, t := range c.activeTerms(c.affinity) {
		if _, ok := lp.value[t.group]; ok {
			return true
		}
	}
	for _, g := range c.matches {
		if _, ok := lp.value[g]; ok {
			return true
		}
	}
	return false
}

// baseTerms are c's node terms before any label was pinned.
func (c *class) baseTerms() []scheduling.Requirements {
	if c.unpinned != nil {
		return c.unpinned
	}
	return c.terms
}

// count returns the per-value counts of group g, copied on first use.
func (lp *labelPinner) count(g int) map[string]int32 {
	m, ok := lp.counts[g]
	if !ok {
		m = maps.Clone(lp.s.counts[g])
		if m == nil {
			m = map[string]int32{}
		}
		lp.counts[g] = m
	}
	return m
}

// chooseAffinityValues picks, for each required pod affinity group on a
// label key some class of the round carries, the value its carriers go
// to: the one holding the most matching pods that the first carrier can
// use; with none anywhere, the first value the carrier can use and every
// matching class of the round allows (kube-scheduler's first pod may
// start the group).
func (lp *labelPinner) chooseAffinityValues(classes []*class) {
	s := lp.s
	for _, c := range classes {
		for _, t := range c.activeTerms(c.affinity) {
			g := s.groups.list[t.group]
			if _, done := lp.value[g.id]; done || !isLabelKey(g.key) {
				continue
			}
			counts := lp.count(g.id)
			best := ""
			for _, v := range slices.Sorted(maps.Keys(counts)) {
				if counts[v] > 0 && lp.usable(c, nil, g.key, v) && (best == "" || counts[v] > counts[best]) {
					best = v
				}
			}
			if best == "" && s.totals[g.id] == 0 {
				best = lp.firstValue(c, g, classes)
			}
			if best != "" {
				lp.value[g.id] = best
			}
		}
	}
}

// firstValue is the first value of g's key that carrier c can use and
// every class of the round matching g allows.
func (lp *labelPinner) firstValue(c *class, g *group, classes []*class) string {
	for _, v := range lp.allValues(g.key) {
		if !lp.usable(c, nil, g.key, v) {
			continue
		}
		ok := true
		for _, m := range classes {
			if m.matchesGroup(g.id) && !allowsValue(m.baseTerms(), g.key, v) {
				ok = false
			}
		}
		if ok {
			return v
		}
	}
	return ""
}

func allowsValue(terms []scheduling.Requirements, key, v string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		if t.Get(key).Has(v) {
			return true
		}
	}
	return false
}

// allValues are the values of key the existing nodes carry and the
// pools' new nodes may carry, sorted.
func (lp *labelPinner) allValues(key string) []string {
	set := map[string]bool{}
	for _, n := range lp.s.nodes {
		if v, ok := n.labels[key]; ok {
			set[v] = true
		}
	}
	for _, p := range lp.s.pools {
		for _, v := range poolValues(p, key) {
			set[v] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// poolValues are the values of key a new node of pool p may carry: its
// template label, its requirement's values, or its types' labels.
func poolValues(p *poolPlan, key string) []string {
	if v, ok := p.pool.Labels[key]; ok {
		return []string{v}
	}
	req := p.pool.Requirements.Get(key)
	if vs := req.Values(); vs != nil && p.pool.Requirements.Has(key) {
		return vs
	}
	set := map[string]bool{}
	for _, t := range p.types {
		if v, ok := t.instance.Requirements.Label(key); ok && req.Has(v) {
			set[v] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// pinClass gives each pod of c its values and returns the sub-classes.
func (lp *labelPinner) pinClass(c *class) []*class {
	s := lp.s
	var out []*class
	for i, p := range c.pods {
		assign := map[string]string{}
		for _, t := range c.activeTerms(c.affinity) {
			if v, ok := lp.value[t.group]; ok {
				assign[s.groups.list[t.group].key] = v
			}
		}
		for _, g := range c.matches {
			key := s.groups.list[g].key
			if v, ok := lp.value[g]; ok && assign[key] == "" && allowsValue(c.baseTerms(), key, v) && lp.usable(c, assign, key, v) {
				assign[key] = v
			}
		}
		reason := ""
		for _, sp := range c.activeSpreads() {
			if reason = lp.chooseSpread(c, sp, assign, i); reason != "" {
				break
			}
		}
		if reason != "" {
			lp.failed[p] = reason
			lp.failedBy[c] = append(lp.failedBy[c], p)
			continue
		}
		for _, g := range c.matches {
			if v, ok := assign[s.groups.list[g].key]; ok && isLabelKey(s.groups.list[g].key) {
				lp.count(g)[v]++
			}
		}
		sub := lp.sub(c, assign)
		if n, ok := lp.existing[sub]; ok {
			lp.existing[sub] = n - 1
		}
		if len(sub.pods) == 0 {
			out = append(out, sub)
		}
		sub.pods = append(sub.pods, p)
	}
	return out
}

// chooseSpread adds to assign the value of sp's key for the i-th pod of
// c: the least loaded value of its domains that keeps maxSkew and that a
// pool or node can serve, or a reason when none does. Spreads on other
// keys add nothing.
func (lp *labelPinner) chooseSpread(c *class, sp spread, assign map[string]string, i int) string {
	g := lp.s.groups.list[sp.group]
	if !isLabelKey(g.key) {
		return ""
	}
	domains := lp.spreadDomains(c, sp)
	if len(domains) == 0 {
		// An unknown key: compatibility keeps the pod off nodes without it.
		return ""
	}
	counts := lp.count(g.id)
	lo := int32(-1)
	for _, d := range domains {
		if lo < 0 || counts[d] < lo {
			lo = counts[d]
		}
	}
	if int32(len(domains)) < sp.minDomains {
		lo = 0
	}
	self := int32(0)
	if c.matchesGroup(g.id) {
		self = 1
	}
	fixed, isFixed := assign[g.key]
	best := ""
	var usable []string
	for k := range domains {
		d := domains[(k+i)%len(domains)]
		if isFixed && d != fixed || !lp.usable(c, assign, g.key, d) {
			continue
		}
		usable = append(usable, d)
		if counts[d]+self-lo > sp.maxSkew {
			continue
		}
		if best == "" || counts[d] < counts[best] {
			best = d
		}
	}
	if best == "" {
		slices.Sort(usable)
		if len(usable) == 0 {
			usable = []string{"none"}
		}
		return fmt.Sprintf("topology spread on %s (maxSkew %d, selector %s): one more pod in the values of %s a pool or node can serve (%s) would exceed maxSkew over the %d domains counted (%s); add capacity in the other domains or raise maxSkew",
			g.key, sp.maxSkew, g.sel, g.key, strings.Join(usable, ", "), len(domains), strings.Join(domains, ", "))
	}
	assign[g.key] = best
	return ""
}

// spreadDomains are the values of sp's key counted for c, as
// kube-scheduler's nodeAffinityPolicy and nodeTaintsPolicy decide: those
// of the existing nodes and of the pools' new nodes, without the ones c's
// required node affinity excludes (Honor, the default) and, under
// nodeTaintsPolicy Honor, those of nodes and pools whose taints c does
// not tolerate.
func (lp *labelPinner) spreadDomains(c *class, sp spread) []string {
	k := [2]int{c.id, sp.group}
	if d, ok := lp.domains[k]; ok {
		return d
	}
	s := lp.s
	key := s.groups.list[sp.group].key
	terms := c.baseTerms()
	set := map[string]bool{}
	for _, n := range s.nodes {
		v, ok := n.labels[key]
		if !ok || (!sp.ignoreAffinity && !satisfiesAny(terms, n.labels)) || (sp.honorTaints && n.taints.ToleratesPod(c.tolerations) != nil) {
			continue
		}
		set[v] = true
	}
	for _, p := range s.pools {
		if sp.honorTaints && p.taints.ToleratesPod(c.tolerations) != nil {
			continue
		}
		for _, v := range poolValues(p, key) {
			if sp.ignoreAffinity || poolAllows(p, terms, key, v) {
				set[v] = true
			}
		}
	}
	d := slices.Sorted(maps.Keys(set))
	lp.domains[k] = d
	return d
}

func satisfiesAny(terms []scheduling.Requirements, labels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		if t.SatisfiedBy(labels) {
			return true
		}
	}
	return false
}

// poolAllows reports whether some term is compatible with pool p and
// allows value v of key.
func poolAllows(p *poolPlan, terms []scheduling.Requirements, key, v string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		if t.Get(key).Has(v) && p.pool.Requirements.Allows(t, scheduling.WithAllowUndefinedWellKnownLabels()) {
			return true
		}
	}
	return false
}

// usable reports whether a pod of c given assign and key=v can go
// somewhere: a pool that can launch such a node, or room on an existing
// node carrying v.
func (lp *labelPinner) usable(c *class, assign map[string]string, key, v string) bool {
	a := maps.Clone(assign)
	if a == nil {
		a = map[string]string{}
	}
	a[key] = v
	sub := lp.sub(c, a)
	if n, ok := lp.existing[sub]; ok {
		return n > 0
	}
	s := lp.s
	for _, p := range s.pools {
		if s.compat(sub, p).reason == "" {
			return true
		}
	}
	var room int64
	for _, n := range s.nodes {
		if s.nodeOK(sub, n) {
			room += c.req.Times(&n.room, 1<<20)
		}
	}
	lp.existing[sub] = room
	return room > 0
}

// sub returns the sub-class of c whose node terms require assign.
func (lp *labelPinner) sub(c *class, assign map[string]string) *class {
	keys := slices.Sorted(maps.Keys(assign))
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + assign[k] + ",")
	}
	sig := b.String()
	bySig := lp.subs[c.id]
	if bySig == nil {
		bySig = map[string]*class{}
		lp.subs[c.id] = bySig
	}
	if sub, ok := bySig[sig]; ok {
		return sub
	}
	s := lp.s
	sub := *c
	sub.id = len(s.classes)
	sub.derived = true
	sub.pods = nil
	base := c.baseTerms()
	sub.unpinned = base
	pinned := scheduling.Requirements{}
	for _, k := range keys {
		pinned.Add(scheduling.In(k, assign[k]))
	}
	if len(base) == 0 {
		sub.terms = []scheduling.Requirements{pinned}
	} else {
		sub.terms = make([]scheduling.Requirements, len(base))
		for i, t := range base {
			sub.terms[i] = t.Intersection(pinned)
		}
	}
	s.classes = append(s.classes, &sub)
	bySig[sig] = &sub
	return &sub
}
