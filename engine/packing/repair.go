package packing

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// repairSpreads is the safety net for zone and capacity-type spread: pins
// keep every group balanced when all its pods are placed, but pods that
// then fail (limits, no capacity) can leave a domain short. It takes pods
// back from the fullest domain until every hard spread holds, and returns
// them into out with the reason.
func (s *solver) repairSpreads(out map[*state.Pod]string) {
	skews := map[int]int32{}
	carrier := map[int]*class{}
	for _, c := range s.classes {
		for _, sp := range c.spreads {
			key := s.groups.list[sp.group].key
			if sp.soft || (key != scheduling.LabelTopologyZone && key != scheduling.LabelCapacityType) {
				continue
			}
			if cur, ok := skews[sp.group]; !ok || sp.maxSkew < cur {
				skews[sp.group] = sp.maxSkew
			}
			if carrier[sp.group] == nil {
				carrier[sp.group] = c
			}
		}
	}
	if len(skews) == 0 {
		return
	}
	nodes := map[string]*node{}
	for _, n := range append(slices.Clone(s.nodes), s.claims...) {
		nodes[n.name] = n
	}
	for _, g := range slices.Sorted(mapsKeys(skews)) {
		s.repairGroup(s.groups.list[g], skews[g], s.spreadDomains(carrier[g], s.groups.list[g].key), nodes, out)
	}
}

func mapsKeys[V any](m map[int]V) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// spreadDomains are the zones (or capacity types) a carrier's spread is
// counted over: those of the pools and nodes its required node affinity
// allows.
func (s *solver) spreadDomains(c *class, key string) []string {
	zones, capacityTypes := s.baseMasks(c.terms)
	var out []string
	if key == scheduling.LabelTopologyZone {
		var all uint64
		for _, p := range s.pools {
			all |= p.zoneMask
		}
		for _, n := range s.snap.Nodes {
			if z, ok := s.zoneIdx[n.Zone]; ok {
				all |= 1 << z
			}
		}
		for z, name := range s.zones {
			if all&zones&(1<<z) != 0 {
				out = append(out, name)
			}
		}
		return out
	}
	var all uint8
	for _, p := range s.pools {
		all |= p.capacityTypeMask
	}
	for _, n := range s.snap.Nodes {
		if ct := capacityTypeIndex(n.CapacityType); ct >= 0 {
			all |= 1 << ct
		}
	}
	for ct := range numCapacityTypes {
		if all&capacityTypes&(1<<ct) != 0 {
			out = append(out, capacityTypeNames[ct])
		}
	}
	return out
}

func (s *solver) repairGroup(g *group, skew int32, domains []string, nodes map[string]*node, out map[*state.Pod]string) {
	if len(domains) == 0 {
		return
	}
	// The placed pending pods of the group per domain, last key first.
	placed := map[string][]*state.Pod{}
	for p, c := range s.podClass {
		if _, ok := s.placed[p]; !ok || !c.matchesGroup(g.id) {
			continue
		}
		d := s.domain(nodes[s.placed[p]], g.key)
		placed[d] = append(placed[d], p)
	}
	for d := range placed {
		slices.SortFunc(placed[d], func(a, b *state.Pod) int { return cmp.Compare(b.Key(), a.Key()) })
	}
	for {
		lo, hi := int32(-1), int32(-1)
		var top string
		for _, d := range domains {
			v := s.counts[g.id][d]
			if lo < 0 || v < lo {
				lo = v
			}
			if v > hi && len(placed[d]) > 0 {
				hi, top = v, d
			}
		}
		if hi < 0 || hi-lo <= skew {
			return
		}
		p := placed[top][0]
		placed[top] = placed[top][1:]
		s.unplace(p, nodes[s.placed[p]])
		out[p] = fmt.Sprintf("topology spread on %s (maxSkew %d, selector %s) cannot be kept: other pods of the group could not be placed in the least loaded %s", g.key, skew, g.sel, g.key)
	}
}

