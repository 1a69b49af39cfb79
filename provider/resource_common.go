package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
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

// attributesType is the object type the framework derives from nested attributes. Values the
// provider builds for an attribute (defaults, status) take their type from here, so they
// cannot drift from its schema.
func attributesType(attrs map[string]schema.Attribute) types.ObjectType {
	return schema.NestedAttributeObject{Attributes: attrs}.Type().(types.ObjectType)
}

// elementType is the object type of the elements of a list of nested attributes.
func elementType(list attr.Type) types.ObjectType {
	return list.(types.ListType).ElemType.(types.ObjectType)
}

// nonEmptyList and nonEmptyMap keep null and empty from meaning two things: the API drops
// empty lists and maps, so an empty one would read back as null.
func nonEmptyList() []validator.List { return []validator.List{listvalidator.SizeAtLeast(1)} }
func nonEmptyMap() []validator.Map   { return []validator.Map{mapvalidator.SizeAtLeast(1)} }
func nonEmptyString() []validator.String {
	return []validator.String{stringvalidator.LengthAtLeast(1)}
}

// optString is an optional string that is null or not empty.
func optString(d string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Validators: nonEmptyString(), MarkdownDescription: d}
}

// optStringMap is an optional map of strings (labels, tags, selectors) that is null or not
// empty.
func optStringMap(d string) schema.MapAttribute {
	return schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(), MarkdownDescription: d}
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

// conditionsAttribute describes the status conditions of the given types.
func conditionsAttribute(conditionTypes ...string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "Conditions reported by the agent: " + codes(conditionTypes) + ".",
		NestedObject:        schema.NestedAttributeObject{Attributes: conditionAttributes()},
	}
}

func conditionAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"type":                 schema.StringAttribute{Computed: true, MarkdownDescription: "Condition type."},
		"status":               schema.StringAttribute{Computed: true, MarkdownDescription: codeList(conditionStatuses, nil) + "."},
		"reason":               schema.StringAttribute{Computed: true, MarkdownDescription: "Machine-readable reason of the last transition."},
		"message":              schema.StringAttribute{Computed: true, MarkdownDescription: "Human-readable detail."},
		"last_transition_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When the status last changed (RFC 3339)."},
	}
}

// conditionType is the object type of a status condition.
var conditionType = attributesType(conditionAttributes())

// requirementsAttribute is the requirements list of pools and provisioners; operators
// describes the operators the API accepts.
func requirementsAttribute(withMinValues bool, operators string) schema.ListNestedAttribute {
	attrs := map[string]schema.Attribute{
		"key": schema.StringAttribute{Required: true, MarkdownDescription: "Node label the requirement applies to, such as " +
			"`node.kubernetes.io/instance-type` or `tenon.dev/capacity-type`. Keys in the tenon.dev domain " +
			"are restricted to the well-known labels, and `kubernetes.io/hostname` to pods; Karpenter's aliases of them " +
			"(`karpenter.sh/capacity-type`, `karpenter.k8s.aws/instance-family`, ...) are read as Tenon's, other karpenter.sh keys are restricted; " +
			"kubernetes.io and k8s.io keys are open, as in Karpenter v1."},
		"operator": schema.StringAttribute{Required: true, MarkdownDescription: "Relates the key to the values: " + operators + "."},
		"values": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyList(),
			MarkdownDescription: "Label values: at least one for `In` and `NotIn`, none for `Exists` and `DoesNotExist`, " +
				"exactly one non-negative integer for the numeric operators."},
	}
	if withMinValues {
		attrs["min_values"] = schema.Int64Attribute{Optional: true, MarkdownDescription: "Minimum number of distinct values " +
			"of this key the launch decision must keep available (1 to 50), such as at least 5 instance types so spot " +
			"capacity has somewhere to go. With `In` it cannot exceed the number of values."}
	}
	return schema.ListNestedAttribute{
		Optional: true, Validators: nonEmptyList(),
		MarkdownDescription: "Constrain the nodes by label: instance type, zone, capacity type, architecture and so on. " +
			"Pods narrow them further.",
		NestedObject: schema.NestedAttributeObject{Attributes: attrs},
	}
}

// taintsAttribute is a list of node taints; what says which.
func taintsAttribute(what string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true, Validators: nonEmptyList(), MarkdownDescription: what,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":    schema.StringAttribute{Required: true, MarkdownDescription: "Taint key, a label key such as `example.com/dedicated`."},
			"value":  schema.StringAttribute{Optional: true, Validators: nonEmptyString(), MarkdownDescription: "Taint value, a label value."},
			"effect": schema.StringAttribute{Required: true, MarkdownDescription: codeList(v1.TaintEffects(), nil) + "."},
		}},
	}
}

// conditionStatuses are the statuses of a condition.
var conditionStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}
