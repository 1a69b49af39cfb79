package agent

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// reserve binds, in v's snapshot only, each pending pod of expected (pod
// key → the node or in-flight claim it was nominated to) to that node
// while the node has room for it, and returns how many it bound. Such a
// pod is placed already: solving it again would buy a second node for it
// (issue 18: the claims of overlapping batches planned 751 pods for 500).
// A pod the node has no room for any more (the scheduler bound other pods
// there first) stays pending and is solved again.
func reserve(v *clusterView, expected map[string]string) int {
	if len(expected) == 0 {
		return 0
	}
	free := freeRoom(v)
	reserved := 0
	for i, p := range v.snap.Pods {
		node, ok := expected[p.Key()]
		if !ok || p.NodeName != "" {
			continue
		}
		room := free[node]
		if room == nil || !fits(room, p.Requests) {
			continue
		}
		take(room, p.Requests)
		bound := *p
		bound.NodeName = node
		v.snap.Pods[i] = &bound
		reserved++
	}
	return reserved
}

// fits reports whether requests (and a pod slot) fit in free.
func fits(free, requests corev1.ResourceList) bool {
	if q, ok := free[corev1.ResourcePods]; ok && q.Sign() <= 0 {
		return false
	}
	for name, q := range requests {
		have, ok := free[name]
		if q.IsZero() {
			continue
		}
		if !ok || have.Cmp(q) < 0 {
			return false
		}
	}
	return true
}

// take subtracts requests and a pod slot from free (nil: nothing to do).
func take(free, requests corev1.ResourceList) {
	if free == nil {
		return
	}
	for name, q := range requests {
		if have, ok := free[name]; ok {
			have.Sub(q)
			free[name] = have
		}
	}
	if have, ok := free[corev1.ResourcePods]; ok {
		have.Sub(*resource.NewQuantity(1, resource.DecimalSI))
		free[corev1.ResourcePods] = have
	}
}
