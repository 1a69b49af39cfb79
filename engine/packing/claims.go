package packing

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// finalize shrinks each claim to the cheapest offering that fits what it
// got and lists its options. Claims whose pool's minValues cannot be met
// are dropped and their pods returned.
func (s *solver) finalize() ([]*Claim, []*state.Pod, map[*state.Pod]string) {
	slices.SortStableFunc(s.claims, func(a, b *node) int { return cmp.Compare(a.pool.idx, b.pool.idx) })
	var out []*Claim
	var dropped []*state.Pod
	reasons := map[*state.Pod]string{}
	for _, n := range s.claims {
		if len(n.pods) == 0 {
			n.pool.usage = n.pool.usage.sub(n.typ.capacity)
			n.dropped = true
			continue
		}
		claim, reason := s.finalizeClaim(n)
		if reason != "" {
			for _, p := range n.pods {
				dropped = append(dropped, p)
				reasons[p] = reason
				delete(s.placed, p.Key())
			}
			n.pool.usage = n.pool.usage.sub(n.typ.capacity)
			n.dropped = true
			continue
		}
		out = append(out, claim)
	}
	return out, dropped, reasons
}

func (s *solver) finalizeClaim(n *node) (*Claim, string) {
	p := n.pool
	mask := p.typeMask(nil)
	reqs := p.p.Requirements.Clone()
	if reqs == nil {
		reqs = scheduling.Requirements{}
	}
	// A claim holds few distinct classes: a slice is cheaper than a map.
	seen := make([]*compat, 0, len(n.classes))
	for _, c := range n.classes {
		cp := s.compat(c, p)
		if slices.Contains(seen, cp) {
			continue
		}
		seen = append(seen, cp)
		mask = mask.and(cp.mask)
		if len(cp.term) > 0 {
			reqs = reqs.Intersection(cp.term)
		}
	}
	reqs.Add(scheduling.In(scheduling.LabelTopologyZone, s.zones[n.zone]))
	cts := n.cts & p.ctMask
	reqs.Add(scheduling.In(scheduling.LabelCapacityType, ctList(cts)...))
	base := p.usage.sub(n.typ.capacity)
	// Sized for the usual case, where maxOptions ends the list.
	size := min(s.opts.maxOptions, len(p.offers[n.zone]))
	opts := make([]InstanceOption, 0, size)
	types := make([]*ptype, 0, size)
	for _, o := range p.offers[n.zone] {
		if cts&(1<<o.ct) == 0 || !mask.has(o.t.idx) || !n.used.fits(o.t.alloc) {
			continue
		}
		if !withinLimits(p, base, o.t.capacity) {
			continue
		}
		if len(opts) >= s.opts.maxOptions && minValuesMet(p, types, s.zones[n.zone]) {
			break
		}
		opts = append(opts, InstanceOption{InstanceType: o.t.it.Name, Zone: s.zones[o.zone], CapacityType: ctNames[o.ct], PricePerHour: o.price})
		types = append(types, o.t)
	}
	if len(opts) == 0 {
		return nil, fmt.Sprintf("no instance type of nodepool %q fits the pods packed together on %s; this is always a bug in the packer, please report it", p.p.Name, n.name)
	}
	if !minValuesMet(p, types, s.zones[n.zone]) {
		r := p.minValues[0]
		return nil, fmt.Sprintf("nodepool %q requires at least %d distinct values of %s, but only %d instance types fit the pods", p.p.Name, *r.MinValues, r.Key, len(distinctTypes(types)))
	}
	chosen := types[0]
	p.usage = base.add(chosen.capacity)
	n.typ = chosen
	n.ct = ctIndex(opts[0].CapacityType)
	keys := sortByKey(n.pods)
	over := s.overhead(p, chosen, opts[0].Zone, opts[0].CapacityType, n.name)
	return &Claim{
		Name:         n.name,
		Pool:         p.p.Name,
		Requirements: reqs,
		Options:      opts,
		Pods:         keys,
		Requests:     s.dims.list(n.used.add(over)),
	}, ""
}

// overhead is the daemonsets' requests on a new node of this offering.
func (s *solver) overhead(p *poolPlan, t *ptype, zone, capacityType, name string) vec {
	var v vec
	if len(s.daemons) == 0 {
		return v
	}
	labels := nodeLabels(p.p, t.it, zone, capacityType, name)
	for _, dm := range s.daemons {
		if dm.runsOnLabels(labels, p.taints) {
			v = v.add(dm.req)
		}
	}
	return v
}

func withinLimits(p *poolPlan, base, capacity vec) bool {
	for d := range maxDims {
		if p.limited[d] && base[d]+capacity[d] > p.limits[d] {
			return false
		}
	}
	return true
}

// minValuesMet reports whether the types offer enough distinct values for
// every requirement with minValues.
func minValuesMet(p *poolPlan, types []*ptype, zone string) bool {
	for _, r := range p.minValues {
		seen := map[string]bool{}
		for _, t := range types {
			seen[typeLabel(t, r.Key, zone)] = true
		}
		if len(seen) < *r.MinValues {
			return false
		}
	}
	return true
}

func typeLabel(t *ptype, key, zone string) string {
	if key == scheduling.LabelTopologyZone {
		return zone
	}
	if vs := t.it.Requirements.Get(key).Values(); len(vs) == 1 {
		return vs[0]
	}
	return t.it.Name
}

func distinctTypes(types []*ptype) map[string]bool {
	out := map[string]bool{}
	for _, t := range types {
		out[t.it.Name] = true
	}
	return out
}

// sortByKey sorts pods by key (namespace/name) and returns their keys,
// building each key once instead of twice per comparison.
func sortByKey(pods []*state.Pod) []string {
	type keyed struct {
		key string
		pod *state.Pod
	}
	ks := make([]keyed, len(pods))
	for i, p := range pods {
		ks[i] = keyed{p.Key(), p}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	keys := make([]string, len(pods))
	for i, k := range ks {
		pods[i], keys[i] = k.pod, k.key
	}
	return keys
}
