package v1

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Bounds of a NodePool's capacity buffer.
const (
	// MaxBufferPods is the most placeholder pods a buffer may ask for.
	MaxBufferPods = 10000
	// MaxBufferPercent is the largest percent a buffer may ask for: room for ten times what the
	// pool's pods request.
	MaxBufferPercent = 1000
	// maxBufferResources bounds the resources of one placeholder pod.
	maxBufferResources = 16
	// maxBufferRequirements bounds the buffer's requirements.
	maxBufferRequirements = 20
)

// Messages of the buffer's CEL rules, repeated by its Go validation.
const (
	msgBufferSize      = "a buffer needs pods (how many placeholder pods), percent (room for a share of what the pool's pods request) or both"
	msgBufferPods      = "buffer.pods must be between 0 and 10000: the number of placeholder pods whose room the pool keeps free"
	msgBufferPercent   = "buffer.percent must be between 1 and 1000: the room kept free as a percentage of what the pool's pods request"
	msgBufferResources = "buffer.resources must name at least one resource one placeholder pod requests, such as cpu: \"1\" and memory: 2Gi"
	msgBufferQuantity  = "buffer.resources values must be positive quantities such as 500m or 1Gi; remove a resource the placeholder pods do not request"
	msgBufferMinValues = "minValues has no meaning in a buffer's requirements; remove it"
	msgBufferStatic    = "a static NodePool (replicas set) takes no buffer: it launches no node for pending pods, so it cannot keep room for them; raise replicas or put the buffer on a dynamic pool"
)

// CapacityBuffer keeps spare room in a NodePool for pods that have not arrived yet, so a burst
// schedules at once instead of waiting for a node to launch (Kubernetes SIG Autoscaling's
// CapacityBuffer, which Karpenter v1.15 and Cluster Autoscaler implement as a separate
// namespaced object). The agent plans the buffer as placeholder pods of Resources placed after
// every real pod: they never exist in the API server, real pods take their room at once (the
// room is free on the nodes), and the agent then plans the buffer again, launching a node when
// the room left is short. Consolidation moves placeholder pods like real ones, so it never removes
// the room, but it may still replace nodes with cheaper ones that keep it. The pool's limits
// cap the buffer as they cap every node, and `tenon simulate` prices it.
//
// With pods and percent both set, the buffer is the smaller of the two (percent capped by pods),
// as the upstream API documents.
//
// +kubebuilder:validation:XValidation:rule="has(self.pods) || has(self.percent)",message="a buffer needs pods (how many placeholder pods), percent (room for a share of what the pool's pods request) or both"
type CapacityBuffer struct {
	// Pods is how many placeholder pods of Resources the pool keeps room for. 0 keeps none (a
	// buffer switched off without removing it).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	Pods *int32 `json:"pods,omitempty"`
	// Percent sizes the buffer from the pool's use: room for this percentage of what the pods
	// on the pool's nodes request (cpu, memory and every other resource Resources names), in
	// placeholder pods of Resources, rounded up. 20 keeps a fifth more room than the pool's pods
	// use; an empty pool keeps none. With Pods set too, Pods caps it; it is never more than 10000
	// placeholder pods.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Percent *int32 `json:"percent,omitempty"`
	// Resources is what one placeholder pod requests, such as cpu: "1" and memory: 2Gi: the
	// shape of the pods the room is for. A burst of smaller pods fits in it too.
	// +kubebuilder:validation:XValidation:rule="size(self) > 0",message="buffer.resources must name at least one resource one placeholder pod requests, such as cpu: \"1\" and memory: 2Gi"
	// +kubebuilder:validation:XValidation:rule="self.all(k, quantity(string(self[k])).isGreaterThan(quantity('0')))",message="buffer.resources values must be positive quantities such as 500m or 1Gi; remove a resource the placeholder pods do not request"
	// +required
	Resources corev1.ResourceList `json:"resources"`
	// Requirements narrow where the room is kept within the pool, as a pod's node affinity
	// would, such as topology.kubernetes.io/zone In [us-east-1a] or tenon.dev/capacity-type In
	// [on-demand]. Empty keeps it anywhere in the pool.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:XValidation:rule="self.all(r, !has(r.minValues))",message="minValues has no meaning in a buffer's requirements; remove it"
	// +optional
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements,omitempty"`
}

// validateBuffer checks the pool's buffer: its size, the shape of one placeholder pod, its
// requirements, and that the pool is not static.
func (in *NodePoolSpec) validateBuffer(path *field.Path) field.ErrorList {
	b := in.Buffer
	if b == nil {
		return nil
	}
	path = path.Child("buffer")
	var errs field.ErrorList
	if in.Replicas != nil {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, msgBufferStatic))
	}
	if b.Pods == nil && b.Percent == nil {
		errs = append(errs, field.Required(path, msgBufferSize))
	}
	if b.Pods != nil && (*b.Pods < 0 || *b.Pods > MaxBufferPods) {
		errs = append(errs, field.Invalid(path.Child("pods"), *b.Pods, msgBufferPods))
	}
	if b.Percent != nil && (*b.Percent < 1 || *b.Percent > MaxBufferPercent) {
		errs = append(errs, field.Invalid(path.Child("percent"), *b.Percent, msgBufferPercent))
	}
	errs = append(errs, validateBufferResources(path.Child("resources"), b.Resources)...)
	reqPath := path.Child("requirements")
	if len(b.Requirements) > maxBufferRequirements {
		errs = append(errs, field.TooMany(reqPath, len(b.Requirements), maxBufferRequirements))
	}
	errs = append(errs, ValidateRequirements(reqPath, b.Requirements)...)
	for i, r := range b.Requirements {
		if r.MinValues != nil {
			errs = append(errs, field.Invalid(reqPath.Index(i).Child("minValues"), *r.MinValues, msgBufferMinValues))
		}
	}
	return errs
}

// validateBufferResources checks one placeholder pod's requests, in the order of their names so
// errors are stable.
func validateBufferResources(path *field.Path, resources corev1.ResourceList) field.ErrorList {
	if len(resources) == 0 {
		return field.ErrorList{field.Required(path, msgBufferResources)}
	}
	var errs field.ErrorList
	if len(resources) > maxBufferResources {
		errs = append(errs, field.TooMany(path, len(resources), maxBufferResources))
	}
	names := make([]string, 0, len(resources))
	for name := range resources {
		names = append(names, string(name))
	}
	slices.Sort(names)
	for _, name := range names {
		if q := resources[corev1.ResourceName(name)]; q.Sign() <= 0 {
			errs = append(errs, field.Invalid(path.Key(name), q.String(), msgBufferQuantity))
		}
	}
	return errs
}
