package packing

import (
	"fmt"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// bucket is the pods of one class that share zone and capacity-type pins.
type bucket struct {
	c     *class
	zones uint64
	cts   uint8
	pods  []*state.Pod
	next  int
	// size and hardness order the buckets in a round (see round).
	size     int64
	hardness int
	// val is the pods' dual value while a pool fills claims.
	val float64
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
	zc  [][]int32
	cc  [][numCT]int32
	all uint64
	// carried marks groups some class in the batch spreads on, with the
	// smallest maxSkew.
	carried map[int]int32
	failed  map[*state.Pod]string
}

func (s *solver) newPinner(classes []*class) *pinner {
	pn := &pinner{s: s, carried: map[int]int32{}, failed: map[*state.Pod]string{}}
	for _, p := range s.pools {
		pn.all |= p.zoneMask
	}
	for _, n := range s.snap.Nodes {
		if z, ok := s.zoneIdx[n.Zone]; ok {
			pn.all |= 1 << z
		}
	}
	pn.zc = make([][]int32, len(s.groups.list))
	pn.cc = make([][numCT]int32, len(s.groups.list))
	for _, g := range s.groups.list {
		pn.zc[g.id] = make([]int32, len(s.zones))
		for z, name := range s.zones {
			pn.zc[g.id][z] = s.counts[g.id][name]
		}
		for ct := range numCT {
			pn.cc[g.id][ct] = s.counts[g.id][ctNames[ct]]
		}
	}
	for _, sp := range s.spreadsInForce(classes) {
		if key := s.groups.list[sp.g].key; key == scheduling.LabelTopologyZone || key == scheduling.LabelCapacityType {
			if cur, ok := pn.carried[sp.g]; !ok || sp.maxSkew < cur {
				pn.carried[sp.g] = sp.maxSkew
			}
		}
	}
	return pn
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
	var cts uint8
	for _, t := range c.effectiveTerms() {
		zr, cr := t.Get(scheduling.LabelTopologyZone), t.Get(scheduling.LabelCapacityType)
		for z, name := range s.zones {
			if zr.Has(name) {
				zones |= 1 << z
			}
		}
		for ct := range numCT {
			if cr.Has(ctNames[ct]) {
				cts |= 1 << ct
			}
		}
	}
	return zones, cts
}

// pin splits the pending pods of classes into buckets.
func (pn *pinner) pin(classes []*class) []*bucket {
	var out []*bucket
	for _, c := range classes {
		out = append(out, pn.pinClass(c)...)
	}
	pn.pinAffinity(classes, out)
	pn.pinAntiSymmetry(out)
	return out
}

func (pn *pinner) needsPins(c *class) bool {
	for _, sp := range c.activeSpreads() {
		if key := pn.s.groups.list[sp.g].key; key == scheduling.LabelTopologyZone || key == scheduling.LabelCapacityType {
			return true
		}
	}
	for _, t := range c.activeTerms(c.anti) {
		if pn.s.groups.list[t.g].key == scheduling.LabelTopologyZone {
			return true
		}
	}
	for _, g := range c.matches {
		if _, ok := pn.carried[g]; ok {
			return true
		}
	}
	return false
}

func (pn *pinner) pinClass(c *class) []*bucket {
	zones, cts := pn.s.baseMasks(c)
	if !pn.needsPins(c) {
		return []*bucket{{c: c, zones: zones, cts: cts, pods: c.pods}}
	}
	// Domains count wherever the pod may be placed by its node affinity,
	// but a pod is only pinned where some pool or node can take it.
	uz, uc := pn.s.usable(c)
	byPin := map[[2]uint64]*bucket{}
	var out []*bucket
	for i, p := range c.pods {
		z, ct, reason := pn.choose(c, zones&pn.all, cts, uz, uc, i)
		if reason != "" {
			pn.failed[p] = reason
			continue
		}
		pz, pc := zones, cts
		if z >= 0 {
			pz = 1 << z
		}
		if ct >= 0 {
			pc = 1 << ct
		}
		key := [2]uint64{pz, uint64(pc)}
		b := byPin[key]
		if b == nil {
			b = &bucket{c: c, zones: pz, cts: pc}
			byPin[key] = b
			out = append(out, b)
		}
		b.pods = append(b.pods, p)
	}
	return out
}

// choose picks a zone (or -1 when not pinned) and a capacity type for one
// pod, and counts it.
func (pn *pinner) choose(c *class, zones uint64, cts uint8, uz uint64, uc uint8, i int) (int, int, string) {
	s := pn.s
	zoneGroups, ctGroups := pn.constrained(c)
	antiZonal := pn.zonalAnti(c)
	z, ct := -1, -1
	if len(zoneGroups) > 0 || len(antiZonal) > 0 {
		z = pn.bestDomain(c, zones, zones&uz, len(s.zones), zoneGroups, antiZonal, func(g, d int) int32 { return pn.zc[g][d] }, i)
		if z < 0 {
			return 0, 0, pn.spreadReason(c, zoneGroups, antiZonal, "zone", pn.s.maskZones(uz&zones))
		}
	}
	if len(ctGroups) > 0 {
		ct = pn.bestDomain(c, uint64(cts), uint64(cts&uc), numCT, ctGroups, nil, func(g, d int) int32 { return pn.cc[g][d] }, i)
		if ct < 0 {
			return 0, 0, pn.spreadReason(c, ctGroups, nil, "capacity type", ctList(uc&cts))
		}
	}
	for _, g := range c.matches {
		if z >= 0 {
			pn.zc[g][z]++
		}
		if ct >= 0 {
			pn.cc[g][ct]++
		}
	}
	return z, ct, ""
}

// usable are the zones and capacity types where some pool or existing
// node could take a pod of c, capacity aside.
func (s *solver) usable(c *class) (uint64, uint8) {
	var zones uint64
	var cts uint8
	for _, p := range s.pools {
		if cp := s.compat(c, p); cp.reason == "" {
			zones |= cp.zoneMask
			cts |= cp.ctMask
		}
	}
	for _, n := range s.nodes {
		if n.zone >= 0 && n.ct >= 0 && s.nodeOK(c, n) {
			zones |= 1 << n.zone
			cts |= 1 << n.ct
		}
	}
	return zones, cts
}

// limit is one spread bound a pod must keep: on group g, at most maxSkew
// above the least loaded domain; self when the pod itself counts.
type limit struct {
	g          int
	maxSkew    int32
	minDomains int32
	self       bool
}

func (pn *pinner) constrained(c *class) (zone, ct []limit) {
	s := pn.s
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
		seen[sp.g] = true
		add(s.groups.list[sp.g].key, limit{g: sp.g, maxSkew: sp.maxSkew, minDomains: sp.minDomains, self: c.matchesGroup(sp.g)})
	}
	for _, g := range c.matches {
		if skew, ok := pn.carried[g]; ok && !seen[g] {
			add(s.groups.list[g].key, limit{g: g, maxSkew: skew, self: true})
		}
	}
	return zone, ct
}

