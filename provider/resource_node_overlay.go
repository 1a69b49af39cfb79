package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// NewNodeOverlayResource returns tenon_node_overlay: a tenon.dev/v1 NodeOverlay.
func NewNodeOverlayResource() resource.Resource {
	return newObjectResource("_node_overlay", nodeOverlayKind, nodeOverlayDescription, nodeOverlayAttributes)
}

// nodeOverlayAttributes are the resource's own attributes (the id and name every object has
// are added by objectResource.schema).
func nodeOverlayAttributes() map[string]schema.Attribute {
	reqs := requirementsAttribute(false, operatorsDoc(v1.RequirementOperators()))
	reqs.MarkdownDescription = "Select the instance types (and, through `topology.kubernetes.io/zone` and `tenon.dev/capacity-type`, " +
		"the offerings) the overlay applies to, by the labels their nodes would carry: well-known labels, the pool's name " +
		"`tenon.dev/nodepool`, and a NodePool's template labels. All must hold. Absent selects every instance type of every pool."
	return map[string]schema.Attribute{
		"requirements": reqs,
		"price": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Replaces the price of the selected offerings, in USD per hour: a decimal string such as `\"0.042\"` (a negotiated rate). " +
				"Conflicts with `price_adjustment`."},
		"price_adjustment": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Changes the price of the selected offerings: a signed amount in USD per hour such as `\"-0.01\"` or `\"+0.005\"` (a licence fee), " +
				"or a signed percentage such as `\"-15%\"` (a discount, at most `-100%`) or `\"+10%\"`. A price never goes below zero. Conflicts with `price`."},
		"capacity": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
			MarkdownDescription: "Extended resources the selected instance types' nodes have, such as `{ \"hugepages-2Mi\" = \"1Gi\" }` or " +
				"`{ \"example.com/fpga\" = \"1\" }` (at most 32), so pods requesting them are packed there. Hugepages are taken from the memory pods can request, " +
				"as the kubelet does. `cpu`, `memory`, `ephemeral-storage` and `pods` cannot be overlaid."},
		"weight": schema.Int64Attribute{Optional: true,
			MarkdownDescription: "Decides between overlays that set the same price or resource of an instance type, 1 to 10000: the highest wins. " +
				"Two overlays of the same weight that set the same value are in conflict: the one whose name sorts last is applied, the other nowhere, " +
				"and its `Ready` condition names the overlay, pool, instance type and field. Absent is below every weight."},
		"status": schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Where the agent applied the overlay, or why it did not.",
			Attributes:          nodeOverlayStatusAttributes(),
		},
	}
}

func nodeOverlayStatusAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"node_pools": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
			MarkdownDescription: "How many instance types of each NodePool the overlay changes, by pool name."},
		"conditions": conditionsAttribute(v1.ConditionReady),
	}
}

var nodeOverlayStatusType = attributesType(nodeOverlayStatusAttributes())

// nodeOverlayDescription introduces the resource in its documentation.
const nodeOverlayDescription = "A `tenon.dev/v1` NodeOverlay: adjusts what the agent believes about the instance types a selector " +
	"matches before it packs pods or consolidates nodes — their price (`price` or `price_adjustment`: a negotiated discount, a licence fee) " +
	"and extended resources their nodes have (`capacity`: hugepages, a device plugin's resource). Overlays that set the same value are " +
	"decided by `weight`, as Karpenter's NodeOverlays are. It changes the agent's arithmetic, not the instance. Every field is checked " +
	"at plan time with the same rules as the API server's."
