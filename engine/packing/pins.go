package packing

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// bucket is the pods of one class that share zone and capacity-type pins.
type bucket struct {
	class         *class
	zones         uint64
	capacityTypes uint8
	pods          []*state.Pod
	next          int
	// size and hardness order the buckets in a round (see round).
	size     int64
	hardness int
	// val is the pods' dual value while a pool fills claims.
	value float64
	// taken counts the pods a dry (simulated) fill took; 0 otherwise.
	taken int64
}

func (b *bucket) left() int64 { return int64(len(b.pods) - b.next) }

// pinner decides zones (and capacity types) up front for pods whose zonal
// constraints couple them: topology spread is met by water-filling each
// group over its domains, zonal affinity by choosing the group's zone, zonal
// anti-affinity by giving each carrier a zone free of matching pods. What
// remains per node (hostname) is checked while packing.
type pinner struct {
	s *solver
	// zc counts, per group, matching pods per zone (or capacity type)
	// index, existing and pinned.
	zoneCounts         [][]int32
	capacityTypeCounts [][numCapacityTypes]int32
	all                uint64
	// carried marks groups some class in the batch spreads on, with the
	// smallest maxSkew.
	carried map[int]int32
	failed  map[*state.Pod]string
	// queue ranks the round's classes in kube-scheduler's queue order and
	// waiting holds, per zonal group, the zones where pending pods of the
	// group wait with no choice of zone (see rankQueue); both only when
	// some class of the round has zonal pod anti-affinity.
	queue   map[*class]int
	waiting map[int]map[int]int
}

func (s *solver) newPinner(classes []*class) *pinner {
	pins := &pinner{s: s, carried: map[int]int32{}, failed: map[*state.Pod]string{}}
	for _, p := range s.pools {
		pins.all |= p.zoneMask
	}
	for _, n := range s.snap.Nodes {
		if z, ok := s.zoneIdx[n.Zone]; ok {
			pins.all |= 1 << z
		}
	}
	pins.zoneCounts = make([][]int32, len(s.groups.list))
	pins.capacityTypeCounts = make([][numCapacityTypes]int32, len(s.groups.list))
	for _, g := range s.groups.list {
		pins.zoneCounts[g.id] = make([]int32, len(s.zones))
		for z, name := range s.zones {
			pins.zoneCounts[g.id][z] = s.counts[g.id][name]
		}
		for ct := range numCapacityTypes {
			pins.capacityTypeCounts[g.id][ct] = s.counts[g.id][capacityTypeNames[ct]]
		}
	}
	for _, sp := range s.spreadsInForce(classes) {
		if key := s.groups.list[sp.group].key; key == scheduling.LabelTopologyZone || key == scheduling.LabelCapacityType {
			if cur, ok := pins.carried[sp.group]; !ok || sp.maxSkew < cur {
				pins.carried[sp.group] = sp.maxSkew
			}
		}
	}
	return pins
}

func (c *class) activeSpreads() []spread {
	if !c.relaxed {
		return c.spreads
	}
	var out []spread
	for _, sp := range c.spreads {
		if !sp.soft {
			out = append(out, sp)
		}
	}
	return out
}

func (c *class) activeTerms(terms []podTerm) []podTerm {
	if !c.relaxed {
		return terms
	}
	var out []podTerm
	for _, t := range terms {
		if !t.soft || !c.relaxed {
			out = append(out, t)
		}
	}
	return out
}

// carried are the class's required anti-affinity terms, the ones that keep
// matching pods away from its pods (kube-scheduler's symmetric check). A
// preferred term binds only its own pods, as in Karpenter, which tracks no
// inverse preferences: another pod never stays Pending for it.
func (c *class) carried() []podTerm {
	var out []podTerm
	for _, t := range c.anti {
		if !t.soft {
			out = append(out, t)
		}
	}
	return out
}