func (pn *pinner) zonalAnti(c *class) []int {
	var out []int
	for _, t := range c.activeTerms(c.anti) {
		if pn.s.groups.list[t.g].key == scheduling.LabelTopologyZone {
			out = append(out, t.g)
		}
	}
	return out
}

// bestDomain returns the allowed domain that keeps every limit and anti
// term, least loaded first, or -1.
func (pn *pinner) bestDomain(c *class, mask, usable uint64, n int, limits []limit, anti []int, count func(g, d int) int32, i int) int {
	best, bestLoad := -1, int32(0)
	for k := range n {
		d := (k + i) % n
		if i == 0 {
			d = k
		}
		if usable&(1<<d) == 0 || !pn.keeps(mask, n, limits, count, d) {
			continue
		}
		blocked := false
		for _, g := range anti {
			if count(g, d) > 0 || pn.s.carriers[g][pn.s.zones[d]] > 0 && c.matchesGroup(g) {
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

func (pn *pinner) keeps(mask uint64, n int, limits []limit, count func(g, d int) int32, d int) bool {
	for _, l := range limits {
		lo, domains := int32(-1), int32(0)
		for e := range n {
			if mask&(1<<e) == 0 {
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

func (pn *pinner) spreadReason(c *class, limits []limit, anti []int, what string, usable []string) string {
	if len(anti) > 0 && len(limits) == 0 {
		return fmt.Sprintf("pod anti-affinity on %s: every %s a pool or node can serve (%s) already runs a matching pod (%s)", what, what, strings.Join(usable, ", "), pn.s.groups.list[anti[0]].sel)
	}
	l := limits[0]
	return fmt.Sprintf("topology spread on %s (maxSkew %d, selector %s): one more pod in the %ss a pool or node can serve (%s) would exceed maxSkew; add capacity in the other %ss or raise maxSkew",
		what, l.maxSkew, pn.s.groups.list[l.g].sel, what, strings.Join(usable, ", "), what)
}

// pinAffinity confines carriers of zonal pod affinity to zones with a
// matching pod, choosing one zone for a group with none yet.
func (pn *pinner) pinAffinity(classes []*class, buckets []*bucket) {
	s := pn.s
	done := map[int]bool{}
	for _, c := range classes {
		for _, t := range c.activeTerms(c.affinity) {
			g := s.groups.list[t.g]
			if g.key != scheduling.LabelTopologyZone || done[g.id] {
				continue
			}
			done[g.id] = true
			var with uint64
			for z := range s.zones {
				if pn.zc[g.id][z] > 0 {
					with |= 1 << z
				}
			}
			if with == 0 {
				with = pn.firstZone(g.id, buckets)
				for _, b := range buckets {
					if b.c.matchesGroup(g.id) {
						b.zones &= with
					}
				}
			}
			for _, b := range buckets {
				if carries(b.c, g.id) {
					b.zones &= with
				}
			}
		}
	}
}

// firstZone picks the zone for a group whose pods are all pending: the
// first zone every matching bucket allows, rotated by group for spread.
func (pn *pinner) firstZone(g int, buckets []*bucket) uint64 {
	common := pn.all
	for _, b := range buckets {
		if b.c.matchesGroup(g) || carries(b.c, g) {
			if common&b.zones != 0 {
				common &= b.zones
			}
		}
	}
	n := len(pn.s.zones)
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
		if t.g == g {
			return true
		}
	}
	return false
}

// pinAntiSymmetry keeps pods matching a zonal anti-affinity term out of the
// zones where a carrier of the term runs or is pinned.
func (pn *pinner) pinAntiSymmetry(buckets []*bucket) {
	s := pn.s
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
		for _, g := range pn.zonalAnti(b.c) {
			if isSingle(b.zones) {
				blocked[g] |= b.zones
			}
		}
	}
	for _, b := range buckets {
		own := pn.zonalAnti(b.c)
		for _, g := range b.c.matches {
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
