package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// nodePoolModel is tenon_nodepool's schema as Go values.
type nodePoolModel struct {
	ID         types.String            `tfsdk:"id"`
	Name       types.String            `tfsdk:"name"`
	Template   *nodePoolTemplateModel  `tfsdk:"template"`
	Disruption *disruptionModel        `tfsdk:"disruption"`
	Limits     map[string]types.String `tfsdk:"limits"`
	Weight     types.Int64             `tfsdk:"weight"`
	Replicas   types.Int64             `tfsdk:"replicas"`
	Buffer     *bufferModel            `tfsdk:"buffer"`
	Status     types.Object            `tfsdk:"status"`
}

type nodePoolTemplateModel struct {
	Metadata               *templateMetadataModel `tfsdk:"metadata"`
	Requirements           []requirementModel     `tfsdk:"requirements"`
	Taints                 []taintModel           `tfsdk:"taints"`
	StartupTaints          []taintModel           `tfsdk:"startup_taints"`
	ExpireAfter            types.String           `tfsdk:"expire_after"`
	TerminationGracePeriod types.String           `tfsdk:"termination_grace_period"`
	NodeClass              types.String           `tfsdk:"node_class"`
}

type templateMetadataModel struct {
	Labels      map[string]types.String `tfsdk:"labels"`
	Annotations map[string]types.String `tfsdk:"annotations"`
}

type requirementModel struct {
	Key       types.String   `tfsdk:"key"`
	Operator  types.String   `tfsdk:"operator"`
	Values    []types.String `tfsdk:"values"`
	MinValues types.Int64    `tfsdk:"min_values"`
}

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

type disruptionModel struct {
	ConsolidationPolicy types.String  `tfsdk:"consolidation_policy"`
	ConsolidateAfter    types.String  `tfsdk:"consolidate_after"`
	Budgets             []budgetModel `tfsdk:"budgets"`
	MinSavingsPerHour   types.String  `tfsdk:"min_savings_per_hour"`
	MinSavingsPercent   types.Int64   `tfsdk:"min_savings_percent"`
	MinSavingsPerPod    types.String  `tfsdk:"min_savings_per_pod"`
	// KarpenterAnnotations is null for the API's default, Honor.
	KarpenterAnnotations types.String `tfsdk:"karpenter_annotations"`
	// Repair is nil when repair is absent (off).
	Repair *repairModel `tfsdk:"repair"`
}

type repairModel struct {
	Enabled      types.Bool   `tfsdk:"enabled"`
	Toleration   types.String `tfsdk:"toleration"`
	MaxUnhealthy types.String `tfsdk:"max_unhealthy"`
}

// toAPI is the repair block as the API has it; nil stays nil.
func (m *repairModel) toAPI() *v1.Repair {
	if m == nil {
		return nil
	}
	r := &v1.Repair{Enabled: m.Enabled.ValueBool(), MaxUnhealthy: strPtr(m.MaxUnhealthy)}
	if t := strPtr(m.Toleration); t != nil {
		d := v1.Duration(*t)
		r.Toleration = &d
	}
	return r
}

// repairFromAPI is the model of an API repair block; nil stays nil.
func repairFromAPI(r *v1.Repair) *repairModel {
	if r == nil {
		return nil
	}
	m := &repairModel{Enabled: types.BoolValue(r.Enabled), Toleration: types.StringNull(), MaxUnhealthy: tfStrPtr(r.MaxUnhealthy)}
	if r.Toleration != nil {
		m.Toleration = types.StringValue(string(*r.Toleration))
	}
	return m
}

type budgetModel struct {
	Nodes    types.String   `tfsdk:"nodes"`
	Schedule types.String   `tfsdk:"schedule"`
	Duration types.String   `tfsdk:"duration"`
	Reasons  []types.String `tfsdk:"reasons"`
}

// nodePoolKind is how tenon_nodepool stores its model: as a NodePool. Its paths map NodePool
// validation paths to tenon_nodepool attributes.
var nodePoolKind = apiKind[nodePoolModel, *v1.NodePool]{
	name: v1.NodePoolKind, ref: nodePoolRef, toAPI: (*nodePoolModel).toAPI, fromAPI: nodePoolFromAPI,
	paths: newPathMapper([]pathRule{
		{api: "metadata.name", tf: path.Root("name")},
		{api: "spec.template.metadata", tf: path.Root("template").AtName("metadata")},
		{api: "spec.template.spec.nodeClassRef", tf: path.Root("template").AtName("node_class"), whole: true},
		{api: "spec.template.spec", tf: path.Root("template")},
		{api: "spec.template", tf: path.Root("template")},
		{api: "spec", tf: path.Empty()},
	}, "labels", "annotations", "limits", "resources"),
}

