package agent

import (
	"slices"
	"sync"
	"time"
)

// nominations is the state the provisioner and disruption share: which
// pods were nominated, to measure how long they take to run, and which pods
// each node or claim was nominated for, so that disruption leaves a node
// alone while the scheduler has still to bind them (until then the node
// looks empty).
type nominations struct {
	// window is how long a nomination protects its node.
	window time.Duration
	mu     sync.Mutex
	pods   map[string]bool
	nodes  map[string]*nomination
}

// nomination is the pods last nominated to one node, and when.
type nomination struct {
	at   time.Time
	pods []string
}

func newNominations(window time.Duration) *nominations {
	return &nominations{window: window, pods: map[string]bool{}, nodes: map[string]*nomination{}}
}

func (n *nominations) remember(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pods[key] = true
}

// forget drops key and reports whether it was there.
func (n *nominations) forget(key string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.pods[key]
	delete(n.pods, key)
	return ok
}

// nominate records that pod was nominated to node (a node or claim name)
// at now.
func (n *nominations) nominate(node, pod string, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	nom := n.nodes[node]
	if nom == nil || now.Sub(nom.at) > n.window {
		nom = &nomination{}
		n.nodes[node] = nom
	}
	nom.at = now
	nom.pods = appendUnique(nom.pods, pod)
}

// waitingFor returns the pods nominated to node within the window; older
// nominations are forgotten.
func (n *nominations) waitingFor(node string, now time.Time) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	nom := n.nodes[node]
	if nom == nil {
		return nil
	}
	if now.Sub(nom.at) > n.window {
		delete(n.nodes, node)
		return nil
	}
	return slices.Clone(nom.pods)
}

// awaited reports whether pods nominated to node within the window are
// still waiting to be bound (pending holds the pods not bound yet): the
// node must stay for them.
func (n *nominations) awaited(node string, pending map[string]bool, now time.Time) bool {
	for _, key := range n.waitingFor(node, now) {
		if pending[key] {
			return true
		}
	}
	return false
}
