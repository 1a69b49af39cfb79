package packing

import (
	"fmt"
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

// baseMasks are the zones and capacity types the class's node terms allow.
func (s *solver) baseMasks(c *class) (uint64, uint8) {
	var zones uint64
	var capacityTypes uint8
	for _, t := range c.effectiveTerms() {
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
	zones, capacityTypes := pins.s.baseMasks(c)
	if !pins.needsPins(c) {
		return []*bucket{{class: c, zones: zones, capacityTypes: capacityTypes, pods: c.pods}}
	}
	// Domains count wherever the pod may be placed by its node affinity,
	// but a pod is only pinned where some pool or node can take it.
	usableZones, usableCapacityTypes := pins.s.usable(c)
	byPin := map[[2]uint64]*bucket{}
	var out []*bucket
	for i, p := range c.pods {
		z, ct, reason := pins.choose(c, zones&pins.all, capacityTypes, usableZones, usableCapacityTypes, i)
		if reason != "" {
			pins.failed[p] = reason
			continue
		}
		pz, pc := zones, capacityTypes
		if z >= 0 {
			pz = 1 << z
		}
		if ct >= 0 {
			pc = 1 << ct
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

// choose picks a zone (or -1 when not pinned) and a capacity type for one
// pod, and counts it.
func (pins *pinner) choose(c *class, zones uint64, capacityTypes uint8, usableZones uint64, usableCapacityTypes uint8, i int) (int, int, string) {
	s := pins.s
	zoneGroups, ctGroups := pins.constrained(c)
	antiZonal := pins.zonalAnti(c)
	z, ct := -1, -1
	if len(zoneGroups) > 0 || len(antiZonal) > 0 {
		z = pins.bestDomain(c, zones, zones&usableZones, len(s.zones), zoneGroups, antiZonal, func(g, d int) int32 { return pins.zoneCounts[g][d] }, i)
		if z < 0 {
			return 0, 0, pins.spreadReason(c, zoneGroups, antiZonal, "zone", pins.s.maskZones(usableZones&zones))
		}
	}
	if len(ctGroups) > 0 {
		ct = pins.bestDomain(c, uint64(capacityTypes), uint64(capacityTypes&usableCapacityTypes), numCapacityTypes, ctGroups, nil, func(g, d int) int32 { return pins.capacityTypeCounts[g][d] }, i)
		if ct < 0 {
			return 0, 0, pins.spreadReason(c, ctGroups, nil, "capacity type", capacityTypeList(usableCapacityTypes&capacityTypes))
		}
	}
	for _, g := range c.matches {
		if z >= 0 {
			pins.zoneCounts[g][z]++
		}
		if ct >= 0 {
			pins.capacityTypeCounts[g][ct]++
		}
	}
	return z, ct, ""
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
		if usable&(1<<d) == 0 || !pins.keeps(mask, n, limits, count, d) {
			continue
		}
		blocked := false
		for _, g := range anti {
			if count(g, d) > 0 || pins.s.carriers[g][pins.s.zones[d]] > 0 && c.matchesGroup(g) {
				blocked = true
			}
		}
		if blocked {
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
		zones, capacityTypes := s.baseMasks(c)
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
		return fmt.Sprintf("pod anti-affinity on %s: every %s a pool or node can serve (%s) already runs a matching pod (%s)", what, what, strings.Join(usable, ", "), pins.s.groups.list[anti[0]].sel)
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
// zones where a carrier of the term runs or is pinned.
func (pins *pinner) pinAntiSymmetry(buckets []*bucket) {
	s := pins.s
	blocked := map[int]uint64{}
	for _, g := range s.groups.list {
		if g.key != scheduling.LabelTopologyZone {
			continue
		}
		for z, name := range s.zones {
			if s.carriers[g.id][name] > 0 {
				blocked[g.id] |= 1 << z
			}
		}
	}
	for _, b := range buckets {
		for _, g := range pins.zonalAnti(b.class) {
			if isSingle(b.zones) {
				blocked[g] |= b.zones
			}
		}
	}
	for _, b := range buckets {
		own := pins.zonalAnti(b.class)
		for _, g := range b.class.matches {
			if m, ok := blocked[g]; ok && !containsInt(own, g) {
				b.zones &^= m
			}
		}
	}
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
