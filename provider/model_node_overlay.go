package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// nodeOverlayModel is tenon_node_overlay's schema as Go values.
type nodeOverlayModel struct {
	ID              types.String            `tfsdk:"id"`
	Name            types.String            `tfsdk:"name"`
	Requirements    []overlayRequirement    `tfsdk:"requirements"`
	Price           types.String            `tfsdk:"price"`
	PriceAdjustment types.String            `tfsdk:"price_adjustment"`
	Capacity        map[string]types.String `tfsdk:"capacity"`
	Weight          types.Int64             `tfsdk:"weight"`
	Status          types.Object            `tfsdk:"status"`
}

// overlayRequirement is a requirement without min_values.
type overlayRequirement struct {
	Key      types.String   `tfsdk:"key"`
	Operator types.String   `tfsdk:"operator"`
	Values   []types.String `tfsdk:"values"`
}

// nodeOverlayKind is how tenon_node_overlay stores its model: as a NodeOverlay. Its paths map
// NodeOverlay validation paths to tenon_node_overlay attributes.
var nodeOverlayKind = apiKind[nodeOverlayModel, *v1.NodeOverlay]{
	name: v1.NodeOverlayKind, ref: nodeOverlayRef, toAPI: (*nodeOverlayModel).toAPI, fromAPI: nodeOverlayFromAPI,
	paths: newPathMapper([]pathRule{
		{api: "metadata.name", tf: path.Root("name")},
		{api: "spec.priceAdjustment", tf: path.Root("price_adjustment")},
		{api: "spec", tf: path.Empty()},
	}, "capacity"),
}

// nodeOverlayRef is the NodeOverlay named name, for Get and Delete.
func nodeOverlayRef(name string) *v1.NodeOverlay {
	o := &v1.NodeOverlay{}
	o.APIVersion, o.Kind, o.Name = v1.SchemeGroupVersion.String(), v1.NodeOverlayKind, name
	return o
}

// toAPI builds the NodeOverlay the model describes, and reports values that have no API form.
func (m *nodeOverlayModel) toAPI() (*v1.NodeOverlay, field.ErrorList) {
	o := &v1.NodeOverlay{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeOverlayKind},
		ObjectMeta: metav1.ObjectMeta{Name: str(m.Name)},
	}
	for _, r := range m.Requirements {
		o.Spec.Requirements = append(o.Spec.Requirements, v1.NodeSelectorRequirementWithMinValues{
			Key: str(r.Key), Operator: corev1.NodeSelectorOperator(str(r.Operator)), Values: strList(r.Values),
		})
	}
	o.Spec.Price = strPtr(m.Price)
	o.Spec.PriceAdjustment = strPtr(m.PriceAdjustment)
	o.Spec.Capacity = resourceList(m.Capacity)
	o.Spec.Weight = int32Ptr(m.Weight)
	return o, quantityErrors(field.NewPath("spec", "capacity"), m.Capacity)
}

// nodeOverlayFromAPI is the model of a stored NodeOverlay. prior (the plan or the last state,
// may be nil) only decides how unchanged quantities are spelled.
func nodeOverlayFromAPI(o *v1.NodeOverlay, prior *nodeOverlayModel) nodeOverlayModel {
	m := nodeOverlayModel{
		ID:              types.StringValue(o.Name),
		Name:            types.StringValue(o.Name),
		Price:           tfStrPtr(o.Spec.Price),
		PriceAdjustment: tfStrPtr(o.Spec.PriceAdjustment),
		Weight:          tfInt32Ptr(o.Spec.Weight),
	}
	for _, r := range o.Spec.Requirements {
		m.Requirements = append(m.Requirements, overlayRequirement{
			Key: types.StringValue(r.Key), Operator: types.StringValue(string(r.Operator)), Values: tfStrList(r.Values),
		})
	}
	var priorCapacity map[string]types.String
	if prior != nil {
		priorCapacity = prior.Capacity
	}
	m.Capacity = tfResourceList(o.Spec.Capacity, priorCapacity)
	pools := map[string]attr.Value{}
	for _, p := range o.Status.NodePools {
		pools[p.Name] = types.Int64Value(int64(p.InstanceTypes))
	}
	m.Status = types.ObjectValueMust(nodeOverlayStatusType.AttrTypes, map[string]attr.Value{
		"node_pools": types.MapValueMust(types.Int64Type, pools),
		"conditions": tfConditions(o.Status.Conditions),
	})
	return m
}
