package v1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxReplicas is the largest replicas a static NodePool may ask for.
const MaxReplicas = 10000

const (
	msgReplicasRange     = "replicas must be between 0 and 10000: the number of nodes the static pool keeps"
	msgReplicasLimits    = "a static NodePool (replicas set) takes only limits.nodes; remove the other limits"
	msgReplicasWeight    = "a static NodePool (replicas set) takes no weight: the agent never chooses it for pending pods; remove weight"
	msgReplicasImmutable = "replicas cannot be added to or removed from an existing NodePool (a static pool and a dynamic one are different kinds of pool); create a new NodePool instead"
)

// IsStatic reports whether the pool is static: it keeps spec.replicas nodes
// whatever the pending pods.
func (in *NodePool) IsStatic() bool { return in.Spec.Replicas != nil }

// validateStatic checks what a static pool (replicas set) cannot be combined
// with: limits other than nodes, and weight.
func (in *NodePoolSpec) validateStatic(path *field.Path) field.ErrorList {
	if in.Replicas == nil {
		return nil
	}
	var errs field.ErrorList
	if r := *in.Replicas; r < 0 || r > MaxReplicas {
		errs = append(errs, field.Invalid(path.Child("replicas"), r, msgReplicasRange))
	}
	for name := range in.Limits {
		if name != "nodes" {
			errs = append(errs, field.Invalid(path.Child("limits"), field.OmitValueType{}, msgReplicasLimits))
			break
		}
	}
	if in.Weight != nil {
		errs = append(errs, field.Invalid(path.Child("weight"), *in.Weight, msgReplicasWeight))
	}
	return errs
}

// validateStaticUpdate rejects an update that adds or removes replicas.
func validateStaticUpdate(path *field.Path, in, old *NodePoolSpec) field.ErrorList {
	if (in.Replicas == nil) != (old.Replicas == nil) {
		return field.ErrorList{field.Invalid(path, field.OmitValueType{}, msgReplicasImmutable)}
	}
	return nil
}
