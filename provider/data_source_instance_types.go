package provider

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

var _ datasource.DataSourceWithValidateConfig = (*instanceTypesDataSource)(nil)

// instanceTypesDataSource is tenon_instance_types: the embedded catalog filtered by
// requirements, with the price of every offering.
type instanceTypesDataSource struct{}

// NewInstanceTypesDataSource returns the tenon_instance_types data source.
func NewInstanceTypesDataSource() datasource.DataSource { return &instanceTypesDataSource{} }

type instanceTypesModel struct {
	Region        types.String        `tfsdk:"region"`
	Zones         []types.String      `tfsdk:"zones"`
	Requirements  []requirementModel  `tfsdk:"requirements"`
	InstanceTypes []instanceTypeModel `tfsdk:"instance_types"`
}

type instanceTypeModel struct {
	Name                 types.String    `tfsdk:"name"`
	VCPU                 types.Int64     `tfsdk:"vcpu"`
	MemoryMiB            types.Int64     `tfsdk:"memory_mib"`
	Arch                 types.String    `tfsdk:"arch"`
	GPUCount             types.Int64     `tfsdk:"gpu_count"`
	GPUName              types.String    `tfsdk:"gpu_name"`
	AllocatableCPU       types.String    `tfsdk:"allocatable_cpu"`
	AllocatableMemory    types.String    `tfsdk:"allocatable_memory"`
	MaxPods              types.Int64     `tfsdk:"max_pods"`
	CheapestPricePerHour types.Float64   `tfsdk:"cheapest_price_per_hour"`
	Offerings            []offeringModel `tfsdk:"offerings"`
}

type offeringModel struct {
	Zone         types.String  `tfsdk:"zone"`
	CapacityType types.String  `tfsdk:"capacity_type"`
	PricePerHour types.Float64 `tfsdk:"price_per_hour"`
	Available    types.Bool    `tfsdk:"available"`
}

func (d *instanceTypesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_types"
}

// dsRequirementsAttribute is the requirements list of the data sources.
func dsRequirementsAttribute(desc string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true, Validators: []validator.List{listvalidator.SizeAtLeast(1)}, MarkdownDescription: desc,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":        schema.StringAttribute{Required: true, MarkdownDescription: "Node label, such as `tenon.dev/instance-family` or `kubernetes.io/arch`."},
			"operator":   schema.StringAttribute{Required: true, MarkdownDescription: allOperatorsDoc() + "."},
			"values":     schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Label values."},
			"min_values": schema.Int64Attribute{Optional: true, MarkdownDescription: "Accepted for symmetry with `tenon_nodepool`; it does not filter."},
		}},
	}
}

func (d *instanceTypesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computedStr := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	computedInt := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The EC2 instance types of Tenon's embedded catalog (no cloud account needed) that meet `requirements`, " +
			"the same requirements a `tenon_nodepool` writes, with capacity, allocatable resources and the hourly price of every " +
			"offering (zone × capacity type; spot prices are estimates). Sorted by name.",
		Attributes: map[string]schema.Attribute{
			"region": schema.StringAttribute{Optional: true,
				MarkdownDescription: "AWS region whose prices apply. Defaults to `" + catalog.DefaultRegion + "`."},
			"zones": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				MarkdownDescription: "Availability zones offerings are made in. Defaults to the region's a, b and c zones."},
			"requirements": dsRequirementsAttribute("Keep the types whose labels meet all of these (zone and capacity type narrow the offerings). Absent means every type."),
			"instance_types": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The matching instance types, sorted by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":                    computedStr("EC2 name, such as `m5.large`."),
					"vcpu":                    computedInt("vCPUs."),
					"memory_mib":              computedInt("Memory in MiB."),
					"arch":                    computedStr(codeList([]string{scheduling.ArchAMD64, scheduling.ArchARM64}, nil) + "."),
					"gpu_count":               computedInt("GPUs (0 without)."),
					"gpu_name":                computedStr("GPU model, such as `a100`; empty without GPUs."),
					"allocatable_cpu":         computedStr("CPU pods can request, after kube-reserved resources."),
					"allocatable_memory":      computedStr("Memory pods can request, after kube-reserved memory and the eviction threshold."),
					"max_pods":                computedInt("Pods the node accepts."),
					"cheapest_price_per_hour": schema.Float64Attribute{Computed: true, MarkdownDescription: "Lowest price of an available offering, USD per hour."},
					"offerings": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Ways to buy the type, by zone then capacity type.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"zone":           computedStr("Availability zone."),
							"capacity_type":  computedStr(codeList([]string{scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot}, nil) + "."),
							"price_per_hour": schema.Float64Attribute{Computed: true, MarkdownDescription: "USD per hour."},
							"available":      schema.BoolAttribute{Computed: true, MarkdownDescription: "False when the offering is known to have no capacity."},
						}}},
				}}},
		},
	}
}