// baseMasks are the zones and capacity types node terms allow: a class's
// effectiveTerms where its pods may go, its required terms (c.terms) where
// its spreads count domains, which a preference never narrows (as in
// kube-scheduler, whose nodeAffinityPolicy reads required node affinity).
func (s *solver) baseMasks(terms []scheduling.Requirements) (uint64, uint8) {
	var zones uint64
	var capacityTypes uint8
	for _, t := range terms {
		zr, cr := t.Get(scheduling.LabelTopologyZone), t.Get(scheduling.LabelCapacityType)
		for z, name := range s.zones {
			if zr.Has(name) {
				zones |= 1 << z
			}
		}
		for ct := range numCapacityTypes {
			if cr.Has(capacityTypeNames[ct]) {
				capacityTypes |= 1 << ct
			}
		}
	}
	return zones, capacityTypes
}

// pin splits the pending pods of classes into buckets.
func (pins *pinner) pin(classes []*class) []*bucket {
	pins.rankQueue(classes)
	var out []*bucket
	for _, c := range classes {
		out = append(out, pins.pinClass(c)...)
	}
	pins.pinAffinity(classes, out)
	pins.pinAntiSymmetry(out)
	return out
}

func (pins *pinner) needsPins(c *class) bool {
	for _, sp := range c.activeSpreads() {
		if key := pins.s.groups.list[sp.group].key; key == scheduling.LabelTopologyZone || key == scheduling.LabelCapacityType {
			return true
		}
	}
	for _, t := range c.activeTerms(c.anti) {
		if pins.s.groups.list[t.group].key == scheduling.LabelTopologyZone {
			return true
		}
	}
	for _, g := range c.matches {
		if _, ok := pins.carried[g]; ok {
			return true
		}
	}
	return false
}

func (pins *pinner) pinClass(c *class) []*bucket {
	zones, capacityTypes := pins.s.baseMasks(c.effectiveTerms())
	if !pins.needsPins(c) {
		return []*bucket{{class: c, zones: zones, capacityTypes: capacityTypes, pods: c.pods}}
	}
	// Domains count wherever the pod may be placed by its required node
	// affinity, but a pod is only pinned where some pool or node can take
	// it, its preferences included: a preferred zone the spread cannot
	// use leaves the pod to the round that relaxes the preference.
	domainZones, domainCapacityTypes := zones, capacityTypes
	if len(c.preferred) > 0 && !c.relaxed {
		domainZones, domainCapacityTypes = pins.s.baseMasks(c.terms)
	}
	usableZones, usableCapacityTypes := pins.s.usable(c)
	byPin := map[[2]uint64]*bucket{}
	var out []*bucket
	for i, p := range c.pods {
		pz, pc, reason := pins.choose(c, domainZones&pins.all, domainCapacityTypes, usableZones, usableCapacityTypes, i)
		if reason != "" {
			pins.failed[p] = reason
			continue
		}
		if pz == 0 {
			pz = zones
		}
		if pc == 0 {
			pc = capacityTypes
		}
		key := [2]uint64{pz, uint64(pc)}
		b := byPin[key]
		if b == nil {
			b = &bucket{class: c, zones: pz, capacityTypes: pc}
			byPin[key] = b
			out = append(out, b)
		}
		b.pods = append(b.pods, p)
	}
	return out
}

