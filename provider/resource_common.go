package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

// targetFromProviderData is the delivery target Configure gave to resources and data sources;
// nil before the provider is configured (Terraform validates configuration first).
func targetFromProviderData(data any, diags *diag.Diagnostics) delivery.Target {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected Provider Data", fmt.Sprintf("Expected *providerData, got %T. This is always a bug in the provider; please report it.", data))
		return nil
	}
	return pd.target
}

// requireTarget reports a missing target, which only happens when Terraform calls CRUD on an
// unconfigured provider.
func requireTarget(t delivery.Target, diags *diag.Diagnostics) bool {
	if t == nil {
		diags.AddError("Provider Not Configured", "The tenon provider was not configured before use. This is always a bug in the provider; please report it.")
		return false
	}
	return true
}

// idAttribute is the computed id every resource has: the object's name.
func idAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "The object's name, as Terraform identifies the resource.",
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// nameAttribute is the object name; renaming creates a new object.
func nameAttribute(kind string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Name of the " + kind + " object (cluster-scoped): lower-case letters, digits, `-` and `.`, " +
			"up to 253 characters. Changing it replaces the object.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

// conditionsAttribute describes status conditions.
func conditionsAttribute(which string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "Conditions reported by the agent: " + which + ".",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"type":                 schema.StringAttribute{Computed: true, MarkdownDescription: "Condition type."},
			"status":               schema.StringAttribute{Computed: true, MarkdownDescription: "`True`, `False` or `Unknown`."},
			"reason":               schema.StringAttribute{Computed: true, MarkdownDescription: "Machine-readable reason of the last transition."},
			"message":              schema.StringAttribute{Computed: true, MarkdownDescription: "Human-readable detail."},
			"last_transition_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When the status last changed (RFC 3339)."},
		}},
	}
}

// deleteObject deletes obj; an object already gone is fine.
func deleteObject(ctx context.Context, t delivery.Target, obj delivery.Object, resp *resource.DeleteResponse) {
	if !requireTarget(t, &resp.Diagnostics) {
		return
	}
	if err := t.Delete(ctx, obj); err != nil {
		resp.Diagnostics.AddError("Cannot Delete "+obj.GetObjectKind().GroupVersionKind().Kind, err.Error())
	}
}