// allOperatorsDoc lists the operators a data source's requirement may use: a NodePool's.
func allOperatorsDoc() string {
	set, integer := v1.RequirementOperators()
	return codeList(append(set, integer...), nil)
}

// instanceTypesPaths: the data source's requirements sit at the root.
var instanceTypesPaths = newPathMapper(nil)

func requirementsToAPI(reqs []requirementModel) []v1.NodeSelectorRequirementWithMinValues {
	var out []v1.NodeSelectorRequirementWithMinValues
	for _, r := range reqs {
		out = append(out, v1.NodeSelectorRequirementWithMinValues{Key: str(r.Key), Operator: corev1.NodeSelectorOperator(str(r.Operator)),
			Values: strList(r.Values), MinValues: int32Ptr(r.MinValues)})
	}
	return out
}

func (d *instanceTypesDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m instanceTypesModel
	if diags := req.Config.Get(ctx, &m); diags.HasError() {
		return
	}
	errs := v1.ValidateRequirements(field.NewPath("requirements"), requirementsToAPI(m.Requirements))
	addFieldErrors(ctx, &resp.Diagnostics, req.Config, instanceTypesPaths, "Requirement", errs)
}

// catalogFor builds the catalog for a region and zones (both optional).
func catalogFor(region types.String, zones []types.String) (*catalog.Catalog, error) {
	var opts []catalog.Option
	if !region.IsNull() {
		opts = append(opts, catalog.WithRegion(region.ValueString()))
	}
	if len(zones) > 0 {
		opts = append(opts, catalog.WithZones(strList(zones)...))
	}
	return catalog.New(opts...)
}

func (d *instanceTypesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m instanceTypesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat, err := catalogFor(m.Region, m.Zones)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("region"), "Invalid Region or Zones", err.Error())
		return
	}
	specs := make([]scheduling.RequirementSpec, 0, len(m.Requirements))
	for _, r := range requirementsToAPI(m.Requirements) {
		specs = append(specs, scheduling.RequirementSpec{Key: r.Key, Operator: string(r.Operator), Values: r.Values})
	}
	reqs, err := scheduling.RequirementsFromSpecs(specs...)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("requirements"), "Invalid Requirement", err.Error())
		return
	}
	m.InstanceTypes = []instanceTypeModel{}
	for _, it := range cat.Filter(reqs) {
		m.InstanceTypes = append(m.InstanceTypes, instanceTypeFromCatalog(it))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func labelInt(it *catalog.InstanceType, key string) int64 {
	v, ok := it.Requirements.Get(key).Any()
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func labelString(it *catalog.InstanceType, key string) string {
	if !it.Requirements.Has(key) {
		return ""
	}
	v, _ := it.Requirements.Get(key).Any()
	return v
}

func instanceTypeFromCatalog(it *catalog.InstanceType) instanceTypeModel {
	cpu, mem, pods := it.Allocatable[corev1.ResourceCPU], it.Allocatable[corev1.ResourceMemory], it.Capacity[corev1.ResourcePods]
	out := instanceTypeModel{
		Name:              types.StringValue(it.Name),
		VCPU:              types.Int64Value(labelInt(it, scheduling.LabelInstanceCPU)),
		MemoryMiB:         types.Int64Value(labelInt(it, scheduling.LabelInstanceMemory)),
		Arch:              types.StringValue(labelString(it, scheduling.LabelArch)),
		GPUCount:          types.Int64Value(labelInt(it, scheduling.LabelInstanceGPUCount)),
		GPUName:           types.StringValue(labelString(it, scheduling.LabelInstanceGPUName)),
		AllocatableCPU:    types.StringValue(cpu.String()),
		AllocatableMemory: types.StringValue(mem.String()),
		MaxPods:           types.Int64Value(pods.Value()),
		Offerings:         []offeringModel{},
	}
	cheapest, ok := it.CheapestOffering()
	out.CheapestPricePerHour = types.Float64Null()
	if ok {
		out.CheapestPricePerHour = types.Float64Value(cheapest.PricePerHour)
	}
	for _, o := range it.Offerings {
		out.Offerings = append(out.Offerings, offeringModel{Zone: types.StringValue(o.Zone), CapacityType: types.StringValue(o.CapacityType),
			PricePerHour: types.Float64Value(o.PricePerHour), Available: types.BoolValue(o.Available)})
	}
	return out
}