// choose picks the zones (0 when not pinned) and capacity types for one
// pod, and counts it. A pod is pinned to one domain when its placement
// moves a count its own rules read (it matches a spread's selector or its
// own zonal anti-affinity); otherwise to every domain its rules allow, so
// that pods no spread counts are not spread apart for nothing.
func (pins *pinner) choose(c *class, zones uint64, capacityTypes uint8, usableZones uint64, usableCapacityTypes uint8, i int) (uint64, uint8, string) {
	s := pins.s
	zoneGroups, ctGroups := pins.constrained(c)
	antiZonal := pins.zonalAnti(c)
	var z uint64
	var ct uint8
	if len(zoneGroups) > 0 || len(antiZonal) > 0 {
		z = pins.domains(c, zones, zones&usableZones, len(s.zones), zoneGroups, antiZonal, func(g, d int) int32 { return pins.zoneCounts[g][d] }, i)
		if z == 0 {
			return 0, 0, pins.spreadReason(c, zoneGroups, antiZonal, "zone", pins.s.maskZones(usableZones&zones))
		}
	}
	if len(ctGroups) > 0 {
		ct = uint8(pins.domains(c, uint64(capacityTypes), uint64(capacityTypes&usableCapacityTypes), numCapacityTypes, ctGroups, nil, func(g, d int) int32 { return pins.capacityTypeCounts[g][d] }, i))
		if ct == 0 {
			return 0, 0, pins.spreadReason(c, ctGroups, nil, "capacity type", capacityTypeList(usableCapacityTypes&capacityTypes))
		}
	}
	for _, g := range c.matches {
		if isSingle(z) {
			pins.zoneCounts[g][bits.TrailingZeros64(z)]++
		}
		if isSingle(uint64(ct)) {
			pins.capacityTypeCounts[g][bits.TrailingZeros8(ct)]++
		}
	}
	return z, ct, ""
}

// domains returns the domain bestDomain picks as a mask when c's pods
// count toward one of the limits or anti terms, and otherwise every domain
// that keeps them (0 for none).
func (pins *pinner) domains(c *class, mask, usable uint64, n int, limits []limit, anti []int, count func(g, d int) int32, i int) uint64 {
	counted := slices.ContainsFunc(limits, func(l limit) bool { return l.self }) || slices.ContainsFunc(anti, c.matchesGroup)
	if counted {
		if d := pins.bestDomain(c, mask, usable, n, limits, anti, count, i); d >= 0 {
			return 1 << d
		}
		return 0
	}
	var out uint64
	for d := range n {
		if pins.allows(c, mask, usable, n, limits, anti, count, d) {
			out |= 1 << d
		}
	}
	return out
}

// usable are the zones and capacity types where some pool or an existing
// node with room for one more pod could take a pod of c: pinning a pod to
// a zone whose nodes are full would leave it Pending (kube-scheduler
// places it in another zone maxSkew allows).
func (s *solver) usable(c *class) (uint64, uint8) {
	var zones uint64
	var capacityTypes uint8
	for _, p := range s.pools {
		if cp := s.compat(c, p); cp.reason == "" {
			zones |= cp.zoneMask
			capacityTypes |= cp.capacityTypeMask
		}
	}
	for _, n := range s.nodes {
		if n.zone >= 0 && n.capacityType >= 0 && c.req.Fits(n.room) && s.nodeOK(c, n) {
			zones |= 1 << n.zone
			capacityTypes |= 1 << n.capacityType
		}
	}
	return zones, capacityTypes
}

// limit is one spread bound a pod must keep: on group g, at most maxSkew
// above the least loaded domain; self when the pod itself counts.
type limit struct {
	g          int
	maxSkew    int32
	minDomains int32
	self       bool
	// own, when set, replaces the pod's domains by domains: a spread
	// whose nodeAffinityPolicy or nodeTaintsPolicy is not the default.
	own     bool
	domains uint64
}

func (pins *pinner) constrained(c *class) (zone, ct []limit) {
	s := pins.s
	add := func(key string, l limit) {
		switch key {
		case scheduling.LabelTopologyZone:
			zone = append(zone, l)
		case scheduling.LabelCapacityType:
			ct = append(ct, l)
		}
	}
	seen := map[int]bool{}
	for _, sp := range c.activeSpreads() {
		seen[sp.group] = true
		key := s.groups.list[sp.group].key
		l := limit{g: sp.group, maxSkew: sp.maxSkew, minDomains: sp.minDomains, self: c.matchesGroup(sp.group)}
		if sp.honorTaints || sp.ignoreAffinity {
			l.own, l.domains = true, s.policyDomains(c, sp, key)
		}
		add(key, l)
	}
	for _, g := range c.matches {
		if skew, ok := pins.carried[g]; ok && !seen[g] {
			add(s.groups.list[g].key, limit{g: g, maxSkew: skew, self: true})
		}
	}
	return zone, ct
}

