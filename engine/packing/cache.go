package packing

import (
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Cache keeps what Solve compiles from a cluster for later Solves of the
// same cluster: the pools' instance types (prices, allocatable less the
// daemonsets' overhead, offerings sorted, LP columns) and the daemonsets,
// each node as compiled, what the bound pods take from each node, and the
// key of each pod's scheduling class. Consolidation packs the
// pods of one set of nodes after another against one cluster, each time
// with a few nodes drained; without a cache every such Solve compiles
// about a thousand instance types and walks every bound pod again, which
// at 2,000 nodes costs more than placing the evicted pods.
//
// The result of a Solve is the same with a cache as without (TestCache).
// Entries are found by the identity of the snapshot's pools, daemonsets
// and pod list (and by the resources and zones the Solve uses), so a
// Cache may serve Solves of different snapshots, as long as no snapshot,
// pool, daemonset, node or pod is changed once passed to Solve (the
// engine treats them as values). A Cache is safe for concurrent use and
// keeps a few entries of each kind, the most recently added.
type Cache struct {
	mu     sync.Mutex
	shared []*compiledShared
	loads  []*boundLoads
	// keys are pods' class keys (classKey), guarded by keysMu.
	keysMu sync.Mutex
	keys   map[*state.Pod]string
}

// maxClassKeys caps the class keys a cache keeps; beyond, it starts
// afresh.
const maxClassKeys = 1 << 18

// classKeys locks the cache's class keys for a partition of n pods and
// returns them (nil and no lock for a nil cache); the caller unlocks
// keysMu.
func (c *Cache) classKeys(n int) map[*state.Pod]string {
	if c == nil {
		return nil
	}
	c.keysMu.Lock()
	if c.keys == nil || len(c.keys)+n > maxClassKeys {
		c.keys = make(map[*state.Pod]string, n)
	}
	return c.keys
}

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{} }

// WithCache makes Solve reuse and fill c (see Cache).
func WithCache(c *Cache) Option {
	return func(o *options) { o.cache = c }
}

// cacheEntries is how many entries of each kind a Cache keeps: a plan
// works on one cluster at a time, and a walk follows a few.
const cacheEntries = 4

// compiledShared is what compileShared made of a snapshot's pools and
// daemonsets for one set of resources and zones. Its pools are shared
// read-only by every Solve that takes them (share copies their per-Solve
// state), with their LP columns.
type compiledShared struct {
	// mu guards nodes, the bases of the nodes Solves compiled against
	// this entry, and the name index of the last node list (nodebase.go).
	mu         sync.Mutex
	nodes      map[*state.Node]*nodeBase
	names      []string
	canon      []int
	nameSet    map[string]bool
	dims       []corev1.ResourceName
	zones      []string
	pools      []*state.Pool
	daemonSets []*state.DaemonSet
	zoneIdx    map[string]int
	daemons    []daemon
	plans      []*poolPlan
}

// sharedFor returns the compiled pools and daemonsets matching s's
// snapshot, resources and zones, or nil.
func (c *Cache) sharedFor(s *solver) *compiledShared {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.shared {
		if slices.Equal(e.dims, s.dims.names) && slices.Equal(e.zones, s.zones) &&
			slices.Equal(e.pools, s.snap.Pools) && slices.Equal(e.daemonSets, s.snap.DaemonSets) {
			return e
		}
	}
	return nil
}

