package packing

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// compat is whether a class can use a pool's new nodes, and how.
type compat struct {
	// reason is why not; "" when it can.
	reason           string
	term             scheduling.Requirements
	mask             bitset
	zoneMask         uint64
	capacityTypeMask uint8
	// open is the part of term on keys the pool's requirements leave open
	// (more than one value, no template label, not a well-known label): a
	// new node commits to one value, so pods sharing it must agree.
	open scheduling.Requirements
}

// effectiveTerms are the class's node terms with its heaviest preferred
// node affinity term added while the class is not relaxed. As in
// Karpenter, only that one term is enforced; relax drops it for the next
// heaviest. (All terms at once would ask for a node matching every
// preference, which two preferences for different zones make impossible.)
func (c *class) effectiveTerms() []scheduling.Requirements {
	if c.relaxed || len(c.preferred) == 0 {
		return c.terms
	}
	out := make([]scheduling.Requirements, len(c.terms))
	for i, t := range c.terms {
		out[i] = t.Intersection(c.preferred[0].Requirements)
	}
	return out
}

// compat returns (and caches) whether class c can use pool p.
func (s *solver) compat(c *class, p *poolPlan) *compat {
	for len(s.compats) <= c.id {
		s.compats = append(s.compats, make([]*compat, len(s.pools)))
	}
	if cp := s.compats[c.id][p.idx]; cp != nil {
		return cp
	}
	cp := s.computeCompat(c, p)
	s.compats[c.id][p.idx] = cp
	return cp
}

func (s *solver) computeCompat(c *class, p *poolPlan) *compat {
	if c.invalid != "" {
		return &compat{reason: c.invalid}
	}
	if p.pool.Static() {
		return &compat{reason: fmt.Sprintf("nodepool %q is static (replicas %d): it keeps that many nodes and launches none for pending pods; raise its replicas or add a NodePool without replicas", p.pool.Name, *p.pool.Replicas)}
	}
	if len(p.types) == 0 {
		return &compat{reason: fmt.Sprintf("nodepool %q has no instance type with a price that its requirements allow", p.pool.Name)}
	}
	if err := p.taints.ToleratesPod(c.tolerations); err != nil {
		return &compat{reason: taintReason(p, err)}
	}
	if !c.relaxed {
		if err := hardened(p.soft).ToleratesPod(c.tolerations); err != nil {
			return &compat{reason: taintReason(p, err) + " (PreferNoSchedule)"}
		}
	}
	var first string
	for _, term := range c.effectiveTerms() {
		cp, reason := s.termCompat(c, p, term)
		if cp != nil {
			return cp
		}
		if first == "" {
			first = reason
		}
	}
	return &compat{reason: first}
}

func (s *solver) termCompat(c *class, p *poolPlan, term scheduling.Requirements) (*compat, string) {
	if err := p.pool.Requirements.Compatible(term, scheduling.WithAllowUndefinedWellKnownLabels()); err != nil {
		return nil, s.requirementReason(p, term, err)
	}
	cp := &compat{term: term}
	zoneReq, ctReq := term.Get(scheduling.LabelTopologyZone), term.Get(scheduling.LabelCapacityType)
	for z, name := range s.zones {
		if p.zoneMask&(1<<z) != 0 && zoneReq.Has(name) {
			cp.zoneMask |= 1 << z
		}
	}
	for ct := range numCapacityTypes {
		if p.capacityTypeMask&(1<<ct) != 0 && ctReq.Has(capacityTypeNames[ct]) {
			cp.capacityTypeMask |= 1 << ct
		}
	}
	if cp.zoneMask == 0 {
		return nil, fmt.Sprintf("pod requires zone %s; nodepool %q allows only %s", describeValues(zoneReq), p.pool.Name, strings.Join(s.maskZones(p.zoneMask), ", "))
	}
	if cp.capacityTypeMask == 0 {
		return nil, fmt.Sprintf("pod requires capacity type %s; nodepool %q allows only %s", describeValues(ctReq), p.pool.Name, strings.Join(capacityTypeList(p.capacityTypeMask), ", "))
	}
	cp.mask = p.typeMask(term)
	cp.open = openPart(p, term)
	if len(c.ports) > 0 {
		var reason string
		if cp.mask, reason = s.withoutPortClashes(p, cp.mask, c.ports); reason != "" {
			return nil, reason
		}
	}
	for _, key := range s.topologyKeys(c) {
		var reason string
		if cp.mask, reason = s.withKey(p, cp.mask, key); reason != "" {
			return nil, reason
		}
	}
	// Last, so exotic types stay when the filters above left no ordinary
	// one for the class.
	cp.mask = withoutExotic(c, p, term, cp.mask)
	if reason := s.fitReason(c, p, cp); reason != "" {
		return nil, reason
	}
	return cp, ""
}