func (pins *pinner) zonalAnti(c *class) []int {
	var out []int
	for _, t := range c.activeTerms(c.anti) {
		if pins.s.groups.list[t.group].key == scheduling.LabelTopologyZone {
			out = append(out, t.group)
		}
	}
	return out
}

// bestDomain returns the allowed domain that keeps every limit and anti
// term, least loaded first, or -1.
func (pins *pinner) bestDomain(c *class, mask, usable uint64, n int, limits []limit, anti []int, count func(g, d int) int32, i int) int {
	best, bestLoad := -1, int32(0)
	for k := range n {
		d := (k + i) % n
		if i == 0 {
			d = k
		}
		if !pins.allows(c, mask, usable, n, limits, anti, count, d) {
			continue
		}
		var load int32
		for _, l := range limits {
			load += count(l.g, d)
		}
		if best < 0 || load < bestLoad {
			best, bestLoad = d, load
		}
	}
	return best
}

// allows reports whether domain d is usable and keeps every limit and
// anti term of c.
func (pins *pinner) allows(c *class, mask, usable uint64, n int, limits []limit, anti []int, count func(g, d int) int32, d int) bool {
	if usable&(1<<d) == 0 || !pins.keeps(mask, n, limits, count, d) {
		return false
	}
	for _, g := range anti {
		if count(g, d) > 0 || pins.s.carriers[g][pins.s.zones[d]] > 0 && c.matchesGroup(g) || pins.waitsAhead(c, g, d) {
			return false
		}
	}
	return true
}

// policyDomains are the zones (or capacity types, by key) counted for a
// spread of c under its policies: those of the pools and nodes, less
// under nodeTaintsPolicy Honor those whose taints c does not tolerate,
// and under nodeAffinityPolicy Honor those c's node terms exclude.
func (s *solver) policyDomains(c *class, sp spread, key string) uint64 {
	var out uint64
	zone := key == scheduling.LabelTopologyZone
	for _, p := range s.pools {
		if sp.honorTaints && p.taints.ToleratesPod(c.tolerations) != nil {
			continue
		}
		if zone {
			out |= p.zoneMask
		} else {
			out |= uint64(p.capacityTypeMask)
		}
	}
	for _, n := range s.nodes {
		if sp.honorTaints && n.taints.ToleratesPod(c.tolerations) != nil {
			continue
		}
		if zone && n.zone >= 0 {
			out |= 1 << n.zone
		} else if !zone && n.capacityType >= 0 {
			out |= 1 << n.capacityType
		}
	}
	if !sp.ignoreAffinity {
		zones, capacityTypes := s.baseMasks(c.terms)
		if zone {
			out &= zones
		} else {
			out &= uint64(capacityTypes)
		}
	}
	return out
}

func (pins *pinner) keeps(mask uint64, n int, limits []limit, count func(g, d int) int32, d int) bool {
	for _, l := range limits {
		lo, domains := int32(-1), int32(0)
		m := mask
		if l.own {
			m = l.domains
		}
		for e := range n {
			if m&(1<<e) == 0 {
				continue
			}
			domains++
			if v := count(l.g, e); lo < 0 || v < lo {
				lo = v
			}
		}
		if domains < l.minDomains {
			lo = 0
		}
		add := int32(0)
		if l.self {
			add = 1
		}
		if count(l.g, d)+add-lo > l.maxSkew {
			return false
		}
	}
	return true
}

