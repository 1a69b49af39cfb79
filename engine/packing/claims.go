package packing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// finalize shrinks each claim to the cheapest offering that fits what it
// got. A claim whose pool's minValues its pods together cannot meet is
// split, a pod per claim (splitClaim); one that still cannot is dropped
// and its pods returned. It returns what the kept claims cost; claimsOut lists
// them, with their options, afterwards (Solve does it only for the variant
// it keeps).
func (s *solver) finalize() (float64, []*state.Pod, map[*state.Pod]string) {
	slices.SortStableFunc(s.claims, func(a, b *node) int { return cmp.Compare(a.pool.idx, b.pool.idx) })
	var cost float64
	var dropped []*state.Pod
	reasons := map[*state.Pod]string{}
	// Claims split apart are appended and settled in turn.
	for i := 0; i < len(s.claims); i++ {
		n := s.claims[i]
		if len(n.pods) == 0 {
			n.pool.usage = n.pool.usage.Sub(n.typ.capacity)
			n.dropped = true
			continue
		}
		if reason := s.settleClaim(n); reason != "" {
			if len(n.final.offers) > 0 && s.splitClaim(n) {
				continue
			}
			for _, p := range n.pods {
				dropped = append(dropped, p)
				reasons[p] = reason
				delete(s.placed, p)
			}
			n.pool.usage = n.pool.usage.Sub(n.typ.capacity)
			n.dropped = true
			continue
		}
		cost += n.final.offers[0].price
	}
	return cost, dropped, reasons
}

// splitClaim moves each pod of n, a claim whose offerings miss its pool's
// minValues, to a claim of its own of n's type in n's zone (each node's
// options are then those holding one pod, as Karpenter packs pods apart
// when packing them together breaks minValues), and drops n. It does
// nothing and reports false when n holds one pod, a pod needs another on
// its node (required pod affinity on hostname), or the pool's limits
// cannot take the extra nodes.
func (s *solver) splitClaim(n *node) bool {
	if len(n.pods) < 2 {
		return false
	}
	for _, c := range n.classes {
		for _, t := range c.activeTerms(c.affinity) {
			if isHostname(s.groups.list[t.group].key) {
				return false
			}
		}
	}
	p := n.pool
	base := p.usage.Sub(n.typ.capacity)
	p.usage = base
	for range n.pods {
		if !p.withinLimits(n.typ.capacity) {
			p.usage = base.Add(n.typ.capacity)
			return false
		}
		p.usage = p.usage.Add(n.typ.capacity)
	}
	p.usage = base
	for _, pod := range n.pods {
		c := s.podClass[pod]
		m := s.newClaim(p, n.typ, n.zone, n.capacityType)
		m.capacityTypes = n.capacityTypes
		m.room = m.room.Sub(c.req)
		m.used = c.req
		m.pods = []*state.Pod{pod}
		m.classes = []*class{c}
		m.ports = append(m.ports, c.ports...)
		m.open = s.compat(c, p).open
		for _, gid := range c.matches {
			n.bumpMatch(gid, -1)
			m.bumpMatch(gid, 1)
		}
		for _, t := range c.activeTerms(c.anti) {
			n.bumpCarry(t.group, -1)
			m.bumpCarry(t.group, 1)
		}
		s.placed[pod] = m.name
	}
	n.pods, n.dropped = nil, true
	return true
}

// finalOffers is what finalize decided for a claim: the types its classes
// allow, its pool's usage without it when it was settled, and its
// offerings, cheapest first (only the first unless the pool has
// minValues; claimOut lists them all).
type finalOffers struct {
	mask   bitset
	base   resources.Vector
	offers []offer
	// from is the index of offers[0] among the pool's offerings in the
	// claim's zone: none before it holds the claim (see claimOut).
	from int
}

// settleClaim gives n the cheapest offering that holds its pods, or says
// why none can.
func (s *solver) settleClaim(n *node) string {
	p := n.pool
	all := p.typeMask(nil)
	mask := all
	var buf [compatBuf]*compat
	for _, cp := range s.claimCompats(n, buf[:0]) {
		if owned(mask, all) {
			mask.andInto(mask, cp.mask)
		} else {
			mask = mask.and(cp.mask)
		}
	}
	n.final = &finalOffers{mask: mask, base: p.usage.Sub(n.typ.capacity)}
	// Without minValues only the first offering matters here.
	n.final.offers, n.final.from = s.claimOffers(n, len(p.minValues) == 0)
	offers := n.final.offers
	if len(offers) == 0 {
		return fmt.Sprintf("no instance type of nodepool %q fits the pods packed together on %s; this is always a bug in the packer, please report it", p.pool.Name, n.name)
	}
	if !s.minValuesMet(n, offers) {
		r := p.minValues[0]
		return fmt.Sprintf("nodepool %q requires at least %d distinct values of %s, but only %d instance types fit the pods", p.pool.Name, *r.MinValues, r.Key, len(distinctTypes(offers)))
	}
	chosen := offers[0]
	p.usage = n.final.base.Add(chosen.t.capacity)
	n.typ = chosen.t
	n.capacityType = chosen.capacityType
	return ""
}

