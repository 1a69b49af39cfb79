package provider

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// provisionerModel is tenon_provisioner's schema as Go values.
type provisionerModel struct {
	ID                     types.String            `tfsdk:"id"`
	Name                   types.String            `tfsdk:"name"`
	Labels                 map[string]types.String `tfsdk:"labels"`
	Annotations            map[string]types.String `tfsdk:"annotations"`
	Taints                 []taintModel            `tfsdk:"taints"`
	StartupTaints          []taintModel            `tfsdk:"startup_taints"`
	Requirements           []coreRequirementModel  `tfsdk:"requirements"`
	Limits                 map[string]types.String `tfsdk:"limits"`
	TTLSecondsAfterEmpty   types.Int64             `tfsdk:"ttl_seconds_after_empty"`
	TTLSecondsUntilExpired types.Int64             `tfsdk:"ttl_seconds_until_expired"`
	Consolidation          *consolidationModel     `tfsdk:"consolidation"`
	Weight                 types.Int64             `tfsdk:"weight"`
	KubeletConfiguration   *kubeletModel           `tfsdk:"kubelet_configuration"`
	AWS                    *inlineProviderModel    `tfsdk:"aws"`
	ProviderRef            types.String            `tfsdk:"provider_ref"`
	Status                 types.Object            `tfsdk:"status"`
}

type coreRequirementModel struct {
	Key      types.String   `tfsdk:"key"`
	Operator types.String   `tfsdk:"operator"`
	Values   []types.String `tfsdk:"values"`
}

type consolidationModel struct {
	Enabled           types.Bool   `tfsdk:"enabled"`
	MinSavingsPerHour types.String `tfsdk:"min_savings_per_hour"`
	MinSavingsPercent types.Int64  `tfsdk:"min_savings_percent"`
	MinSavingsPerPod  types.String `tfsdk:"min_savings_per_pod"`
}

type inlineProviderModel struct {
	AMIFamily             types.String            `tfsdk:"ami_family"`
	AMISelector           map[string]types.String `tfsdk:"ami_selector"`
	InstanceProfile       types.String            `tfsdk:"instance_profile"`
	SubnetSelector        map[string]types.String `tfsdk:"subnet_selector"`
	SecurityGroupSelector map[string]types.String `tfsdk:"security_group_selector"`
	Tags                  map[string]types.String `tfsdk:"tags"`
}

// provisionerKind is how tenon_provisioner stores its model: as a Provisioner. Its paths map
// Provisioner validation paths to tenon_provisioner attributes.
var provisionerKind = apiKind[provisionerModel, *v1alpha5.Provisioner]{
	name: v1alpha5.ProvisionerKind, ref: provisionerRef, toAPI: (*provisionerModel).toAPI, fromAPI: provisionerFromAPI,
	paths: newPathMapper([]pathRule{
		{api: "metadata.name", tf: path.Root("name")},
		{api: "spec.limits.resources", tf: path.Root("limits")},
		{api: "spec.limits", tf: path.Root("limits")},
		// provider is a meta-argument Terraform reserves in every resource block.
		{api: "spec.provider", tf: path.Root("aws")},
		{api: "spec.providerRef", tf: path.Root("provider_ref"), whole: true},
		{api: "spec", tf: path.Empty()},
	}, append([]string{"labels", "annotations", "limits", "tags", "ami_selector", "subnet_selector", "security_group_selector"}, kubeletMaps...)...),
}

// provisionerRef is the Provisioner named name, for Get and Delete.
func provisionerRef(name string) *v1alpha5.Provisioner {
	p := &v1alpha5.Provisioner{}
	p.APIVersion, p.Kind, p.Name = v1alpha5.SchemeGroupVersion.String(), v1alpha5.ProvisionerKind, name
	return p
}

