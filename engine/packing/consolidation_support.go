package packing

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// This file exports what engine/consolidation needs to turn a Result's
// claims into nodes when it applies a plan in simulation. It only wraps
// helpers the packer already uses, so both engines agree on them.

// NodeLabels returns the labels a new node of pool p launched as instance
// type it in zone with capacityType and named name carries: the type's
// labels, the pool's requirement and template labels, zone, capacity type,
// pool and hostname.
func NodeLabels(p *state.Pool, it *catalog.InstanceType, zone, capacityType, name string) map[string]string {
	return nodeLabels(p, it, zone, capacityType, name)
}

// DaemonSetRunsOn reports whether the daemonset's pod would schedule on a
// node with these labels and taints, as Solve decides it for daemonset
// overhead: its tolerations cover the taints and its node selector and
// required node affinity are satisfied by the labels. A daemonset whose
// affinity cannot be parsed runs nowhere.
func DaemonSetRunsOn(ds *state.DaemonSet, labels map[string]string, taints []corev1.Taint) bool {
	if ds == nil || ds.Pod == nil {
		return false
	}
	c := &class{}
	if err := c.compileNode(ds.Pod); err != nil {
		return false
	}
	dm := daemon{terms: c.terms, tolerations: ds.Pod.Tolerations}
	return dm.runsOnLabels(labels, scheduling.Taints(taints))
}