// withoutPortClashes returns mask less the types on which a daemonset that
// may run there uses one of ports (kube-scheduler's NodePorts filter), and
// a reason when no type is left.
func (s *solver) withoutPortClashes(p *poolPlan, mask bitset, ports []state.HostPort) (bitset, string) {
	var out bitset
	var clash []string
	left := false
	for _, t := range p.types {
		if !mask.has(t.idx) {
			continue
		}
		if !state.HostPortsClash(ports, t.daemonPorts) {
			left = true
			continue
		}
		if out == nil {
			out = slices.Clone(mask)
		}
		out[t.idx/64] &^= 1 << (t.idx % 64)
		for _, i := range t.portDaemons {
			if dm := s.daemons[i]; !slices.Contains(clash, dm.name) && state.HostPortsClash(ports, dm.ports) {
				clash = append(clash, dm.name)
			}
		}
	}
	if out == nil {
		return mask, ""
	}
	if !left {
		return out, fmt.Sprintf("the pod's host ports are taken by daemonset %s on every node nodepool %q can launch; use another hostPort or keep the daemonset off the pool's nodes", strings.Join(clash, ", "), p.pool.Name)
	}
	return out, ""
}

// openPart returns the requirements of term on the keys pool p leaves
// open, intersected with the pool's, or nil.
func openPart(p *poolPlan, term scheduling.Requirements) scheduling.Requirements {
	var out scheduling.Requirements
	for key, r := range term {
		if scheduling.IsWellKnownLabel(key) {
			continue
		}
		if _, set := p.pool.Labels[key]; set {
			continue
		}
		if _, pinned := p.pool.Requirements.Label(key); pinned {
			continue
		}
		if out == nil {
			out = scheduling.Requirements{}
		}
		if p.pool.Requirements.Has(key) {
			r = r.Intersection(p.pool.Requirements.Get(key))
		}
		out.Add(r)
	}
	return out
}