// toAPI builds the Provisioner the model describes, and reports values that have no API form.
func (m *provisionerModel) toAPI() (*v1alpha5.Provisioner, field.ErrorList) {
	p := &v1alpha5.Provisioner{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha5.SchemeGroupVersion.String(), Kind: v1alpha5.ProvisionerKind},
		ObjectMeta: metav1.ObjectMeta{Name: str(m.Name)},
	}
	spec := &p.Spec
	spec.Labels = strMap[v1alpha5.LabelValue](m.Labels)
	spec.Annotations = strMap[string](m.Annotations)
	for _, t := range m.Taints {
		spec.Taints = append(spec.Taints, v1alpha5.Taint{Key: str(t.Key), Value: str(t.Value), Effect: corev1.TaintEffect(str(t.Effect))})
	}
	for _, t := range m.StartupTaints {
		spec.StartupTaints = append(spec.StartupTaints, v1alpha5.Taint{Key: str(t.Key), Value: str(t.Value), Effect: corev1.TaintEffect(str(t.Effect))})
	}
	for _, r := range m.Requirements {
		spec.Requirements = append(spec.Requirements, v1alpha5.NodeSelectorRequirement{
			Key: str(r.Key), Operator: corev1.NodeSelectorOperator(str(r.Operator)), Values: strList(r.Values)})
	}
	if m.Limits != nil {
		spec.Limits = &v1alpha5.Limits{Resources: resourceList(m.Limits)}
	}
	spec.TTLSecondsAfterEmpty = int64Ptr(m.TTLSecondsAfterEmpty)
	spec.TTLSecondsUntilExpired = int64Ptr(m.TTLSecondsUntilExpired)
	if c := m.Consolidation; c != nil {
		spec.Consolidation = &v1alpha5.Consolidation{Enabled: boolPtr(c.Enabled),
			MinSavingsPerHour: strPtr(c.MinSavingsPerHour), MinSavingsPercent: percentPtr(c.MinSavingsPercent), MinSavingsPerPod: strPtr(c.MinSavingsPerPod)}
	}
	spec.Weight = int32Ptr(m.Weight)
	spec.KubeletConfiguration = m.KubeletConfiguration.toAPI()
	if pr := m.AWS; pr != nil {
		spec.Provider = &v1alpha5.Provider{
			AMIFamily: str(pr.AMIFamily), AMISelector: strMap[string](pr.AMISelector), InstanceProfile: str(pr.InstanceProfile),
			SubnetSelector: strMap[string](pr.SubnetSelector), SecurityGroupSelector: strMap[string](pr.SecurityGroupSelector),
			Tags: strMap[string](pr.Tags),
		}
	}
	if !m.ProviderRef.IsNull() {
		spec.ProviderRef = &v1alpha5.ProviderRef{
			APIVersion: v1alpha5.DefaultProviderRefAPIVersion, Kind: v1alpha5.DefaultProviderRefKind, Name: str(m.ProviderRef)}
	}
	return p, quantityErrors(field.NewPath("spec", "limits", "resources"), m.Limits)
}

// provisionerFromAPI is the model of a stored Provisioner; prior (may be nil) keeps the
// user's spelling of unchanged limits.
func provisionerFromAPI(p *v1alpha5.Provisioner, prior *provisionerModel) provisionerModel {
	spec := p.Spec
	m := provisionerModel{
		ID: types.StringValue(p.Name), Name: types.StringValue(p.Name),
		Labels: tfStrMap(spec.Labels), Annotations: tfStrMap(spec.Annotations),
		TTLSecondsAfterEmpty: tfInt64Ptr(spec.TTLSecondsAfterEmpty), TTLSecondsUntilExpired: tfInt64Ptr(spec.TTLSecondsUntilExpired),
		Weight: tfInt32Ptr(spec.Weight), KubeletConfiguration: kubeletFromAPI(spec.KubeletConfiguration),
	}
	for _, t := range spec.Taints {
		m.Taints = append(m.Taints, taintModel{Key: types.StringValue(t.Key), Value: tfStr(t.Value), Effect: types.StringValue(string(t.Effect))})
	}
	for _, t := range spec.StartupTaints {
		m.StartupTaints = append(m.StartupTaints, taintModel{Key: types.StringValue(t.Key), Value: tfStr(t.Value), Effect: types.StringValue(string(t.Effect))})
	}
	for _, r := range spec.Requirements {
		m.Requirements = append(m.Requirements, coreRequirementModel{Key: types.StringValue(r.Key), Operator: types.StringValue(string(r.Operator)), Values: tfStrList(r.Values)})
	}
	if spec.Limits != nil {
		var priorLimits map[string]types.String
		if prior != nil {
			priorLimits = prior.Limits
		}
		m.Limits = tfResourceList(spec.Limits.Resources, priorLimits)
	}
	if c := spec.Consolidation; c != nil {
		m.Consolidation = &consolidationModel{Enabled: tfBoolPtr(c.Enabled),
			MinSavingsPerHour: tfStrPtr(c.MinSavingsPerHour), MinSavingsPercent: tfInt32Ptr(c.MinSavingsPercent), MinSavingsPerPod: tfStrPtr(c.MinSavingsPerPod)}
	}
	if pr := spec.Provider; pr != nil {
		m.AWS = &inlineProviderModel{
			AMIFamily: tfStr(pr.AMIFamily), AMISelector: tfStrMap(pr.AMISelector), InstanceProfile: tfStr(pr.InstanceProfile),
			SubnetSelector: tfStrMap(pr.SubnetSelector), SecurityGroupSelector: tfStrMap(pr.SecurityGroupSelector), Tags: tfStrMap(pr.Tags),
		}
	}
	m.ProviderRef = types.StringNull()
	if ref := spec.ProviderRef; ref != nil {
		// apiVersion and kind have one allowed value each, which the API defaults.
		m.ProviderRef = types.StringValue(ref.Name)
	}
	last := types.StringNull()
	if p.Status.LastScaleTime != nil {
		last = types.StringValue(p.Status.LastScaleTime.UTC().Format(time.RFC3339))
	}
	m.Status = types.ObjectValueMust(provisionerStatusType.AttrTypes, map[string]attr.Value{
		"last_scale_time": last,
		"resources":       tfQuantities(p.Status.Resources),
		"cost_per_hour":   types.StringValue(p.Status.CostPerHour),
		"conditions":      tfConditions(p.Status.Conditions),
	})
	return m
}
