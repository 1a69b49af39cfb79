package v1

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Karpenter's disruption annotations, which a NodePool honours unless its
// disruption.karpenterAnnotations is Ignore, so workloads written for
// Karpenter keep their protection under Tenon.
const (
	// AnnotationKarpenterDoNotDisrupt on a pod or node is Karpenter v1's
	// tenon.dev/do-not-disrupt, and means the same.
	AnnotationKarpenterDoNotDisrupt = "karpenter.sh/do-not-disrupt"
	// AnnotationKarpenterDoNotEvict on a pod ("true") is Karpenter
	// v1alpha5's: its node is not disrupted voluntarily, as with
	// tenon.dev/do-not-disrupt.
	AnnotationKarpenterDoNotEvict = "karpenter.sh/do-not-evict"
	// AnnotationKarpenterDoNotConsolidate on a node ("true") is Karpenter
	// v1alpha5's: the node is not consolidated (emptied or replaced for
	// cost); drift and expiry still replace it.
	AnnotationKarpenterDoNotConsolidate = "karpenter.sh/do-not-consolidate"
)

// KarpenterAnnotations says whether a NodePool honours Karpenter's disruption annotations.
type KarpenterAnnotations string

// The KarpenterAnnotations values.
const (
	// KarpenterAnnotationsHonor (the default) reads karpenter.sh/do-not-disrupt on pods and
	// nodes as tenon.dev/do-not-disrupt, karpenter.sh/do-not-evict on pods likewise, and
	// karpenter.sh/do-not-consolidate on nodes as keeping them from consolidation.
	KarpenterAnnotationsHonor KarpenterAnnotations = "Honor"
	// KarpenterAnnotationsIgnore reads only Tenon's annotation.
	KarpenterAnnotationsIgnore KarpenterAnnotations = "Ignore"
)

var karpenterAnnotationsValues = []string{string(KarpenterAnnotationsHonor), string(KarpenterAnnotationsIgnore)}

// KarpenterAnnotationsValues returns the values of disruption.karpenterAnnotations.
func KarpenterAnnotationsValues() []KarpenterAnnotations {
	return asValues[KarpenterAnnotations](karpenterAnnotationsValues)
}

// HonorsKarpenterAnnotations reports whether a pool with this disruption block (nil when
// absent) honours Karpenter's annotations: unless karpenterAnnotations is Ignore.
func (in *Disruption) HonorsKarpenterAnnotations() bool {
	return in == nil || in.KarpenterAnnotations != KarpenterAnnotationsIgnore
}

func (in *Disruption) validateKarpenterAnnotations(path *field.Path) field.ErrorList {
	if v := in.KarpenterAnnotations; v != "" && !slices.Contains(karpenterAnnotationsValues, string(v)) {
		return field.ErrorList{field.NotSupported(path.Child("karpenterAnnotations"), v, karpenterAnnotationsValues)}
	}
	return nil
}
