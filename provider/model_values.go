package provider

import (
	"math"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Helpers shared by the model_*.go files, the only place where Terraform values and
// engine/api types meet. Conventions: an empty API string, list or map is a null attribute
// (the schemas forbid empty lists and maps, so null and empty never need telling apart), and
// quantities keep the form the user wrote while they mean the same amount.

func str(v types.String) string { return v.ValueString() }

func strPtr(v types.String) *string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func tfStr(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func tfStrPtr(s *string) types.String {
	if s == nil {
		return types.StringNull()
	}
	return types.StringValue(*s)
}

func int32Ptr(v types.Int64) *int32 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	i := int32(v.ValueInt64())
	return &i
}

// percentPtr is a percentage attribute as the API's int32; values beyond int32 saturate, so the
// API's validation reports them out of range instead of wrapped into it.
func percentPtr(v types.Int64) *int32 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	i := int32(max(min(v.ValueInt64(), math.MaxInt32), math.MinInt32))
	return &i
}

func int64Ptr(v types.Int64) *int64 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	i := v.ValueInt64()
	return &i
}

func tfInt32Ptr(i *int32) types.Int64 {
	if i == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*i))
}

func tfInt64Ptr(i *int64) types.Int64 {
	if i == nil {
		return types.Int64Null()
	}
	return types.Int64Value(*i)
}

func boolPtr(v types.Bool) *bool {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	b := v.ValueBool()
	return &b
}

func tfBoolPtr(b *bool) types.Bool {
	if b == nil {
		return types.BoolNull()
	}
	return types.BoolValue(*b)
}

func strList(vs []types.String) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ValueString()
	}
	return out
}

func tfStrList[S ~string](vs []S) []types.String {
	if len(vs) == 0 {
		return nil
	}
	out := make([]types.String, len(vs))
	for i, v := range vs {
		out[i] = types.StringValue(string(v))
	}
	return out
}

func strMap[V ~string](m map[string]types.String) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = V(v.ValueString())
	}
	return out
}

func tfStrMap[V ~string](m map[string]V) map[string]types.String {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]types.String, len(m))
	for k, v := range m {
		out[k] = types.StringValue(string(v))
	}
	return out
}

// resourceList parses quantities. An unparsable one is left out and reported by
// quantityErrors, which the resources' validation runs first.
func resourceList(m map[string]types.String) corev1.ResourceList {
	if m == nil {
		return nil
	}
	out := corev1.ResourceList{}
	for k, v := range m {
		if v.IsUnknown() {
			continue
		}
		q, err := scheduling.ParseQuantity(v.ValueString())
		if err != nil {
			continue
		}
		out[corev1.ResourceName(k)] = q
	}
	return out
}

// tfResourceList renders quantities, keeping prior's spelling of each amount that did not
// change (the API server writes 1000 as 1k).
func tfResourceList(rl corev1.ResourceList, prior map[string]types.String) map[string]types.String {
	if len(rl) == 0 {
		return nil
	}
	out := make(map[string]types.String, len(rl))
	for k, q := range rl {
		out[string(k)] = types.StringValue(keepQuantity(q, prior[string(k)]))
	}
	return out
}

func keepQuantity(q resource.Quantity, prior types.String) string {
	if !prior.IsNull() && !prior.IsUnknown() {
		if p, err := scheduling.ParseQuantity(prior.ValueString()); err == nil && p.Cmp(q) == 0 {
			return prior.ValueString()
		}
	}
	return q.String()
}

func tfConditions(cs []metav1.Condition) types.List {
	elems := make([]attr.Value, 0, len(cs))
	for _, c := range cs {
		elems = append(elems, types.ObjectValueMust(conditionType.AttrTypes, map[string]attr.Value{
			"type":                 types.StringValue(c.Type),
			"status":               types.StringValue(string(c.Status)),
			"reason":               types.StringValue(c.Reason),
			"message":              types.StringValue(c.Message),
			"last_transition_time": types.StringValue(c.LastTransitionTime.UTC().Format(time.RFC3339)),
		}))
	}
	return types.ListValueMust(conditionType, elems)
}

func tfQuantities(rl corev1.ResourceList) types.Map {
	elems := make(map[string]attr.Value, len(rl))
	for k, q := range rl {
		elems[string(k)] = types.StringValue(q.String())
	}
	return types.MapValueMust(types.StringType, elems)
}