// claimOffers lists the offerings of n's pool in n's zone that hold n's
// pods within the pool's limits, cheapest first, up to the options a
// claim lists (more while minValues needs them); with first set only the
// first. from is the index of the first among the zone's offerings (their
// number when there is none).
func (s *solver) claimOffers(n *node, first bool) (out []offer, from int) {
	p := n.pool
	capacityTypes := n.capacityTypes & p.capacityTypeMask
	size := min(s.opts.maxOptions, len(p.offers[n.zone]))
	if first {
		size = 1
	}
	out = make([]offer, 0, size)
	from = len(p.offers[n.zone])
	var spot spotFilter
	for i, o := range p.offers[n.zone] {
		if !claimTakes(n, capacityTypes, o) || (len(p.minValues) == 0 && spot.unwanted(o)) {
			continue
		}
		if len(out) >= s.opts.maxOptions && s.minValuesMet(n, out) {
			break
		}
		if len(out) == 0 {
			from = i
		}
		out = append(out, o)
		if first {
			break
		}
	}
	return out, from
}

// spotFilter drops, from a claim's options taken cheapest first, the spot
// offerings dearer than the cheapest on-demand one before them (Karpenter's
// filterUnwantedSpot): in a launch that may be either, a cloud that
// weighs capacity as well as price (EC2 Fleet's price-capacity-optimized)
// could otherwise start a larger spot node that costs more than the
// on-demand node that holds the same pods, and be interrupted besides. The
// claim's own (first) offering is the cheapest, never dropped. Pools with
// minValues keep every option, as their flexibility is the point.
type spotFilter struct {
	onDemand float64
	seen     bool
}

// unwanted reports whether o, taken after every offering before it in
// price order, is such a spot offering, and remembers the first
// on-demand price.
func (f *spotFilter) unwanted(o offer) bool {
	if o.capacityType == capacityOnDemand {
		if !f.seen {
			f.onDemand, f.seen = o.price, true
		}
		return false
	}
	return f.seen && o.price > f.onDemand
}

// claimTakes reports whether offering o of n's pool can be n's: an
// allowed capacity type and instance type that holds n's pods within the
// pool's limits.
func claimTakes(n *node, capacityTypes uint8, o offer) bool {
	return capacityTypes&(1<<o.capacityType) != 0 && n.final.mask.has(o.t.idx) && n.used.Fits(o.t.alloc) && withinLimits(n.pool, n.final.base, o.t.capacity)
}

// claimsOut lists the claims finalize kept (nil when none).
//
// keysOn holds the keys of each node's pods, sorted (see describe); a
// claim whose pods it does not all list has its keys built and sorted
// again.
func (s *solver) claimsOut(keysOn map[string][]string) []*Claim {
	var out []*Claim
	labels := map[labelsKey]map[string]string{}
	var options []InstanceOption
	for _, n := range s.claims {
		if !n.dropped {
			keys := keysOn[n.name]
			if len(keys) != len(n.pods) {
				keys = sortByKey(n.pods)
			}
			out = append(out, s.claimOut(n, keys, labels, &options))
		}
	}
	return out
}

// labelsKey is an offering a claim's node launches as: the labels of its
// nodes differ only in their hostname (see claimOut).
type labelsKey struct {
	pool               *state.Pool
	it                 *catalog.InstanceType
	zone, capacityType string
}

// compatBuf is the size of the arrays claimCompats' callers lend it.
const compatBuf = 8

// claimCompats is the distinct compatibilities of n's classes with its
// pool, in class order, appended to buf (callers pass a small array of
// their own, which usually holds them all: the list only lives while they
// read it). A claim holds few distinct classes: a slice is cheaper than a
// map.
func (s *solver) claimCompats(n *node, buf []*compat) []*compat {
	seen := buf[:0]
	for _, c := range n.classes {
		if cp := s.compat(c, n.pool); !slices.Contains(seen, cp) {
			seen = append(seen, cp)
		}
	}
	return seen
}

