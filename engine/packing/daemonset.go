package packing

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// daemon is a daemonset's pod as a candidate node sees it.
type daemon struct {
	req         vec
	terms       []scheduling.Requirements
	tolerations []corev1.Toleration
	// zonal is set when a term constrains zone or capacity type, so
	// whether it runs depends on the offering, not only the type.
	zonal bool
}

func compileDaemons(dss []*state.DaemonSet, d *dims) []daemon {
	var out []daemon
	for _, ds := range dss {
		if ds.Pod == nil {
			continue
		}
		c := &class{}
		if err := c.compileNode(ds.Pod); err != nil {
			// A daemonset whose affinity cannot be parsed runs nowhere.
			continue
		}
		dm := daemon{req: d.podVec(ds.Pod.Requests), terms: c.terms, tolerations: ds.Pod.Tolerations}
		for _, t := range c.terms {
			if t.Has(scheduling.LabelTopologyZone) || t.Has(scheduling.LabelCapacityType) {
				dm.zonal = true
			}
		}
		out = append(out, dm)
	}
	return out
}

// runsOnLabels reports whether the daemon schedules on a node with these
// labels and taints.
func (dm daemon) runsOnLabels(labels map[string]string, taints scheduling.Taints) bool {
	if taints.ToleratesPod(dm.tolerations) != nil {
		return false
	}
	for _, t := range dm.terms {
		if satisfiedBy(t, labels) {
			return true
		}
	}
	return false
}

// runsOnReqs reports whether the daemon may schedule on a node built to
// reqs (some zone or capacity type reqs allow may be needed).
func (dm daemon) runsOnReqs(reqs scheduling.Requirements, taints scheduling.Taints) bool {
	if taints.ToleratesPod(dm.tolerations) != nil {
		return false
	}
	for _, t := range dm.terms {
		if len(t) == 0 || reqs.Compatible(t) == nil {
			return true
		}
	}
	return false
}

// satisfiedBy reports whether a node with labels satisfies reqs.
func satisfiedBy(reqs scheduling.Requirements, labels map[string]string) bool {
	for key, req := range reqs {
		if v, ok := labels[key]; ok {
			if !req.Has(v) {
				return false
			}
			continue
		}
		if op := req.Operator(); op != scheduling.OpNotIn && op != scheduling.OpDoesNotExist {
			return false
		}
	}
	return true
}
