package convert

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// convertNodeOverlay converts a karpenter.sh/v1alpha1 NodeOverlay into a tenon.dev/v1
// NodeOverlay. The fields are Karpenter's; label keys move to Tenon's, karpenter.sh/nodepool
// included (an overlay may select a pool by name), and the reserved capacity type is kept
// (Tenon launches into capacity reservations too). Weights, the order of same-weight overlays and
// what a conflict does are Karpenter's, so the converted overlays resolve as they did.
func convertNodeOverlay(c *conversion, root *node) *v1.NodeOverlay {
	o := &v1.NodeOverlay{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeOverlayKind},
		ObjectMeta: objectMeta(c, root),
	}
	root.skip("status", "written by Karpenter; the agent writes its own")
	spec := root.child("spec")
	root.finish()
	if spec == nil {
		c.fail(root.at("spec"), "missing: a NodeOverlay needs a spec")
		return o
	}
	tenonReqs := field.NewPath("spec", "requirements")
	for _, item := range spec.items("requirements") {
		key, op, values := item.str("key"), item.str("operator"), item.strings("values")
		item.finish()
		tenon, ok := overlayLabelKey(c, item.path, key)
		if !ok {
			continue
		}
		c.from(tenonReqs.Index(len(o.Spec.Requirements)), item.path)
		o.Spec.Requirements = append(o.Spec.Requirements, v1.NodeSelectorRequirementWithMinValues{
			Key: tenon, Operator: corev1.NodeSelectorOperator(op), Values: values,
		})
	}
	o.Spec.Price = spec.strPtr("price")
	o.Spec.PriceAdjustment = spec.strPtr("priceAdjustment")
	if capacity := spec.quantities("capacity"); capacity != nil {
		o.Spec.Capacity = toResourceList(capacity)
	}
	o.Spec.Weight = spec.int32p("weight")
	spec.finish()
	return o
}

// overlayLabelKey maps a requirement's label key for an overlay: Karpenter's well-known labels
// to Tenon's (karpenter.sh/nodepool to tenon.dev/nodepool, which overlays may select), other
// keys as they are. A Karpenter key with no Tenon label is reported and left out.
func overlayLabelKey(c *conversion, path *field.Path, key string) (string, bool) {
	if tenon, ok := scheduling.FromKarpenterLabel(key); ok {
		return tenon, true
	}
	if inKarpenterDomain(key) {
		c.unmap(path, fmt.Sprintf("requirement on %s: Karpenter-specific label with no Tenon equivalent", key))
		return "", false
	}
	return key, true
}
