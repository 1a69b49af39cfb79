package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// bufferModel is tenon_nodepool's buffer: the NodePool's capacity buffer (spec.buffer).
type bufferModel struct {
	Pods         types.Int64             `tfsdk:"pods"`
	Percent      types.Int64             `tfsdk:"percent"`
	Resources    map[string]types.String `tfsdk:"resources"`
	Requirements []overlayRequirement    `tfsdk:"requirements"`
}

// bufferAttribute is tenon_nodepool's buffer block. A block on the pool, not a resource of its
// own: the room is the pool's nodes, priced at its offerings and capped by its limits.
func bufferAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "Spare room the pool keeps for pods that have not arrived yet (headroom), so a burst schedules without waiting for a launch, " +
			"as Kubernetes' CapacityBuffer. The agent plans it as placeholder pods of `resources` after the real pods: they never exist in the cluster, " +
			"real pods take their room at once, and the agent then launches for the buffer again. Consolidation keeps the room; `limits` cap it; " +
			"`tenon simulate` and `tenon_simulation` price it. Give `pods`, `percent` or both (the smaller then wins). Not allowed with `replicas`.",
		Attributes: map[string]schema.Attribute{
			"pods": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "How many placeholder pods of `resources` the pool keeps room for, 0 to 10000."},
			"percent": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Room for this percentage (1 to 1000) of what the pods on the pool's nodes request, in placeholder pods of `resources`, rounded up; " +
					"an empty pool keeps none, and never more than 10000. With `pods` set too, `pods` caps it."},
			"resources": schema.MapAttribute{Required: true, ElementType: types.StringType, Validators: nonEmptyMap(),
				MarkdownDescription: "What one placeholder pod requests, such as `{ cpu = \"1\", memory = \"2Gi\" }`: the shape of the pods the room is for. Values are positive quantities."},
			"requirements": schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
				MarkdownDescription: "Where in the pool the room is kept, as a pod's node affinity, such as a zone or a capacity type. Absent keeps it anywhere in the pool.",
				NestedObject:        schema.NestedAttributeObject{Attributes: requirementsAttribute(false, operatorsDoc(v1.RequirementOperators())).NestedObject.Attributes}},
		},
	}
}

// toAPI is the buffer as the API has it, with the quantities that do not parse; nil stays nil.
func (m *bufferModel) toAPI() (*v1.CapacityBuffer, field.ErrorList) {
	if m == nil {
		return nil, nil
	}
	// Values beyond int32 saturate, so validation reports them out of range instead of wrapped.
	b := &v1.CapacityBuffer{Pods: percentPtr(m.Pods), Percent: percentPtr(m.Percent), Resources: resourceList(m.Resources)}
	if b.Resources == nil {
		b.Resources = corev1.ResourceList{}
	}
	for _, r := range m.Requirements {
		b.Requirements = append(b.Requirements, v1.NodeSelectorRequirementWithMinValues{
			Key: str(r.Key), Operator: corev1.NodeSelectorOperator(str(r.Operator)), Values: strList(r.Values),
		})
	}
	return b, quantityErrors(field.NewPath("spec", "buffer", "resources"), m.Resources)
}

// bufferFromAPI is the model of a stored buffer; prior (may be nil) decides how unchanged
// quantities are spelled.
func bufferFromAPI(b *v1.CapacityBuffer, prior *bufferModel) *bufferModel {
	if b == nil {
		return nil
	}
	var priorResources map[string]types.String
	if prior != nil {
		priorResources = prior.Resources
	}
	m := &bufferModel{Pods: tfInt32Ptr(b.Pods), Percent: tfInt32Ptr(b.Percent), Resources: tfResourceList(b.Resources, priorResources)}
	for _, r := range b.Requirements {
		m.Requirements = append(m.Requirements, overlayRequirement{
			Key: types.StringValue(r.Key), Operator: types.StringValue(string(r.Operator)), Values: tfStrList(r.Values),
		})
	}
	return m
}
