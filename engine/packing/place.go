package packing

import (
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// room returns how many more pods of bucket b node n can take now, at most
// limit: resources, compatibility, and the per-node (hostname) constraints.
// Zone and capacity-type constraints are settled by the bucket's pins.
func (s *solver) room(b *bucket, n *node, limit int64) int64 {
	if !s.admits(b, n) {
		return 0
	}
	return s.roomLeft(b, n, limit)
}

// admits reports whether n's zone, capacity type and instance type (or,
// for an existing node, its labels and taints) allow b's pods at all:
// the part of room that does not change as n fills.
func (s *solver) admits(b *bucket, n *node) bool {
	if n.zone >= 0 && b.zones&(1<<n.zone) == 0 {
		return false
	}
	if n.zone < 0 && b.zones != s.allZones() {
		return false
	}
	if n.capacityType >= 0 && b.capacityTypes&(1<<n.capacityType) == 0 {
		return false
	}
	if n.claimState != nil {
		cp := s.compat(b.class, n.pool)
		return cp.reason == "" && cp.mask.has(n.typ.idx) && (cp.open == nil || n.open == nil || n.open.Overlaps(cp.open))
	}
	return s.nodeOK(b.class, n)
}

// roomLeft is room for a bucket n admits: what n's room and the per-node
// constraints leave.
func (s *solver) roomLeft(b *bucket, n *node, limit int64) int64 {
	c := b.class
	limit = min(limit, b.left())
	k := c.req.Times(&n.room, limit)
	if k == 0 {
		return 0
	}
	if c.unconstrained() {
		return k
	}
	return s.constrain(c, n, k)
}

// unconstrained reports whether constrain has nothing to check for c.
func (c *class) unconstrained() bool {
	return len(c.anti) == 0 && len(c.matches) == 0 && len(c.spreads) == 0 && len(c.affinity) == 0 && len(c.ports) == 0
}

func (s *solver) allZones() uint64 {
	var m uint64
	for z := range s.zones {
		m |= 1 << z
	}
	return m
}

// constrain caps k by the pod (anti-)affinity, hostname spread and host
// port rules on node n.
func (s *solver) constrain(c *class, n *node, k int64) int64 {
	for _, t := range c.activeTerms(c.anti) {
		g := s.groups.list[t.group]
		if s.domainCountFor(c, n, g) > 0 {
			return 0
		}
		if c.matchesGroup(t.group) {
			k = min(k, 1)
		}
	}
	for _, gid := range c.matches {
		if s.domainCarry(n, s.groups.list[gid]) > 0 {
			return 0
		}
	}
	for _, sp := range c.activeSpreads() {
		g := s.groups.list[sp.group]
		if g.key != scheduling.LabelHostname {
			continue
		}
		have := s.domainCount(n, g)
		if c.matchesGroup(sp.group) {
			k = min(k, int64(sp.maxSkew-have))
		} else if have > sp.maxSkew {
			return 0
		}
	}
	for _, gid := range c.matches {
		if skew, ok := s.hostSpread[gid]; ok {
			k = min(k, int64(skew-n.match[gid]))
		}
	}
	for _, t := range c.activeTerms(c.affinity) {
		g := s.groups.list[t.group]
		if g.key == scheduling.LabelTopologyZone {
			continue
		}
		if s.domainCountFor(c, n, g) > 0 {
			continue
		}
		// kube-scheduler's first-pod rule: with no matching pod anywhere,
		// a pod matching its own term may start the group.
		if s.totals[t.group] > 0 || !c.matchesGroup(t.group) {
			return 0
		}
	}
	if len(c.ports) > 0 {
		if state.HostPortsClash(c.ports, n.ports) {
			return 0
		}
		k = min(k, 1)
	}
	return max(k, 0)
}

// domainCountFor is domainCount for pods of c about to go on n: a new
// claim whose value of a label key is still open takes the one c's node
// terms commit it to (see labelpins.go).
func (s *solver) domainCountFor(c *class, n *node, g *group) int32 {
	if n.claimState != nil && n.labels == nil && isLabelKey(g.key) && s.domain(n, g.key) == "" {
		if v, ok := s.compat(c, n.pool).open.Label(g.key); ok {
			return s.counts[g.id][v]
		}
	}
	return s.domainCount(n, g)
}

// place puts the next k pods of b on n.
func (s *solver) place(b *bucket, n *node, k int64) {
	c := b.class
	pods := b.pods[b.next : b.next+int(k)]
	b.next += int(k)
	n.room.SubTimes(&c.req, k)
	if n.claimState != nil {
		// The open requirements first: they may decide the claim's domain
		// for a label key its pods are counted in.
		if cp := s.compat(c, n.pool); cp.open != nil {
			if n.open == nil {
				n.open = cp.open
			} else {
				n.open = n.open.Intersection(cp.open)
			}
		}
	}
	for _, gid := range c.matches {
		s.addCount(n, s.groups.list[gid], int32(k))
	}
	// Only required terms keep matching pods away (see carried).
	for _, t := range c.anti {
		if t.soft {
			continue
		}
		s.addCarry(n, s.groups.list[t.group], int32(k))
	}
	for range k {
		n.ports = append(n.ports, c.ports...)
	}
	for _, p := range pods {
		s.placed[p] = n.name
		s.podClass[p] = c
	}
	if n.claimState != nil {
		n.capacityTypes &= b.capacityTypes
		n.used.AddTimes(&c.req, k)
		n.pods = append(n.pods, pods...)
		if len(n.classes) == 0 || n.classes[len(n.classes)-1] != c {
			n.classes = append(n.classes, c)
		}
	}
}

// firstFit places what it can of b on the nodes, in order.
func (s *solver) firstFit(b *bucket, nodes []*node) {
	for _, n := range nodes {
		if b.left() == 0 {
			return
		}
		if k := s.room(b, n, b.left()); k > 0 {
			s.place(b, n, k)
		}
	}
}
