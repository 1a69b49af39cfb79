package agent

import (
	"sync"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// nominations is the state the provisioner and disruption share: which
// node or claim each pod the provisioner placed was nominated to, and
// when. A pod nominated to a claim in flight is placed already: the next
// batch counts it on that claim rather than buying another node for it,
// and disruption leaves alone a node whose nominated pods the scheduler
// has still to bind (until then the node looks empty). The map lives in
// memory: after a restart the pending pods are solved again, in-flight
// claims first.
type nominations struct {
	// window is how long a nomination holds once its node can take pods:
	// after that the scheduler has had its chance and the pod is pending
	// again.
	window time.Duration
	mu     sync.Mutex
	pods   map[string]nomination
}

// nomination is where one pod was nominated, and when.
type nomination struct {
	// target is a node's name or, for a claim in flight, the claim's.
	target string
	at     time.Time
}

func newNominations(window time.Duration) *nominations {
	return &nominations{window: window, pods: map[string]nomination{}}
}

// nominate records that pod was nominated to target (a node or claim
// name) at now.
func (n *nominations) nominate(target, pod string, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pods[pod] = nomination{target: target, at: now}
}

// forget drops pod's nomination (it runs, or is gone) and reports whether
// it had one.
func (n *nominations) forget(pod string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.pods[pod]
	delete(n.pods, pod)
	return ok
}

// expected returns, for every pod of pending (keys of pods not bound yet)
// with a nomination that still holds in v at now, the snapshot node it is
// expected on; nominations that no longer hold are dropped.
func (n *nominations) expected(v *clusterView, pending map[string]bool, now time.Time) map[string]string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[string]string{}
	index := v.nodeIndex()
	for pod, nom := range n.pods {
		if !pending[pod] {
			continue
		}
		node, holds := v.expects(index, nom, n.window, now)
		if !holds {
			if !v.stale(index, nom, n.window, now) {
				continue // its claim is not in this view yet
			}
			delete(n.pods, pod)
			continue
		}
		out[pod] = node
	}
	return out
}

// expects resolves a nomination against the view: the snapshot node the
// pod is expected on, and whether the nomination still holds. It holds
// while its claim is in flight (a launch takes what it takes; the
// lifecycle's timeouts bound it), and for window from the later of the
// nomination and the node's initialization: by then the scheduler has
// bound the pod or found it does not fit.
func (v *clusterView) expects(index map[string]*state.Node, nom nomination, window time.Duration, now time.Time) (string, bool) {
	node := index[nom.target]
	if node == nil || node.MarkedForDeletion {
		return "", false
	}
	if node.InFlight {
		return node.Name, true
	}
	from := nom.at
	if claim := v.claims[node.Claim]; claim != nil {
		if !isTrue(claim, v1.ConditionInitialized) {
			return node.Name, true
		}
		if t := conditionTime(claim, v1.ConditionInitialized); t.After(from) {
			from = t
		}
	}
	return node.Name, now.Sub(from) <= window
}

// stale reports whether a nomination that does not hold in v can be
// dropped: its target is in v (and no longer takes the pod), or has not
// appeared within window. A nomination is made before its claim is created
// (the pod's nominated node is written first, see hint.go), and another
// controller's view may be read in between: such a view must not drop it.
func (v *clusterView) stale(index map[string]*state.Node, nom nomination, window time.Duration, now time.Time) bool {
	return index[nom.target] != nil || now.Sub(nom.at) > window
}

// nodeIndex maps every snapshot node's name, and the name of the claim
// behind it, to the node.
func (v *clusterView) nodeIndex() map[string]*state.Node {
	index := make(map[string]*state.Node, 2*len(v.snap.Nodes))
	for _, n := range v.snap.Nodes {
		if n.Claim != "" {
			index[n.Claim] = n
		}
		index[n.Name] = n
	}
	return index
}
