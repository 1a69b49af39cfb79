package packing

import (
	"fmt"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// reasonFor explains why pods of c could not be placed, naming each pool's
// obstacle.
func (s *solver) reasonFor(c *class) string {
	if c.invalid != "" {
		return "invalid pod spec: " + c.invalid
	}
	if len(s.pools) == 0 {
		return "no nodepool exists and no existing node can take the pod; create a NodePool"
	}
	var reasons []string
	for _, p := range s.pools {
		reasons = append(reasons, s.poolReason(c, p))
	}
	if len(reasons) == 1 {
		return reasons[0]
	}
	return "no nodepool matches: " + strings.Join(reasons, "; ")
}

func (s *solver) poolReason(c *class, p *poolPlan) string {
	cp := s.compat(c, p)
	if cp.reason != "" {
		return cp.reason
	}
	if r := s.limitReason(c, p, cp); r != "" {
		return r
	}
	return s.constraintReason(c, p)
}

// limitReason names the limit that stops every type fitting c, or "".
func (s *solver) limitReason(c *class, p *poolPlan, cp *compat) string {
	var blocked *poolType
	for _, t := range p.types {
		if !cp.mask.has(t.idx) || !c.req.Fits(t.alloc) || !t.offered(cp.zoneMask, cp.capacityTypeMask) {
			continue
		}
		if p.withinLimits(t.capacity) {
			return ""
		}
		if blocked == nil || t.cheapest < blocked.cheapest {
			blocked = t
		}
	}
	if blocked == nil {
		return ""
	}
	for d := range resources.MaxDims {
		if p.limited[d] && p.usage[d]+blocked.capacity[d] > p.limits[d] {
			return fmt.Sprintf("nodepool %q limit %s=%s reached (%s in use)", p.pool.Name, s.dims.names[d], s.dims.format(d, p.limits[d]), s.dims.format(d, p.usage[d]))
		}
	}
	return ""
}

// constraintReason explains a class that fits a pool's types but whose pod
// constraints left no node.
func (s *solver) constraintReason(c *class, p *poolPlan) string {
	for _, t := range c.activeTerms(c.affinity) {
		g := s.groups.list[t.group]
		if s.totals[t.group] == 0 && !c.matchesGroup(t.group) {
			return fmt.Sprintf("required pod affinity on %s: no pod matches %s; create the pods it needs first", g.key, g.sel)
		}
	}
	var parts []string
	for _, t := range c.activeTerms(c.anti) {
		parts = append(parts, "pod anti-affinity on "+s.groups.list[t.group].key)
	}
	for _, t := range c.activeTerms(c.affinity) {
		parts = append(parts, "pod affinity on "+s.groups.list[t.group].key)
	}
	for _, sp := range c.activeSpreads() {
		parts = append(parts, fmt.Sprintf("topology spread on %s (maxSkew %d)", s.groups.list[sp.group].key, sp.maxSkew))
	}
	if len(c.ports) > 0 {
		parts = append(parts, "host ports")
	}
	var others []string
	for _, gid := range c.matches {
		if g := s.groups.list[gid]; s.anyCarrier(gid) {
			others = append(others, fmt.Sprintf("required pod anti-affinity on %s of other pods, which keeps pods matching %s out of their %s", g.key, g.sel, g.key))
		}
	}
	switch {
	case len(parts) == 0 && len(others) > 0:
		return fmt.Sprintf("nodepool %q: the %s leaves no node for the pod; relax that anti-affinity or change the pod's labels", p.pool.Name, strings.Join(others, ", "))
	case len(parts) == 0:
		return fmt.Sprintf("nodepool %q: no node it can launch, in the zones and capacity types left to the pod, has room for it within the pool's limits; raise the limits or allow more zones", p.pool.Name)
	case len(others) > 0:
		parts = append(parts, others...)
	}
	return fmt.Sprintf("nodepool %q: the pod's %s leave no node for it; relax one of them or add capacity where they allow", p.pool.Name, strings.Join(parts, ", "))
}

// anyCarrier reports whether some placed or bound pod carries a required
// anti-affinity term on group g.
func (s *solver) anyCarrier(g int) bool {
	for _, k := range s.carriers[g] {
		if k > 0 {
			return true
		}
	}
	for _, n := range s.nodes {
		if n.carry[g] > 0 {
			return true
		}
	}
	for _, n := range s.claims {
		if n.carry[g] > 0 {
			return true
		}
	}
	return false
}

// isHostname reports whether key is the per-node topology key.
func isHostname(key string) bool { return key == scheduling.LabelHostname }
