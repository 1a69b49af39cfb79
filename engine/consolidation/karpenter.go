package consolidation

import (
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Karpenter's disruption annotations count as Tenon's on the nodes of a
// pool that honours them (state.Pool.IgnoreKarpenterAnnotations unset, the
// default), so workloads written for Karpenter keep their protection:
//
//   - karpenter.sh/do-not-disrupt on a node or pod, and (v1alpha5)
//     karpenter.sh/do-not-evict: "true" on a pod, as tenon.dev/do-not-disrupt;
//   - (v1alpha5) karpenter.sh/do-not-consolidate: "true" on a node keeps it
//     from consolidation (emptiness and underutilization), not from drift
//     or expiry, as in Karpenter v1alpha5.

// nodeDoNotDisrupt returns the annotation, "true", that keeps n from
// voluntary disruption, or "".
func nodeDoNotDisrupt(n *nodeInfo) string {
	keys := []string{v1.AnnotationDoNotDisrupt}
	if n.pool != nil && !n.pool.IgnoreKarpenterAnnotations {
		keys = append(keys, v1.AnnotationKarpenterDoNotDisrupt)
	}
	for _, k := range keys {
		if n.node.Annotations[k] == "true" {
			return k
		}
	}
	return ""
}

// nodeDoNotConsolidate says why n's v1alpha5 annotation keeps it from
// consolidation, or "".
func nodeDoNotConsolidate(n *nodeInfo) string {
	if n.pool == nil || n.pool.IgnoreKarpenterAnnotations || n.node.Annotations[v1.AnnotationKarpenterDoNotConsolidate] != "true" {
		return ""
	}
	return "node annotated " + v1.AnnotationKarpenterDoNotConsolidate
}

// podDoNotDisrupt returns the pod's do-not-disrupt annotation and value:
// Tenon's, else (in a pool that honours them) Karpenter's, or ok false.
func podDoNotDisrupt(pool *state.Pool, p *state.Pod) (key, value string, ok bool) {
	if v, has := p.Annotations[v1.AnnotationDoNotDisrupt]; has {
		return v1.AnnotationDoNotDisrupt, v, true
	}
	if pool != nil && pool.IgnoreKarpenterAnnotations {
		return "", "", false
	}
	if v, has := p.Annotations[v1.AnnotationKarpenterDoNotDisrupt]; has {
		return v1.AnnotationKarpenterDoNotDisrupt, v, true
	}
	if p.Annotations[v1.AnnotationKarpenterDoNotEvict] == "true" {
		return v1.AnnotationKarpenterDoNotEvict, "true", true
	}
	return "", "", false
}