// claimOut describes a claim finalize kept: its requirements, its options
// and its pods. The options are listed in scratch, then copied at their
// size: most claims have far fewer than maxOptions, whose room for each
// was a twelfth of a w1 solve's bytes.
func (s *solver) claimOut(n *node, keys []string, memo map[labelsKey]map[string]string, scratch *[]InstanceOption) *Claim {
	p := n.pool
	reqs := p.pool.Requirements.Clone()
	if reqs == nil {
		reqs = scheduling.Requirements{}
	}
	var buf [compatBuf]*compat
	for _, cp := range s.claimCompats(n, buf[:0]) {
		if len(cp.term) > 0 {
			reqs = reqs.Intersection(cp.term)
		}
	}
	commitOpenKeys(p, reqs)
	reqs.Add(scheduling.In(scheduling.LabelTopologyZone, s.zones[n.zone]))
	capacityTypes := n.capacityTypes & p.capacityTypeMask
	reqs.Add(scheduling.In(scheduling.LabelCapacityType, capacityTypeList(capacityTypes)...))
	option := func(o offer) InstanceOption {
		return InstanceOption{InstanceType: o.t.instance.Name, Zone: s.zones[o.zone], CapacityType: capacityTypeNames[o.capacityType], PricePerHour: o.price}
	}
	var opts []InstanceOption
	if len(p.minValues) > 0 {
		// finalize listed them all.
		opts = make([]InstanceOption, len(n.final.offers))
		for i, o := range n.final.offers {
			opts[i] = option(o)
		}
	} else {
		// claimOffers' list without minValues: the first maxOptions.
		opts = (*scratch)[:0]
		var spot spotFilter
		// The offerings before the claim's own hold none of its pods
		// (claimTakes is false on each, which leaves spot unchanged):
		// on a large claim they are most of the zone's.
		from := n.final.from
		if s.opts.noOfferSkip {
			from = 0
		}
		for _, o := range p.offers[n.zone][from:] {
			if len(opts) == s.opts.maxOptions {
				break
			}
			if claimTakes(n, capacityTypes, o) && !spot.unwanted(o) {
				opts = append(opts, option(o))
			}
		}
		*scratch = opts
		opts = slices.Clone(opts)
	}
	// The daemonsets' overhead is judged on the node's labels before the
	// claim pins its requirements' values on them (state.Pool.ClaimLabels).
	// Claims of one offering share their labels but the hostname: they
	// are worked out once per offering (state.Pool.NodeLabel gives the
	// name only for the hostname).
	key := labelsKey{p.pool, n.typ.instance, opts[0].Zone, opts[0].CapacityType}
	shared, ok := memo[key]
	if !ok {
		shared = p.pool.NodeLabels(n.typ.instance, key.zone, key.capacityType, "")
		memo[key] = shared
	}
	labels := maps.Clone(shared)
	labels[scheduling.LabelHostname] = n.name
	over := s.overheadOn(labels, p)
	return &Claim{
		Labels:       state.PinLabels(labels, reqs),
		Name:         n.name,
		Pool:         p.pool.Name,
		Requirements: reqs,
		Options:      opts,
		Pods:         keys,
		Requests:     s.dims.list(n.used.Add(over)),
	}
}

// commitOpenKeys narrows each requirement of reqs on a key the pool leaves
// open (more than one value, no template label, not a well-known label) to
// one value, the first its pods allow: a node carries one value, and
// kube-scheduler judges pods by it.
func commitOpenKeys(p *poolPlan, reqs scheduling.Requirements) {
	for key, r := range reqs {
		if scheduling.IsWellKnownLabel(key) {
			continue
		}
		if _, set := p.pool.Labels[key]; set {
			continue
		}
		if _, pinned := reqs.Label(key); pinned {
			continue
		}
		if v, ok := r.Any(); ok {
			reqs[key] = scheduling.In(key, v)
		}
	}
}

// overheadOn is the daemonsets' requests on a new node of p with these
// labels.
func (s *solver) overheadOn(labels map[string]string, p *poolPlan) resources.Vector {
	var v resources.Vector
	for _, dm := range s.daemons {
		if dm.runsOnLabels(labels, p.taints) {
			v = v.Add(dm.req)
		}
	}
	return v
}

func withinLimits(p *poolPlan, base, capacity resources.Vector) bool {
	for d := range resources.MaxDims {
		if p.limited[d] && base[d]+capacity[d] > p.limits[d] {
			return false
		}
	}
	return true
}

// minValuesMet reports whether the offerings, as the options of claim n,
// give enough distinct values of every requirement with minValues: the
// values n's node would carry as each (see state.Pool.NodeLabel).
func (s *solver) minValuesMet(n *node, offers []offer) bool {
	p := n.pool
	for _, r := range p.minValues {
		seen := map[string]bool{}
		for _, o := range offers {
			seen[p.pool.NodeLabel(o.t.instance, s.zones[o.zone], capacityTypeNames[o.capacityType], n.name, r.Key)] = true
		}
		if len(seen) < *r.MinValues {
			return false
		}
	}
	return true
}

func distinctTypes(offers []offer) map[string]bool {
	out := map[string]bool{}
	for _, o := range offers {
		out[o.t.instance.Name] = true
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
