package packing

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// solver holds one Solve's compiled input and its evolving state.
type solver struct {
	ctx     context.Context
	opts    options
	snap    *state.Snapshot
	dims    *dims
	daemons []daemon
	zones   []string
	zoneIdx map[string]int
	groups  groups
	classes []*class
	pools   []*poolPlan
	// exoticMay are, per pool, the exotic types the lower bound keeps
	// (see setExoticMay); nil for a pool without exotic types.
	exoticMay []bitset
	// nodes are the existing nodes and in-flight claims that can take pods.
	nodes []*node
	// initialized counts the nodes at the head of nodes that are
	// initialized (see initializedFirst).
	initialized int
	// nodeNames are the names of every node and in-flight claim.
	nodeNames map[string]bool
	// bases are the snapshot's nodes as every variant starts from them.
	bases  *nodeBases
	claims []*node
	// counts and carriers are, per group, the pods matching it and the
	// pods carrying an anti-affinity term on it, per domain value.
	counts   []map[string]int32
	carriers []map[string]int32
	totals   []int32
	// compats caches class × pool compatibility, by class id then pool.
	compats [][]*compat
	// hostSpread is, per hostname group some pending class spreads on, the
	// smallest maxSkew: every pod matching the group is capped by it.
	hostSpread map[int]int32
	// placed is the node or claim of each pending pod placed.
	placed   map[*state.Pod]string
	podClass map[*state.Pod]*class
	reasons  map[string]string
	// planStarts shares plans' first column generation between the
	// strategies of a Solve (see planStarts).
	planStarts *planStarts
}

// node is an existing node, an in-flight claim or a new claim.
type node struct {
	name         string
	pool         *poolPlan
	zone         int
	capacityType int
	labels       map[string]string
	taints       scheduling.Taints
	soft         scheduling.Taints
	room         resources.Vector
	// match and carry count, per group, the pods on the node matching it
	// and carrying an anti-affinity term on it.
	match map[int]int32
	carry map[int]int32
	ports []state.HostPort
	// ok caches class compatibility of existing nodes: 0 unknown, 1 yes,
	// 2 no.
	classOK []int8
	*claimState
}

// claimState is what a new claim carries beyond a node.
type claimState struct {
	typ           *poolType
	capacityTypes uint8
	used          resources.Vector
	pods          []*state.Pod
	classes       []*class
	// open is the intersection of the open requirements (compat.open) of
	// the classes placed on the claim, nil when none has any.
	open scheduling.Requirements
	// dropped is set when finalize gave the claim's pods back.
	dropped bool
	// final is what finalize decided for a claim it kept.
	final *finalOffers
}

func newSolver(ctx context.Context, snap *state.Snapshot, opts options) *solver {
	return &solver{
		ctx:       ctx,
		opts:      opts,
		snap:      snap,
		dims:      newDims(),
		zoneIdx:   map[string]int{},
		groups:    groups{bySig: map[string]int{}},
		placed:    map[*state.Pod]string{},
		podClass:  map[*state.Pod]*class{},
		reasons:   map[string]string{},
		nodeNames: map[string]bool{},
	}
}

// compileZones collects the zones of every offering and node, sorted.
func (s *solver) compileZones() {
	set := map[string]bool{}
	for _, p := range s.snap.Pools {
		for _, it := range p.InstanceTypes {
			for _, o := range it.Offerings {
				set[o.Zone] = true
			}
		}
	}
	for _, n := range s.snap.Nodes {
		if n.Zone != "" {
			set[n.Zone] = true
		}
	}
	for z := range set {
		s.zones = append(s.zones, z)
	}
	slices.Sort(s.zones)
	if len(s.zones) > 64 {
		s.zones = s.zones[:64]
	}
	for i, z := range s.zones {
		s.zoneIdx[z] = i
	}
}

// domain returns the value of a node for a topology key.
func (s *solver) domain(n *node, key string) string {
	switch key {
	case scheduling.LabelTopologyZone:
		if n.zone >= 0 {
			return s.zones[n.zone]
		}
	case scheduling.LabelCapacityType:
		if n.capacityType >= 0 {
			return capacityTypeNames[n.capacityType]
		}
	case scheduling.LabelHostname:
		return n.name
	}
	if n.claimState != nil && n.labels == nil {
		return n.claimLabel(key)
	}
	return scheduling.TopologyDomain(key, n.name, n.labels)
}

// claimLabel is the value of label key a new claim's node will carry, as
// far as it is decided: the pool's label or single-valued requirement,
// the value the claim's pods committed it to, or its type's label.
func (n *node) claimLabel(key string) string {
	p := n.pool.pool
	if v, ok := p.Labels[key]; ok {
		return v
	}
	if v, ok := p.Requirements.Label(key); ok {
		return v
	}
	if v, ok := n.open.Label(key); ok {
		return v
	}
	if n.typ != nil {
		if v, ok := n.typ.instance.Requirements.Label(key); ok {
			return v
		}
	}
	return ""
}

