package packing

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// class is a set of pending pods that schedule identically: same namespace,
// labels, requests and constraints. Solve works per class, not per pod.
type class struct {
	id        int
	namespace string
	labels    map[string]string
	pods      []*state.Pod
	req       resources.Vector
	// terms are the alternative node requirements (nodeSelector ∩ one
	// required node affinity term); a node must satisfy one.
	terms []scheduling.Requirements
	// preferred are preferred node affinity terms, highest weight first;
	// relax drops them. scored are all of them, which kube-scheduler's
	// NodeAffinity score adds up whatever relaxation dropped.
	preferred   []scheduling.WeightedRequirements
	scored      []scheduling.WeightedRequirements
	tolerations []corev1.Toleration
	ports       []state.HostPort
	spreads     []spread
	anti        []podTerm
	affinity    []podTerm
	// matches are the groups whose selector selects this class's pods.
	matches []int
	// relaxed is set on the copy of a class whose preferences were all
	// dropped, PreferNoSchedule taints included.
	relaxed bool
	// derived is set on every relaxed copy, whose pods its original
	// also lists.
	derived bool
	// invalid explains a constraint that could not be parsed.
	invalid string
	// unpinned are the node terms before labelpins.go required a value
	// of a label key; nil when none was pinned.
	unpinned []scheduling.Requirements
}

// spread is a topology spread constraint on group g. honorTaints and
// ignoreAffinity are its nodeTaintsPolicy Honor and nodeAffinityPolicy
// Ignore (Kubernetes' defaults are Ignore and Honor): which nodes' and
// pools' domains count.
type spread struct {
	group          int
	maxSkew        int32
	minDomains     int32
	soft           bool
	honorTaints    bool
	ignoreAffinity bool
}

// podTerm is a pod (anti-)affinity term on group g.
type podTerm struct {
	group  int
	soft   bool
	weight int32
}

// group is a (selector, topology key) pair whose matching pods are counted
// per domain. Topology spreads and pod (anti-)affinity terms never share a
// group: kube-scheduler's spread leaves terminating pods out of its counts,
// its affinity rules do not.
type group struct {
	id     int
	key    string
	sel    scheduling.PodSelector
	sig    string
	spread bool
}

// groups interns groups by signature.
type groups struct {
	list  []*group
	bySig map[string]int
}

func (gs *groups) intern(key string, sel scheduling.PodSelector) int {
	return gs.internAs(key, sel, false)
}

// internSpread interns the group of a topology spread.
func (gs *groups) internSpread(key string, sel scheduling.PodSelector) int {
	return gs.internAs(key, sel, true)
}

func (gs *groups) internAs(key string, sel scheduling.PodSelector, spread bool) int {
	sig := key + "#" + sel.String()
	if spread {
		sig = "spread#" + sig
	}
	if id, ok := gs.bySig[sig]; ok {
		return id
	}
	g := &group{id: len(gs.list), key: key, sel: sel, sig: sig, spread: spread}
	gs.list = append(gs.list, g)
	gs.bySig[sig] = g.id
	return g.id
}

// keyCache remembers the printed form of affinities and spread constraints
// by address: pods converted from one template share them, and printing
// them is the costly part of telling classes apart.
type keyCache struct {
	affinity map[*corev1.Affinity]string
	spread   map[*corev1.TopologySpreadConstraint]string
	// keys, names and number are classKey's scratch.
	keys   []string
	names  []corev1.ResourceName
	number []byte
}

func (kc *keyCache) affinityKey(a *corev1.Affinity) string {
	if s, ok := kc.affinity[a]; ok {
		return s
	}
	s := a.String()
	kc.affinity[a] = s
	return s
}

func (kc *keyCache) spreadKey(ts []corev1.TopologySpreadConstraint) string {
	if len(ts) == 0 {
		return ""
	}
	if s, ok := kc.spread[&ts[0]]; ok {
		return s
	}
	var b strings.Builder
	for i := range ts {
		b.WriteString(ts[i].String())
	}
	kc.spread[&ts[0]] = b.String()
	return b.String()
}

// classKey appends to b everything that makes pods schedule differently,
// and returns it. It runs once per pod of every batch: it writes into the
// caller's buffer and keyCache's scratch, so a pod of a class already seen
// costs no allocation.
func classKey(b []byte, kc *keyCache, p *state.Pod) []byte {
	b = append(b, p.Namespace...)
	b = kc.writeMap(b, p.Labels)
	kc.names = kc.names[:0]
	for name := range p.Requests {
		kc.names = append(kc.names, name)
	}
	slices.Sort(kc.names)
	for _, name := range kc.names {
		q := p.Requests[name]
		b = append(b, name...)
		b = append(b, '=')
		// What q.String() prints (its canonical form), without the
		// string: the copy q cannot keep it anyway.
		number, suffix := q.CanonicalizeBytes(kc.number[:0])
		kc.number = number[:0]
		b = append(b, number...)
		b = append(b, suffix...)
		b = append(b, ';')
	}
	b = kc.writeMap(b, p.NodeSelector)
	if p.Affinity != nil {
		b = append(b, kc.affinityKey(p.Affinity)...)
	}
	b = append(b, '|')
	for _, t := range p.Tolerations {
		b = append(b, t.Key...)
		b = append(b, 0)
		b = append(b, t.Operator...)
		b = append(b, 0)
		b = append(b, t.Value...)
		b = append(b, 0)
		b = append(b, t.Effect...)
		b = append(b, 1)
	}
	b = append(b, '|')
	b = append(b, kc.spreadKey(p.TopologySpread)...)
	b = append(b, '|')
	for _, hp := range p.HostPorts {
		b = append(b, hp.Protocol...)
		b = append(b, hp.IP...)
		b = strconv.AppendInt(b, int64(hp.Port), 10)
		b = append(b, ',')
	}
	return b
}