func (pins *pinner) spreadReason(c *class, limits []limit, anti []int, what string, usable []string) string {
	if len(anti) > 0 && len(limits) == 0 {
		return fmt.Sprintf("pod anti-affinity on %s: every %s a pool or node can serve (%s) already runs a matching pod (%s), or one that kube-scheduler binds first; allow the pod another %s or relax that anti-affinity", what, what, strings.Join(usable, ", "), pins.s.groups.list[anti[0]].sel, what)
	}
	l := limits[0]
	for _, m := range limits {
		if int(m.minDomains) > len(usable) {
			return fmt.Sprintf("topology spread on %s (maxSkew %d, minDomains %d, selector %s): only %d %ss a pool or node can serve (%s), fewer than minDomains, so each counts as if another held none; one more pod would exceed maxSkew; let the pools serve %d %ss or lower minDomains",
				what, m.maxSkew, m.minDomains, pins.s.groups.list[m.g].sel, len(usable), what, strings.Join(usable, ", "), m.minDomains, what)
		}
	}
	return fmt.Sprintf("topology spread on %s (maxSkew %d, selector %s): one more pod in the %ss a pool or node can serve (%s) would exceed maxSkew; add capacity in the other %ss or raise maxSkew",
		what, l.maxSkew, pins.s.groups.list[l.g].sel, what, strings.Join(usable, ", "), what)
}

// pinAffinity confines carriers of zonal pod affinity to zones with a
// matching pod, choosing one zone for a group with none yet.
func (pins *pinner) pinAffinity(classes []*class, buckets []*bucket) {
	s := pins.s
	done := map[int]bool{}
	for _, c := range classes {
		for _, t := range c.activeTerms(c.affinity) {
			g := s.groups.list[t.group]
			if g.key != scheduling.LabelTopologyZone || done[g.id] {
				continue
			}
			done[g.id] = true
			var with uint64
			for z := range s.zones {
				if pins.zoneCounts[g.id][z] > 0 {
					with |= 1 << z
				}
			}
			if with == 0 {
				with = pins.firstZone(g.id, buckets)
				for _, b := range buckets {
					if b.class.matchesGroup(g.id) {
						b.zones &= with
					}
				}
			}
			for _, b := range buckets {
				if carries(b.class, g.id) {
					b.zones &= with
				}
			}
		}
	}
}

// firstZone picks the zone for a group whose pods are all pending: the
// first zone every matching bucket allows, rotated by group for spread.
func (pins *pinner) firstZone(g int, buckets []*bucket) uint64 {
	common := pins.all
	for _, b := range buckets {
		if b.class.matchesGroup(g) || carries(b.class, g) {
			if common&b.zones != 0 {
				common &= b.zones
			}
		}
	}
	n := len(pins.s.zones)
	for k := range n {
		z := (k + g) % n
		if common&(1<<z) != 0 {
			return 1 << z
		}
	}
	return 0
}

func carries(c *class, g int) bool {
	for _, t := range c.activeTerms(c.affinity) {
		if t.group == g {
			return true
		}
	}
	return false
}