// loadBound takes from each node what its bound pods that are not pending
// request, and returns the daemonsets with a pod on each node, by index in
// all.
func (s *solver) loadBound(all []*node, canon []int, pending map[string]bool) [][]daemonRef {
	byName := make(map[string]int, len(all))
	for i, n := range all {
		byName[n.name] = canon[i]
	}
	present := make([][]daemonRef, len(all))
	var buf []byte
	for _, p := range s.snap.Pods {
		i, ok := byName[p.NodeName]
		if !ok || hasKey(pending, p, &buf) {
			continue
		}
		n := all[i]
		n.room = n.room.Sub(s.dims.podVector(p.Requests))
		n.ports = append(n.ports, p.HostPorts...)
		if p.DaemonSet {
			present[i] = append(present[i], daemonRef{p.Namespace, p.Owner.Name})
		}
		s.countExisting(n, p)
	}
	return present
}

// reserveDaemons takes from every existing node and in-flight claim the
// requests and host ports of each daemonset that runs there but has no pod
// bound to it yet (present lists those with one, by node index), as Karpenter
// does: a node just registered (or a claim not yet launched) gets its
// daemonset pods soon, and a plan that filled their room would overcommit
// it.
func (s *solver) reserveDaemons(all []*node, bases *nodeBases, present [][]daemonRef) {
	if len(s.daemons) == 0 {
		return
	}
	for i, sn := range s.snap.Nodes {
		// A node's base knows which daemonsets run there, unless another
		// node of its name comes later (whose taints then count).
		n, own := all[bases.canon[i]], bases.canon[i] == i
		for d, dm := range s.daemons {
			if own && !bases.list[i].daemons.has(d) || !own && !dm.runsOnLabels(sn.Labels, n.taints) {
				continue
			}
			if slices.Contains(present[bases.canon[i]], daemonRef{dm.namespace, dm.dsName}) {
				continue
			}
			n.room = n.room.Sub(dm.req)
			n.ports = append(n.ports, dm.ports...)
		}
	}
}

// hasKey reports whether set holds the pod's key, building the key in buf
// rather than allocating it (compiling a cluster looks up every bound pod).
func hasKey(set map[string]bool, p *state.Pod, buf *[]byte) bool {
	if len(set) == 0 {
		return false
	}
	*buf = append(append(append((*buf)[:0], p.Namespace...), '/'), p.Name...)
	return set[string(*buf)]
}

// initializedFirst orders the usable nodes initialized ones first (each
// part in snapshot order), as Karpenter's scheduler does: an initialized
// node is one kube-scheduler can bind to now, while an uninitialized node
// or an in-flight claim takes pods only once it is ready. initialized
// holds each node's flag in s.nodes' order.
func (s *solver) initializedFirst(initialized []bool) {
	s.initialized = 0
	for _, ok := range initialized {
		if ok {
			s.initialized++
		}
	}
	if s.initialized == 0 || s.initialized == len(initialized) {
		return
	}
	ordered := make([]*node, 0, len(s.nodes))
	for _, want := range []bool{true, false} {
		for i, n := range s.nodes {
			if initialized[i] == want {
				ordered = append(ordered, n)
			}
		}
	}
	s.nodes = ordered
}

// internExistingTerms adds the groups of bound pods' required anti-affinity
// terms, which pending pods must respect too.
func (s *solver) internExistingTerms(pending map[string]bool) {
	var buf []byte
	for _, p := range s.snap.Pods {
		if p.NodeName == "" || p.Affinity == nil || p.Affinity.PodAntiAffinity == nil || hasKey(pending, p, &buf) {
			continue
		}
		for _, term := range p.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if sel, err := scheduling.AffinityTermSelector(term, p.Namespace, p.Labels); err == nil {
				s.groups.intern(scheduling.NormalizeLabelKey(term.TopologyKey), sel)
			}
		}
	}
}

// countExisting adds a bound pod to the group counts; a terminating pod
// only to the groups of pod (anti-)affinity terms.
func (s *solver) countExisting(n *node, p *state.Pod) {
	for _, g := range s.groups.list {
		if g.spread && p.Terminating {
			continue
		}
		if g.sel.Matches(p.Namespace, p.Labels) {
			s.addCount(n, g, 1)
		}
	}
	if p.Affinity == nil || p.Affinity.PodAntiAffinity == nil {
		return
	}
	for _, term := range p.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, err := scheduling.AffinityTermSelector(term, p.Namespace, p.Labels)
		if err != nil {
			continue
		}
		if id, ok := s.groups.bySig[scheduling.NormalizeLabelKey(term.TopologyKey)+"#"+sel.String()]; ok {
			s.addCarry(n, s.groups.list[id], 1)
		}
	}
}

// bumpMatch and bumpCarry change a node's per-group counts, allocating
// the map on first use: most nodes never need one.
func (n *node) bumpMatch(g int, k int32) {
	if n.match == nil {
		n.match = map[int]int32{}
	}
	n.match[g] += k
}