// writeMap appends m to b, sorted by key.
func (kc *keyCache) writeMap(b []byte, m map[string]string) []byte {
	kc.keys = kc.keys[:0]
	for k := range m {
		kc.keys = append(kc.keys, k)
	}
	slices.Sort(kc.keys)
	b = append(b, '{')
	for _, k := range kc.keys {
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, m[k]...)
		b = append(b, ',')
	}
	return append(b, '}')
}

// newClass compiles the constraints of p, the first pod of the class.
func newClass(id int, p *state.Pod, d *dims, gs *groups) *class {
	c := &class{
		id:          id,
		namespace:   p.Namespace,
		labels:      p.Labels,
		req:         d.podVector(p.Requests),
		tolerations: p.Tolerations,
		ports:       p.HostPorts,
	}
	if err := c.compileNode(p); err != nil {
		c.invalid = err.Error()
	}
	if err := c.compilePod(p, gs); err != nil {
		c.invalid = err.Error()
	}
	return c
}

// compileNode compiles the pod's node selection (see
// scheduling.NodeFilter). On an error the class keeps what was compiled
// before the fault; its pods are invalid and never placed.
func (c *class) compileNode(p *state.Pod) error {
	f, err := p.NodeFilter()
	c.terms, c.preferred, c.scored = f.Terms, f.Preferred, f.Preferred
	return err
}

func (c *class) compilePod(p *state.Pod, gs *groups) error {
	for i, ts := range p.TopologySpread {
		sel, err := scheduling.SpreadSelector(ts, p.Namespace, p.Labels)
		if err != nil {
			return fmt.Errorf("topology spread constraint %d: %w", i, err)
		}
		s := spread{group: gs.internSpread(scheduling.NormalizeLabelKey(ts.TopologyKey), sel), maxSkew: max(ts.MaxSkew, 1), soft: ts.WhenUnsatisfiable == corev1.ScheduleAnyway}
		if ts.MinDomains != nil {
			s.minDomains = *ts.MinDomains
		}
		s.honorTaints = ts.NodeTaintsPolicy != nil && *ts.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
		s.ignoreAffinity = ts.NodeAffinityPolicy != nil && *ts.NodeAffinityPolicy == corev1.NodeInclusionPolicyIgnore
		c.spreads = append(c.spreads, s)
	}
	a := p.Affinity
	if a == nil {
		return nil
	}
	var err error
	if a.PodAntiAffinity != nil {
		if c.anti, err = compileTerms(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, p, gs); err != nil {
			return fmt.Errorf("pod anti-affinity: %w", err)
		}
	}
	if a.PodAffinity != nil {
		if c.affinity, err = compileTerms(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, p, gs); err != nil {
			return fmt.Errorf("pod affinity: %w", err)
		}
	}
	return nil
}

func compileTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, p *state.Pod, gs *groups) ([]podTerm, error) {
	var out []podTerm
	for i, term := range required {
		sel, err := scheduling.AffinityTermSelector(term, p.Namespace, p.Labels)
		if err != nil {
			return nil, fmt.Errorf("required term %d: %w", i, err)
		}
		out = append(out, podTerm{group: gs.intern(scheduling.NormalizeLabelKey(term.TopologyKey), sel)})
	}
	for i, wt := range preferred {
		sel, err := scheduling.AffinityTermSelector(wt.PodAffinityTerm, p.Namespace, p.Labels)
		if err != nil {
			return nil, fmt.Errorf("preferred term %d: %w", i, err)
		}
		out = append(out, podTerm{group: gs.intern(scheduling.NormalizeLabelKey(wt.PodAffinityTerm.TopologyKey), sel), soft: true, weight: wt.Weight})
	}
	return out, nil
}

// hasSoft reports whether the class has preferences a relaxed copy drops:
// preferred affinities, ScheduleAnyway spreads and PreferNoSchedule taints.
func (c *class) hasSoft() bool {
	// PreferNoSchedule taints are preferences too, so every class that is
	// not yet relaxed has one.
	return !c.relaxed
}

// relax returns a copy of c with one more preference dropped, in
// Karpenter's order (preferences.go): the heaviest preferred pod affinity
// term, then the heaviest preferred pod anti-affinity term, then the
// heaviest preferred node affinity term (the one effectiveTerms enforces,
// so the next heaviest is tried), then one ScheduleAnyway spread, and last
// the PreferNoSchedule taints.
func (c *class) relax(id int) *class {
	r := *c
	r.id = id
	r.derived = true
	r.pods = nil
	affinity, anti := heaviestSoft(c.affinity), heaviestSoft(c.anti)
	switch {
	case affinity >= 0:
		r.affinity = slices.Delete(slices.Clone(c.affinity), affinity, affinity+1)
	case anti >= 0:
		r.anti = slices.Delete(slices.Clone(c.anti), anti, anti+1)
	case len(c.preferred) > 0:
		r.preferred = c.preferred[1:]
	case slices.ContainsFunc(c.spreads, func(s spread) bool { return s.soft }):
		i := slices.IndexFunc(c.spreads, func(s spread) bool { return s.soft })
		r.spreads = slices.Delete(slices.Clone(c.spreads), i, i+1)
	default:
		r.relaxed = true
	}
	return &r
}

// heaviestSoft is the index of the preferred term of greatest weight
// (the first of equal weights), -1 when terms has none.
func heaviestSoft(terms []podTerm) int {
	best := -1
	for i, t := range terms {
		if t.soft && (best < 0 || t.weight > terms[best].weight) {
			best = i
		}
	}
	return best
}