// keepShared stores what s compiled.
func (c *Cache) keepShared(s *solver) {
	e := &compiledShared{
		dims: slices.Clone(s.dims.names), zones: slices.Clone(s.zones),
		pools: slices.Clone(s.snap.Pools), daemonSets: slices.Clone(s.snap.DaemonSets),
		zoneIdx: s.zoneIdx, daemons: s.daemons, plans: s.pools,
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shared = keepLast(append(c.shared, e))
}

// keepLast drops the oldest entries beyond cacheEntries.
func keepLast[T any](list []T) []T {
	if len(list) > cacheEntries {
		list = slices.Delete(list, 0, len(list)-cacheEntries)
	}
	return list
}

// boundLoads is what the bound pods of one pod list take from each node,
// for one set of resources: per node name, the pods (indices into the
// list, in order), the sum of their requests and pod slots, their host
// ports in order and the daemonsets they belong to. byKey indexes the
// bound pods by namespace and name, so the nodes of the pods a Solve
// re-places are found without walking the list. vectors are the bound
// pods' requests as vectors, which the next list's loads reuse for the
// pods it shares with this one (a plan's commit moves a few pods and
// keeps the others).
type boundLoads struct {
	pods    []*state.Pod
	dims    []corev1.ResourceName
	byNode  map[string]*nodeLoad
	byKey   map[podKey][]int32
	vectors map[*state.Pod]resources.Vector
}

// podKey is a pod's namespace and name (state.Pod.Key without building
// the string).
type podKey struct{ namespace, name string }

// splitKey is the podKey of a state.Pod.Key: neither a namespace nor a
// name holds a slash.
func splitKey(key string) podKey {
	ns, name, _ := strings.Cut(key, "/")
	return podKey{ns, name}
}

// nodeLoad is what the bound pods take from one node.
type nodeLoad struct {
	pods    []int32
	sum     resources.Vector
	ports   []state.HostPort
	daemons []daemonRef
}

// daemonRef is a daemonset by namespace and name.
type daemonRef struct{ namespace, name string }

// loadsFor returns the loads of s's snapshot's bound pods for s's
// resources, computing and keeping them on a miss.
func (c *Cache) loadsFor(s *solver) *boundLoads {
	pods := s.snap.Pods
	c.mu.Lock()
	for _, e := range c.loads {
		if samePods(e.pods, pods) && slices.Equal(e.dims, s.dims.names) {
			c.mu.Unlock()
			return e
		}
	}
	var prev *boundLoads
	for _, e := range c.loads {
		if slices.Equal(e.dims, s.dims.names) {
			prev = e
		}
	}
	c.mu.Unlock()
	e := computeLoads(pods, s.dims, prev)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loads = keepLast(append(c.loads, e))
	return e
}

// samePods reports whether a and b are the same list (not merely equal
// ones: the cache trusts a list it has seen not to change).
func samePods(a, b []*state.Pod) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// computeLoads computes the loads of pods for d, taking the vectors of
// the pods prev (the last entry for d, or nil) shares.
func computeLoads(pods []*state.Pod, d *dims, prev *boundLoads) *boundLoads {
	e := &boundLoads{pods: pods, dims: slices.Clone(d.names), byNode: map[string]*nodeLoad{}, byKey: make(map[podKey][]int32, len(pods)),
		vectors: make(map[*state.Pod]resources.Vector, len(pods))}
	for i, p := range pods {
		if p.NodeName == "" {
			continue
		}
		l := e.byNode[p.NodeName]
		if l == nil {
			l = &nodeLoad{}
			e.byNode[p.NodeName] = l
		}
		l.pods = append(l.pods, int32(i))
		v, ok := prev.vector(p)
		if !ok {
			v = d.podVector(p.Requests)
		}
		e.vectors[p] = v
		l.sum = l.sum.Add(v)
		l.ports = append(l.ports, p.HostPorts...)
		if p.DaemonSet {
			l.daemons = append(l.daemons, daemonRef{p.Namespace, p.Owner.Name})
		}
		key := podKey{p.Namespace, p.Name}
		e.byKey[key] = append(e.byKey[key], int32(i))
	}
	return e
}

// vector is the vector of a bound pod e holds (false for a nil e).
func (e *boundLoads) vector(p *state.Pod) (resources.Vector, bool) {
	if e == nil {
		return resources.Vector{}, false
	}
	v, ok := e.vectors[p]
	return v, ok
}

// loadNodes is compileNodes' pass over the bound pods with a cache: a
// node none of whose bound pods is pending takes the cached load whole;
// the others (the nodes of the pods being re-placed) are walked pod by
// pod as without a cache. all are the Solve's nodes in snapshot order and
// canon says which of them bound pods count on (see nodeBases). It
// returns the daemonsets with a pod on each node, by index in all.
func (s *solver) loadNodes(all []*node, canon []int, pending map[string]bool, e *boundLoads) [][]daemonRef {
	dirty := map[string]bool{}
	for key := range pending {
		for _, i := range e.byKey[splitKey(key)] {
			dirty[e.pods[i].NodeName] = true
		}
	}
	present := make([][]daemonRef, len(all))
	counted := len(s.groups.list) > 0
	var buf []byte
	for i, n := range all {
		l := e.byNode[n.name]
		if l == nil || canon[i] != i {
			continue
		}
		if !dirty[n.name] {
			n.room = n.room.Sub(l.sum)
			n.ports = append(n.ports, l.ports...)
			present[i] = l.daemons
			if counted {
				for _, j := range l.pods {
					s.countExisting(n, e.pods[j])
				}
			}
			continue
		}
		var refs []daemonRef
		for _, j := range l.pods {
			p := e.pods[j]
			if hasKey(pending, p, &buf) {
				continue
			}
			n.room = n.room.Sub(e.vectors[p])
			n.ports = append(n.ports, p.HostPorts...)
			if p.DaemonSet {
				refs = append(refs, daemonRef{p.Namespace, p.Owner.Name})
			}
			s.countExisting(n, p)
		}
		present[i] = refs
	}
	return present
}