func (n *node) bumpCarry(g int, k int32) {
	if n.carry == nil {
		n.carry = map[int]int32{}
	}
	n.carry[g] += k
}

func (s *solver) addCount(n *node, g *group, k int32) {
	n.bumpMatch(g.id, k)
	s.totals[g.id] += k
	if g.key != scheduling.LabelHostname {
		if d := s.domain(n, g.key); d != "" {
			s.counts[g.id][d] += k
		}
	}
}

func (s *solver) addCarry(n *node, g *group, k int32) {
	n.bumpCarry(g.id, k)
	if g.key != scheduling.LabelHostname {
		if d := s.domain(n, g.key); d != "" {
			s.carriers[g.id][d] += k
		}
	}
}

// domainCount returns the pods matching g in n's domain.
func (s *solver) domainCount(n *node, g *group) int32 {
	if g.key == scheduling.LabelHostname {
		return n.match[g.id]
	}
	d := s.domain(n, g.key)
	if d == "" {
		return 0
	}
	return s.counts[g.id][d]
}

func (s *solver) domainCarry(n *node, g *group) int32 {
	if g.key == scheduling.LabelHostname {
		return n.carry[g.id]
	}
	d := s.domain(n, g.key)
	if d == "" {
		return 0
	}
	return s.carriers[g.id][d]
}

// internDims interns the resources the pods and daemonsets request, in an
// order that depends only on them.
func (s *solver) internDims(pods []*state.Pod) error {
	for _, p := range pods {
		if err := s.dims.intern(p.Requests); err != nil {
			return err
		}
	}
	for _, ds := range s.snap.DaemonSets {
		if ds.Pod != nil {
			if err := s.dims.intern(ds.Pod.Requests); err != nil {
				return err
			}
		}
	}
	// A limit on the number of nodes is a dimension every node has one
	// of (and no pod requests), only when some pool sets one.
	for _, p := range s.snap.Pools {
		if _, ok := p.Limits[state.ResourceNodes]; ok {
			return s.dims.intern(corev1.ResourceList{state.ResourceNodes: resource.MustParse("1")})
		}
	}
	return nil
}

// classify groups pending pods into classes, in the order of their first
// pod.
func (s *solver) classify(pods []*state.Pod) error {
	return s.classifyAs(pods, partitionPods(pods))
}

// classifyAs builds the classes of a partition partitionPods made of pods.
func (s *solver) classifyAs(pods []*state.Pod, part partition) error {
	if err := s.internDims(pods); err != nil {
		return err
	}
	for i, p := range pods {
		ci := part.of[i]
		if ci == len(s.classes) {
			s.classes = append(s.classes, newClass(ci, p, s.dims, &s.groups))
		}
		c := s.classes[ci]
		c.pods = append(c.pods, p)
	}
	return nil
}

// partition is which class each pod belongs to: of[i] for pods[i],
// numbered in the order of the classes' first pods. Solve computes it once
// for every variant: printing each pod's class key is the costly part of
// classifying.
type partition struct {
	of []int
}

// partitionPods puts pods that schedule identically (see classKey) in one
// class.
func partitionPods(pods []*state.Pod) partition {
	return partitionCached(pods, nil)
}

// partitionCached is partitionPods taking the pods' class keys from c
// where it holds them, and keeping the others there (nil: no cache).
func partitionCached(pods []*state.Pod, c *Cache) partition {
	byKey := map[string]int{}
	var b []byte
	kc := &keyCache{affinity: map[*corev1.Affinity]string{}, spread: map[*corev1.TopologySpreadConstraint]string{}}
	part := partition{of: make([]int, len(pods))}
	keys := c.classKeys(len(pods))
	if c != nil {
		defer c.keysMu.Unlock()
	}
	for i, p := range pods {
		key, ok := keys[p]
		if !ok {
			b = classKey(b[:0], kc, p)
			if keys == nil {
				// Looking the bytes up as a string allocates nothing;
				// only a new class's key is kept.
				ci, ok := byKey[string(b)]
				if !ok {
					ci = len(byKey)
					byKey[string(b)] = ci
				}
				part.of[i] = ci
				continue
			}
			key = string(b)
			keys[p] = key
		}
		ci, ok := byKey[key]
		if !ok {
			ci = len(byKey)
			byKey[key] = ci
		}
		part.of[i] = ci
	}
	return part
}

// matchClasses sets which groups select each class, once every group is
// known.
func (s *solver) matchClasses() {
	for _, c := range s.classes {
		c.matches = c.matches[:0]
		for _, g := range s.groups.list {
			if g.sel.Matches(c.namespace, c.labels) {
				c.matches = append(c.matches, g.id)
			}
		}
	}
	n := len(s.groups.list)
	s.counts = make([]map[string]int32, n)
	s.carriers = make([]map[string]int32, n)
	s.totals = make([]int32, n)
	for i := range n {
		s.counts[i] = map[string]int32{}
		s.carriers[i] = map[string]int32{}
	}
}

func (c *class) matchesGroup(g int) bool { return slices.Contains(c.matches, g) }