// unplace takes a placed pod back off its node.
func (s *solver) unplace(p *state.Pod, n *node) {
	c := s.podClass[p]
	delete(s.placed, p)
	n.room = n.room.Add(c.req)
	for _, gid := range c.matches {
		s.addCount(n, s.groups.list[gid], -1)
	}
	// Only required terms keep matching pods away (see carried).
	for _, t := range c.anti {
		if t.soft {
			continue
		}
		s.addCarry(n, s.groups.list[t.group], -1)
	}
	if n.claimState != nil {
		n.used = n.used.Sub(c.req)
		n.pods = slices.DeleteFunc(n.pods, func(q *state.Pod) bool { return q == p })
	}
}

// repairAffinity is the safety net for zonal pod affinity: pins put
// carriers where matching pods were meant to be, but those may have
// failed. Every zone holding carriers must hold a matching pod that does
// not carry the term, except one zone started by a self-matching carrier;
// carriers elsewhere are taken back.
func (s *solver) repairAffinity(out map[*state.Pod]string) {
	terms := map[int]bool{}
	for _, c := range s.classes {
		for _, t := range c.affinity {
			if !t.soft && s.groups.list[t.group].key != scheduling.LabelHostname {
				terms[t.group] = true
			}
		}
	}
	if len(terms) == 0 {
		return
	}
	nodes := map[string]*node{}
	for _, n := range append(slices.Clone(s.nodes), s.claims...) {
		nodes[n.name] = n
	}
	pods := make([]*state.Pod, 0, len(s.podClass))
	for p := range s.podClass {
		pods = append(pods, p)
	}
	slices.SortFunc(pods, func(a, b *state.Pod) int { return cmp.Compare(a.Key(), b.Key()) })
	for _, gid := range slices.Sorted(mapsKeys(terms)) {
		g := s.groups.list[gid]
		support := map[string]bool{}
		for d, n := range s.counts[gid] {
			if n > 0 {
				support[d] = true
			}
		}
		carriersIn := map[string][]*state.Pod{}
		selfIn := map[string]bool{}
		for _, p := range pods {
			c := s.podClass[p]
			node, ok := s.placed[p]
			if !ok || !carries(c, gid) {
				continue
			}
			d := s.domain(nodes[node], g.key)
			carriersIn[d] = append(carriersIn[d], p)
			selfIn[d] = selfIn[d] || c.matchesGroup(gid)
		}
		// Support counted the carriers themselves; recount without them.
		for d, ps := range carriersIn {
			if int(s.counts[gid][d]) <= countMatching(ps, s.podClass, gid) {
				support[d] = false
			}
		}
		var bad []string
		for _, d := range slices.Sorted(func(yield func(string) bool) {
			for d := range carriersIn {
				if !yield(d) {
					return
				}
			}
		}) {
			if !support[d] {
				bad = append(bad, d)
			}
		}
		keep := ""
		for _, d := range bad {
			if selfIn[d] && (keep == "" || len(carriersIn[d]) > len(carriersIn[keep])) {
				keep = d
			}
		}
		for _, d := range bad {
			if d == keep {
				continue
			}
			why := fmt.Sprintf("required pod affinity on %s: no pod matching %s could be placed in %s %s; make room there for the pods it needs", g.key, g.sel, g.key, d)
			if s.totals[gid] == 0 {
				why = fmt.Sprintf("required pod affinity on %s: no pod matches %s; create the pods it needs first", g.key, g.sel)
			}
			for _, p := range carriersIn[d] {
				s.unplace(p, nodes[s.placed[p]])
				out[p] = why
			}
		}
	}
}

func countMatching(ps []*state.Pod, classes map[*state.Pod]*class, g int) int {
	n := 0
	for _, p := range ps {
		if classes[p].matchesGroup(g) {
			n++
		}
	}
	return n
}