// topologyKeys are the keys of c's DoNotSchedule topology spreads and
// required pod affinity terms other than hostname, zone and capacity type
// (which every node carries): kube-scheduler leaves the pod off a node
// without the key.
func (s *solver) topologyKeys(c *class) []string {
	var out []string
	add := func(g int) {
		key := s.groups.list[g].key
		if key != scheduling.LabelHostname && key != scheduling.LabelTopologyZone && key != scheduling.LabelCapacityType && !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	for _, sp := range c.spreads {
		if !sp.soft {
			add(sp.group)
		}
	}
	for _, t := range c.affinity {
		if !t.soft {
			add(t.group)
		}
	}
	return out
}

// withKey returns mask less the types whose nodes would not carry label
// key, and a reason when no type is left. A node of the pool carries key
// when the pool's labels set it, its requirements allow a value (the
// node commits to one), or the type's labels have it.
func (s *solver) withKey(p *poolPlan, mask bitset, key string) (bitset, string) {
	if _, ok := p.pool.Labels[key]; ok {
		return mask, ""
	}
	if _, ok := p.pool.Requirements.Get(key).Any(); ok && p.pool.Requirements.Has(key) {
		return mask, ""
	}
	var out bitset
	left := false
	for _, t := range p.types {
		if !mask.has(t.idx) {
			continue
		}
		if _, ok := t.instance.Requirements.Label(key); ok {
			left = true
			continue
		}
		if out == nil {
			out = slices.Clone(mask)
		}
		out[t.idx/64] &^= 1 << (t.idx % 64)
	}
	if out == nil {
		return mask, ""
	}
	if !left {
		return out, fmt.Sprintf("topology key %s is unknown: no node nodepool %q can launch carries the label, and kube-scheduler keeps a pod whose DoNotSchedule topology spread or required pod affinity names a key off nodes without it; add %s to the pool's labels or requirements, or use a key its nodes carry", key, p.pool.Name, key)
	}
	return out, ""
}

// offered reports whether t has an offering in the masks.
func (t *poolType) offered(zones uint64, capacityTypes uint8) bool {
	for z := range 64 {
		if zones&(1<<z) == 0 {
			continue
		}
		if z*numCapacityTypes >= len(t.price) {
			break
		}
		for ct := range numCapacityTypes {
			if capacityTypes&(1<<ct) != 0 && t.price[z*numCapacityTypes+ct] > 0 {
				return true
			}
		}
	}
	return false
}

// fitReason returns "" when some allowed type fits one pod of c, else what
// is missing, naming the largest allowed type.
func (s *solver) fitReason(c *class, p *poolPlan, cp *compat) string {
	var best [resources.MaxDims]*poolType
	allowed := false
	for _, t := range p.types {
		if !cp.mask.has(t.idx) || !t.offered(cp.zoneMask, cp.capacityTypeMask) {
			continue
		}
		allowed = true
		if c.req.Fits(t.alloc) {
			return ""
		}
		for d := range resources.MaxDims {
			if best[d] == nil || t.alloc[d] > best[d].alloc[d] || (t.alloc[d] == best[d].alloc[d] && t.alloc[resources.CPU] > best[d].alloc[resources.CPU]) {
				best[d] = t
			}
		}
	}
	if !allowed {
		return fmt.Sprintf("no instance type allowed by nodepool %q matches the pod's node requirements %s", p.pool.Name, cp.term)
	}
	for d := range len(s.dims.names) {
		if t := best[d]; t != nil && c.req[d] > t.alloc[d] {
			return fmt.Sprintf("no instance type allowed by nodepool %q has %s %s; the largest allowed, %s, has %s",
				p.pool.Name, s.dims.format(d, c.req[d]), s.dims.names[d], t.instance.Name, s.dims.format(d, max(t.alloc[d], 0)))
		}
	}
	return fmt.Sprintf("no instance type allowed by nodepool %q fits the pod's requests %s together (after daemonset overhead)", p.pool.Name, s.formatVec(c.req))
}

func (s *solver) formatVec(v resources.Vector) string {
	var parts []string
	for d, name := range s.dims.names {
		if v[d] != 0 && d != resources.Pods {
			parts = append(parts, fmt.Sprintf("%s=%s", name, s.dims.format(d, v[d])))
		}
	}
	return strings.Join(parts, ", ")
}

// requirementReason turns a Compatible error into a sentence naming the pool.
func (s *solver) requirementReason(p *poolPlan, term scheduling.Requirements, err error) string {
	if zr, ok := term[scheduling.LabelTopologyZone]; ok {
		if pz := p.pool.Requirements.Get(scheduling.LabelTopologyZone); !zoneOverlap(zr, pz, s.zones) {
			return fmt.Sprintf("pod requires zone %s; nodepool %q allows only %s", describeValues(zr), p.pool.Name, strings.Join(s.maskZones(p.zoneMask), ", "))
		}
	}
	return fmt.Sprintf("nodepool %q does not match the pod's node requirements: %v", p.pool.Name, strings.ReplaceAll(err.Error(), "\n", "; "))
}

func zoneOverlap(a, b scheduling.Requirement, zones []string) bool {
	for _, z := range zones {
		if a.Has(z) && b.Has(z) {
			return true
		}
	}
	return false
}

func describeValues(r scheduling.Requirement) string {
	if vs := r.Values(); vs != nil {
		return strings.Join(vs, ", ")
	}
	return r.String()
}

func (s *solver) maskZones(mask uint64) []string {
	var out []string
	for z, name := range s.zones {
		if mask&(1<<z) != 0 {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		out = []string{"none"}
	}
	return out
}

func capacityTypeList(mask uint8) []string {
	var out []string
	for ct := range numCapacityTypes {
		if mask&(1<<ct) != 0 {
			out = append(out, capacityTypeNames[ct])
		}
	}
	if len(out) == 0 {
		out = []string{"none"}
	}
	return out
}

// taintReason names the pool in the error of an untolerated taint.
func taintReason(p *poolPlan, err error) string {
	return strings.Replace(err.Error(), " is not tolerated", fmt.Sprintf(" of nodepool %q is not tolerated", p.pool.Name), 1)
}

// hardened returns PreferNoSchedule taints as NoSchedule, to test whether a
// pod tolerates them.
func hardened(ts scheduling.Taints) scheduling.Taints {
	out := make(scheduling.Taints, len(ts))
	for i, t := range ts {
		t.Effect = corev1.TaintEffectNoSchedule
		out[i] = t
	}
	return out
}

// nodeOK reports (and caches) whether class c may run on existing node n
// by its labels and taints.
func (s *solver) nodeOK(c *class, n *node) bool {
	if c.id < len(n.classOK) && n.classOK[c.id] != 0 {
		return n.classOK[c.id] == 1
	}
	ok := s.computeNodeOK(c, n)
	for len(n.classOK) <= c.id {
		n.classOK = append(n.classOK, 0)
	}
	n.classOK[c.id] = 2
	if ok {
		n.classOK[c.id] = 1
	}
	return ok
}

func (s *solver) computeNodeOK(c *class, n *node) bool {
	if c.invalid != "" || n.taints.ToleratesPod(c.tolerations) != nil {
		return false
	}
	if !c.relaxed && hardened(n.soft).ToleratesPod(c.tolerations) != nil {
		return false
	}
	for _, key := range s.topologyKeys(c) {
		if _, ok := n.labels[key]; !ok {
			return false
		}
	}
	for _, term := range c.effectiveTerms() {
		if term.SatisfiedBy(n.labels) {
			return true
		}
	}
	return false
}