// defaultBudget is the one budget a pool without budgets gets, as the CRD defaults it.
func defaultBudget() attr.Value {
	return types.ObjectValueMust(budgetType.AttrTypes, map[string]attr.Value{
		"nodes":    types.StringValue(v1.DefaultBudgetNodes),
		"schedule": types.StringNull(),
		"duration": types.StringNull(),
		"reasons":  types.ListNull(types.StringType),
	})
}

func defaultBudgets() types.List {
	return types.ListValueMust(budgetType, []attr.Value{defaultBudget()})
}

// defaultDisruption is the disruption block of a pool without one, as the CRD defaults it.
func defaultDisruption() types.Object {
	return types.ObjectValueMust(disruptionType.AttrTypes, map[string]attr.Value{
		"consolidation_policy":  types.StringValue(string(v1.ConsolidationPolicyWhenEmptyOrUnderutilized)),
		"consolidate_after":     types.StringValue(string(v1.DefaultConsolidateAfter)),
		"budgets":               defaultBudgets(),
		"min_savings_per_hour":  types.StringNull(),
		"min_savings_percent":   types.Int64Null(),
		"min_savings_per_pod":   types.StringNull(),
		"karpenter_annotations": types.StringNull(),
		"repair":                types.ObjectNull(attributesType(repairAttributes()).AttrTypes),
	})
}

// quantityErrors reports quantities that do not parse, at API paths like the engine's.
func quantityErrors(p *field.Path, m map[string]types.String) field.ErrorList {
	var errs field.ErrorList
	for k, v := range m {
		if v.IsNull() || v.IsUnknown() {
			continue
		}
		if _, err := scheduling.ParseQuantity(v.ValueString()); err != nil {
			errs = append(errs, field.Invalid(p.Key(k), v.ValueString(), "must be a quantity such as 100, 1.5, 500m, 64Gi or 1k"))
		}
	}
	return errs
}

// nodePoolRef is the NodePool named name, for Get and Delete.
func nodePoolRef(name string) *v1.NodePool {
	np := &v1.NodePool{}
	np.APIVersion, np.Kind, np.Name = v1.SchemeGroupVersion.String(), v1.NodePoolKind, name
	return np
}

// toAPI builds the NodePool the model describes, and reports values that have no API form.
func (m *nodePoolModel) toAPI() (*v1.NodePool, field.ErrorList) {
	np := &v1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodePoolKind},
		ObjectMeta: metav1.ObjectMeta{Name: str(m.Name)},
	}
	spec := &np.Spec
	if t := m.Template; t != nil {
		if md := t.Metadata; md != nil {
			spec.Template.Labels = strMap[string](md.Labels)
			spec.Template.Annotations = strMap[string](md.Annotations)
		}
		ts := &spec.Template.Spec
		for _, r := range t.Requirements {
			ts.Requirements = append(ts.Requirements, v1.NodeSelectorRequirementWithMinValues{
				Key: str(r.Key), Operator: corev1.NodeSelectorOperator(str(r.Operator)),
				Values: strList(r.Values), MinValues: int32Ptr(r.MinValues),
			})
		}
		ts.Taints = taintsToAPI(t.Taints)
		ts.StartupTaints = taintsToAPI(t.StartupTaints)
		ts.ExpireAfter = v1.NillableDuration(str(t.ExpireAfter))
		if p := strPtr(t.TerminationGracePeriod); p != nil {
			d := v1.Duration(*p)
			ts.TerminationGracePeriod = &d
		}
		ts.NodeClassRef = &v1.NodeClassReference{Group: v1.Group, Kind: v1.NodeClassKind, Name: str(t.NodeClass)}
	}
	if d := m.Disruption; d != nil {
		spec.Disruption = &v1.Disruption{
			ConsolidationPolicy:  v1.ConsolidationPolicy(str(d.ConsolidationPolicy)),
			ConsolidateAfter:     v1.NillableDuration(str(d.ConsolidateAfter)),
			MinSavingsPerHour:    strPtr(d.MinSavingsPerHour),
			MinSavingsPercent:    percentPtr(d.MinSavingsPercent),
			MinSavingsPerPod:     strPtr(d.MinSavingsPerPod),
			KarpenterAnnotations: v1.KarpenterAnnotations(str(d.KarpenterAnnotations)),
			Repair:               d.Repair.toAPI(),
		}
		for _, b := range d.Budgets {
			budget := v1.Budget{Nodes: str(b.Nodes), Schedule: strPtr(b.Schedule)}
			if p := strPtr(b.Duration); p != nil {
				dur := v1.Duration(*p)
				budget.Duration = &dur
			}
			for _, r := range b.Reasons {
				budget.Reasons = append(budget.Reasons, v1.DisruptionReason(r.ValueString()))
			}
			spec.Disruption.Budgets = append(spec.Disruption.Budgets, budget)
		}
	}
	spec.Limits = resourceList(m.Limits)
	spec.Weight = int32Ptr(m.Weight)
	spec.Replicas = int64Ptr(m.Replicas)
	buffer, bufferErrs := m.Buffer.toAPI()
	spec.Buffer = buffer
	return np, append(quantityErrors(field.NewPath("spec", "limits"), m.Limits), bufferErrs...)
}

