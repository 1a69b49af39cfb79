package packing

import (
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/internal/resources"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// daemon is a daemonset's pod as a candidate node sees it.
type daemon struct {
	req    resources.Vector
	filter scheduling.NodeFilter
	// zonal is set when a term constrains zone or capacity type, so
	// whether it runs depends on the offering, not only the type.
	zonal bool
	// everywhere is set when a term requires nothing of a node's labels:
	// the daemon runs on every node whose taints it tolerates.
	everywhere bool
	// name is the daemonset's namespace/name (namespace and dsName apart)
	// and ports its pod's host ports, which no pod sharing its node may
	// use.
	name              string
	namespace, dsName string
	ports             []state.HostPort
}

func compileDaemons(dss []*state.DaemonSet, d *dims) []daemon {
	var out []daemon
	for _, ds := range dss {
		if ds.Pod == nil {
			continue
		}
		f, err := ds.Pod.NodeFilter()
		if err != nil {
			// A daemonset whose affinity cannot be parsed runs nowhere
			// (as state.DaemonSet.RunsOn decides).
			continue
		}
		dm := daemon{req: d.podVector(ds.Pod.Requests), filter: f, name: ds.Namespace + "/" + ds.Name, namespace: ds.Namespace, dsName: ds.Name, ports: ds.Pod.HostPorts}
		for _, t := range f.Terms {
			dm.everywhere = dm.everywhere || len(t) == 0
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
	return dm.filter.Admits(labels, taints)
}

// runsOnReqs reports whether the daemon may schedule on a node built to
// the requirements reqs returns (some zone or capacity type they allow may
// be needed). reqs is called only for a daemon that selects nodes by
// label: intersecting a pool's and a type's requirements is most of the
// cost of compiling a type, and most daemonsets run everywhere.
func (dm daemon) runsOnReqs(reqs func() scheduling.Requirements, taints scheduling.Taints) bool {
	if taints.ToleratesPod(dm.filter.Tolerations) != nil {
		return false
	}
	if dm.everywhere {
		return true
	}
	r := reqs()
	for _, t := range dm.filter.Terms {
		if r.Allows(t) {
			return true
		}
	}
	return false
}

// intersectOn returns a's and b's requirements intersected on the keys the
// daemons' node selection terms name, and nothing else: whether a daemon
// runs on a node built to a ∩ b depends only on those keys, and
// intersecting every key (a pool's and an instance type's requirements
// hold a dozen) for every type was most of the cost of compiling a
// cluster with daemonsets that select nodes by label.
func intersectOn(a, b scheduling.Requirements, daemons []daemon) scheduling.Requirements {
	out := scheduling.Requirements{}
	for _, dm := range daemons {
		for _, t := range dm.filter.Terms {
			for key := range t {
				if out.Has(key) {
					continue
				}
				if r, ok := a[key]; ok {
					out.Add(r)
				}
				if r, ok := b[key]; ok {
					out.Add(r)
				}
			}
		}
	}
	return out
}