// pinAntiSymmetry keeps pods matching a zonal anti-affinity term out of the
// zones where a carrier of the term runs or is pinned. When a carrier and
// a matching pod pinned to its zone cannot both run, the one ahead in
// kube-scheduler's queue keeps the zone, as it would bind first: the
// other stays Pending.
func (pins *pinner) pinAntiSymmetry(buckets []*bucket) {
	s := pins.s
	// blocked are, per group, the zones where carriers run or are pinned,
	// with the queue rank of the first (-1 for pods already placed).
	blocked := map[int]map[int]int{}
	block := func(g, z, rank int) {
		if blocked[g] == nil {
			blocked[g] = map[int]int{}
		}
		if cur, ok := blocked[g][z]; !ok || rank < cur {
			blocked[g][z] = rank
		}
	}
	for _, g := range s.groups.list {
		if g.key != scheduling.LabelTopologyZone {
			continue
		}
		for z, name := range s.zones {
			if s.carriers[g.id][name] > 0 {
				block(g.id, z, -1)
			}
		}
	}
	var carriers []*bucket
	for _, b := range buckets {
		for _, t := range b.class.carried() {
			if s.groups.list[t.group].key == scheduling.LabelTopologyZone && isSingle(b.zones) {
				block(t.group, bits.TrailingZeros64(b.zones), pins.queue[b.class])
				carriers = append(carriers, b)
			}
		}
	}
	if len(blocked) == 0 {
		return
	}
	for _, b := range buckets {
		own := pins.zonalAnti(b.class)
		for _, g := range b.class.matches {
			if containsInt(own, g) {
				continue
			}
			for z, rank := range blocked[g] {
				if rank >= 0 && isSingle(b.zones) && b.zones == 1<<z && pins.queue[b.class] < rank {
					continue // ahead of the carrier, which yields below
				}
				b.zones &^= 1 << z
			}
		}
	}
	for _, cb := range carriers {
		for _, b := range buckets {
			if b == cb || !isSingle(b.zones) || b.zones != cb.zones || pins.queue[b.class] >= pins.queue[cb.class] {
				continue
			}
			for _, t := range cb.class.carried() {
				if b.class.matchesGroup(t.group) {
					cb.zones = 0
				}
			}
		}
	}
}

// rankQueue ranks the classes in kube-scheduler's queue order (priority,
// then creation time, then the order of the snapshot, which a scenario
// file gives), each by its first pod, and notes where pods wait that
// cannot move: the zone of a class whose own terms allow one zone and
// that no spread pins. It only does so when a class has zonal pod
// anti-affinity, the one rule where the order decides who stays Pending.
func (pins *pinner) rankQueue(classes []*class) {
	s := pins.s
	pins.queue, pins.waiting = nil, nil
	if !slices.ContainsFunc(classes, func(c *class) bool { return len(pins.zonalAnti(c)) > 0 }) {
		return
	}
	index := make(map[*state.Pod]int, len(s.snap.Pods))
	for i, p := range s.snap.Pods {
		index[p] = i
	}
	ahead := func(a, b *state.Pod) bool {
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		ia, oka := index[a]
		ib, okb := index[b]
		if oka != okb {
			return oka
		}
		if ia != ib {
			return ia < ib
		}
		return a.Key() < b.Key()
	}
	first := make(map[*class]*state.Pod, len(classes))
	order := make([]*class, 0, len(classes))
	for _, c := range classes {
		for _, p := range c.pods {
			if f := first[c]; f == nil || ahead(p, f) {
				first[c] = p
			}
		}
		if first[c] != nil {
			order = append(order, c)
		}
	}
	slices.SortStableFunc(order, func(a, b *class) int {
		switch {
		case ahead(first[a], first[b]):
			return -1
		case ahead(first[b], first[a]):
			return 1
		}
		return 0
	})
	pins.queue = make(map[*class]int, len(order))
	pins.waiting = map[int]map[int]int{}
	for rank, c := range order {
		pins.queue[c] = rank
		zones, _ := s.baseMasks(c.effectiveTerms())
		if !isSingle(zones) || pins.needsPins(c) {
			continue
		}
		z := bits.TrailingZeros64(zones)
		for _, g := range c.matches {
			if s.groups.list[g].key != scheduling.LabelTopologyZone {
				continue
			}
			if pins.waiting[g] == nil {
				pins.waiting[g] = map[int]int{}
			}
			if cur, ok := pins.waiting[g][z]; !ok || rank < cur {
				pins.waiting[g][z] = rank
			}
		}
	}
}

// waitsAhead reports whether a pod matching zonal group g that is ahead of
// c in the queue waits in zone d with no choice of zone.
func (pins *pinner) waitsAhead(c *class, g, d int) bool {
	rank, ok := pins.waiting[g][d]
	return ok && rank < pins.queue[c]
}

func isSingle(m uint64) bool { return m != 0 && m&(m-1) == 0 }

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
