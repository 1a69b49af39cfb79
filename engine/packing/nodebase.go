package packing

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// nodeBase is an existing node or in-flight claim as every variant of a
// Solve starts from it, before its bound pods: what compileNodes copies.
type nodeBase struct {
	// proto has the name, zone, capacity type, labels, taints and
	// allocatable (as room) of the node; no pool yet.
	proto node
	pool  string
	// usage is what the node counts toward its pool's limits; counted
	// unless the node is a reservation's slot.
	usage   resources.Vector
	counted bool
	// usable nodes take pods (schedulable, not being drained);
	// initialized ones come first (see initializedFirst).
	usable, initialized bool
	// daemons are the Solve's daemonsets that run on the node (by its
	// labels and taints).
	daemons bitset
}

// nodeBases are a snapshot's nodes compiled once per Solve for its
// variants: bases in snapshot order, canon the index of the last node of
// each one's name (the one a bound pod naming it counts on, as a name
// lookup finds it), and names every node's name.
type nodeBases struct {
	list  []*nodeBase
	canon []int
	names map[string]bool
}

// compileNodeBases compiles the snapshot's nodes for the variants, taking
// each node's base from the options' cache when it holds it.
func (s *solver) compileNodeBases() {
	var memo *compiledShared
	if c := s.opts.cache; c != nil {
		memo = c.sharedFor(s)
	}
	b := &nodeBases{list: make([]*nodeBase, len(s.snap.Nodes))}
	if memo != nil {
		b.canon, b.names = memo.nodeBases(s.snap.Nodes, b.list, s.compileNodeBase)
	} else {
		for i, sn := range s.snap.Nodes {
			b.list[i] = s.compileNodeBase(sn)
		}
		b.canon, b.names = nameIndex(s.snap.Nodes)
	}
	s.bases = b
}

// nameIndex is the canonical index and the name set of nodes (see
// nodeBases).
func nameIndex(nodes []*state.Node) ([]int, map[string]bool) {
	last := make(map[string]int, len(nodes))
	for i, sn := range nodes {
		last[sn.Name] = i
	}
	canon := make([]int, len(nodes))
	names := make(map[string]bool, len(last))
	for i, sn := range nodes {
		canon[i] = last[sn.Name]
		names[sn.Name] = true
	}
	return canon, names
}

// compileNodeBase compiles one node.
func (s *solver) compileNodeBase(sn *state.Node) *nodeBase {
	b := &nodeBase{pool: sn.Pool, usable: !sn.Unschedulable && !sn.MarkedForDeletion, initialized: sn.Initialized}
	n := &b.proto
	n.name, n.zone, n.capacityType, n.labels = sn.Name, -1, capacityTypeIndex(sn.CapacityType), sn.Labels
	if z, ok := s.zoneIdx[sn.Zone]; ok && sn.Zone != "" {
		n.zone = z
	}
	n.room = s.dims.vector(sn.Allocatable)
	var pool *state.Pool
	for _, p := range s.pools {
		if p.pool.Name == sn.Pool {
			pool = p.pool
		}
	}
	for _, t := range sn.SchedulingTaints(pool) {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			n.soft = append(n.soft, t)
		} else {
			n.taints = append(n.taints, t)
		}
	}
	if pool != nil && !sn.ReservedSlot {
		b.usage, b.counted = s.dims.nodeCapacity(pool.NodeCapacity(sn)), true
	}
	if len(s.daemons) > 0 {
		b.daemons = newBitset(len(s.daemons))
		for i, dm := range s.daemons {
			if dm.runsOnLabels(sn.Labels, n.taints) {
				b.daemons.set(i)
			}
		}
	}
	return b
}

// nodeBases fills out with the cached bases of nodes, compiling those it
// lacks. The bases depend on the entry's resources, zones, pools and
// daemonsets, which is why they are kept with it.
//
// It returns nameIndex(nodes), kept for the last list of names: the
// Solves of one plan name the same nodes, draining different ones. The
// callers only read them.
func (e *compiledShared) nodeBases(nodes []*state.Node, out []*nodeBase, compile func(*state.Node) *nodeBase) ([]int, map[string]bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !slices.EqualFunc(e.names, nodes, func(name string, n *state.Node) bool { return name == n.Name }) {
		e.names = make([]string, len(nodes))
		for i, n := range nodes {
			e.names[i] = n.Name
		}
		e.canon, e.nameSet = nameIndex(nodes)
	}
	if e.nodes == nil || len(e.nodes)+len(nodes) > maxCachedNodes {
		e.nodes = make(map[*state.Node]*nodeBase, len(nodes))
	}
	for i, sn := range nodes {
		b, ok := e.nodes[sn]
		if !ok {
			b = compile(sn)
			e.nodes[sn] = b
		}
		out[i] = b
	}
	return e.canon, e.nameSet
}

// maxCachedNodes caps the node bases one cache entry keeps; beyond, it
// starts afresh (a plan drains copies of nodes, and keeps them).
const maxCachedNodes = 1 << 16

// compileNodes builds the existing nodes and in-flight claims that can take
// pods, with what their bound pods use, from the Solve's node bases
// (compiled here when the solver has none yet).
func (s *solver) compileNodes(pending map[string]bool) {
	poolByName := map[string]*poolPlan{}
	for _, p := range s.pools {
		poolByName[p.pool.Name] = p
	}
	if s.bases == nil {
		s.compileNodeBases()
	}
	bases := s.bases
	s.nodeNames = bases.names
	slab := make([]node, len(bases.list))
	all := make([]*node, len(bases.list))
	initialized := make([]bool, 0, len(bases.list))
	s.nodes = make([]*node, 0, len(bases.list))
	for i, b := range bases.list {
		n := &slab[i]
		*n = b.proto
		n.pool = poolByName[b.pool]
		if n.pool != nil && b.counted {
			n.pool.usage = n.pool.usage.Add(b.usage)
		}
		all[i] = n
		if b.usable {
			s.nodes = append(s.nodes, n)
			initialized = append(initialized, b.initialized)
		}
	}
	s.initializedFirst(initialized)
	var present [][]daemonRef
	if s.opts.cache != nil {
		present = s.loadNodes(all, bases.canon, pending, s.opts.cache.loadsFor(s))
	} else {
		present = s.loadBound(all, bases.canon, pending)
	}
	s.reserveDaemons(all, bases, present)
}