func taintsToAPI(ts []taintModel) []v1.Taint {
	var out []v1.Taint
	for _, t := range ts {
		out = append(out, v1.Taint{Key: str(t.Key), Value: str(t.Value), Effect: corev1.TaintEffect(str(t.Effect))})
	}
	return out
}

func taintsFromAPI(ts []v1.Taint) []taintModel {
	var out []taintModel
	for _, t := range ts {
		out = append(out, taintModel{Key: types.StringValue(t.Key), Value: tfStr(t.Value), Effect: types.StringValue(string(t.Effect))})
	}
	return out
}

// nodePoolFromAPI is the model of a stored NodePool. prior (the plan or the last state, may be
// nil) only decides how unchanged quantities are spelled.
func nodePoolFromAPI(np *v1.NodePool, prior *nodePoolModel) nodePoolModel {
	m := nodePoolModel{
		ID:   types.StringValue(np.Name),
		Name: types.StringValue(np.Name),
	}
	ts := np.Spec.Template.Spec
	t := &nodePoolTemplateModel{
		Requirements:           nil,
		Taints:                 taintsFromAPI(ts.Taints),
		StartupTaints:          taintsFromAPI(ts.StartupTaints),
		ExpireAfter:            tfStr(string(ts.ExpireAfter)),
		TerminationGracePeriod: types.StringNull(),
		NodeClass:              types.StringNull(),
	}
	// An empty metadata = {} stays as written (the API drops it).
	keepMetadata := prior != nil && prior.Template != nil && prior.Template.Metadata != nil
	if keepMetadata || len(np.Spec.Template.Labels) > 0 || len(np.Spec.Template.Annotations) > 0 {
		t.Metadata = &templateMetadataModel{
			Labels:      tfStrMap(np.Spec.Template.Labels),
			Annotations: tfStrMap(np.Spec.Template.Annotations),
		}
	}
	for _, r := range ts.Requirements {
		t.Requirements = append(t.Requirements, requirementModel{
			Key: types.StringValue(r.Key), Operator: types.StringValue(string(r.Operator)),
			Values: tfStrList(r.Values), MinValues: tfInt32Ptr(r.MinValues),
		})
	}
	if ts.TerminationGracePeriod != nil {
		t.TerminationGracePeriod = types.StringValue(string(*ts.TerminationGracePeriod))
	}
	if ts.NodeClassRef != nil {
		t.NodeClass = tfStr(ts.NodeClassRef.Name)
	}
	m.Template = t
	if d := np.Spec.Disruption; d != nil {
		dm := &disruptionModel{
			ConsolidationPolicy:  tfStr(string(d.ConsolidationPolicy)),
			ConsolidateAfter:     tfStr(string(d.ConsolidateAfter)),
			MinSavingsPerHour:    tfStrPtr(d.MinSavingsPerHour),
			MinSavingsPercent:    tfInt32Ptr(d.MinSavingsPercent),
			MinSavingsPerPod:     tfStrPtr(d.MinSavingsPerPod),
			KarpenterAnnotations: tfStr(string(d.KarpenterAnnotations)),
			Repair:               repairFromAPI(d.Repair),
		}
		for _, b := range d.Budgets {
			bm := budgetModel{Nodes: tfStr(b.Nodes), Schedule: tfStrPtr(b.Schedule), Duration: types.StringNull(), Reasons: tfStrList(b.Reasons)}
			if b.Duration != nil {
				bm.Duration = types.StringValue(string(*b.Duration))
			}
			dm.Budgets = append(dm.Budgets, bm)
		}
		m.Disruption = dm
	}
	var priorLimits map[string]types.String
	if prior != nil {
		priorLimits = prior.Limits
	}
	m.Limits = tfResourceList(np.Spec.Limits, priorLimits)
	m.Weight = tfInt32Ptr(np.Spec.Weight)
	m.Replicas = tfInt64Ptr(np.Spec.Replicas)
	var priorBuffer *bufferModel
	if prior != nil {
		priorBuffer = prior.Buffer
	}
	m.Buffer = bufferFromAPI(np.Spec.Buffer, priorBuffer)
	m.Status = types.ObjectValueMust(nodePoolStatusType.AttrTypes, map[string]attr.Value{
		"nodes":         types.Int64Value(np.Status.Nodes),
		"resources":     tfQuantities(np.Status.Resources),
		"cost_per_hour": types.StringValue(np.Status.CostPerHour),
		"conditions":    tfConditions(np.Status.Conditions),
	})
	return m
}
