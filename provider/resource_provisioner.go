package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

var (
	_ resource.ResourceWithConfigure      = (*provisionerResource)(nil)
	_ resource.ResourceWithImportState    = (*provisionerResource)(nil)
	_ resource.ResourceWithValidateConfig = (*provisionerResource)(nil)
)

// provisionerResource is tenon_provisioner: a tenon.dev/v1alpha5 Provisioner, Karpenter's
// v1alpha5 shape, which the agent runs as a NodePool (and NodeClass).
type provisionerResource struct {
	target delivery.Target
}

// NewProvisionerResource returns the tenon_provisioner resource.
func NewProvisionerResource() resource.Resource { return &provisionerResource{} }

func (r *provisionerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_provisioner"
}

func (r *provisionerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.target = targetFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *provisionerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	tagMap := func(d string) schema.MapAttribute {
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(), MarkdownDescription: d}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A `tenon.dev/v1alpha5` Provisioner, Karpenter's v1alpha5 capacity policy, for teams moving from it: " +
			"the nodes the agent may launch (`labels`, `taints`, `requirements`, `aws` or `provider_ref`), when it removes them " +
			"(`ttl_seconds_after_empty`, `ttl_seconds_until_expired`, `consolidation`), how much it may launch (`limits`) and how it " +
			"ranks (`weight`). The agent runs it exactly like a `tenon_nodepool`. Every field is checked at plan time.",
		Attributes: map[string]schema.Attribute{
			"id":             idAttribute(),
			"name":           nameAttribute("Provisioner"),
			"labels":         tagMap("Labels put on every node; pods can select them. Keys in the kubernetes.io, k8s.io, karpenter.sh and tenon.dev domains are restricted to the well-known labels."),
			"annotations":    tagMap("Annotations put on every node."),
			"taints":         taintsAttribute("Taints put on every node; only pods that tolerate them run there."),
			"startup_taints": taintsAttribute("Taints put on every node at launch and removed by something on the node once it is ready. Pods need not tolerate them."),
			"requirements":   requirementsAttribute(false, "`In`, `NotIn`, `Exists`, `DoesNotExist`, and for integer labels `Gt`, `Lt`"),
			"limits": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
				MarkdownDescription: "Caps the total resources of the provisioner's nodes, such as `{ cpu = \"1000\" }` (the API's `limits.resources`)."},
			"ttl_seconds_after_empty": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Seconds a node may stay empty (DaemonSet pods aside) before the agent removes it. Exclusive with `consolidation.enabled`."},
			"ttl_seconds_until_expired": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Seconds a node may live, from its launch, before the agent replaces it. Absent means nodes do not expire."},
			"consolidation": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Consolidation removes or replaces nodes whose pods fit elsewhere or on a cheaper node.",
				Attributes: map[string]schema.Attribute{
					"enabled": schema.BoolAttribute{Optional: true, MarkdownDescription: "Turn consolidation on. Exclusive with `ttl_seconds_after_empty`."},
				}},
			"weight":                schema.Int64Attribute{Optional: true, MarkdownDescription: "Rank against other pools, 1 to 100: higher weights are tried first."},
			"kubelet_configuration": kubeletAttribute("Kubelet settings of the nodes (a NodeClass's `aws.kubelet`)."),
			"aws": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Inline AWS configuration of the nodes, the API's `provider` (a name Terraform reserves); it becomes a NodeClass named after the " +
					"provisioner. Exclusive with `provider_ref`; one of them is required.",
				Attributes: map[string]schema.Attribute{
					"ami_family":              optString("`AL2023` (the NodeClass default), `Bottlerocket`, or `Custom` (requires `ami_selector`)."),
					"ami_selector":            tagMap("Select the AMIs carrying all these tags instead of the family's default; `*` matches any value."),
					"instance_profile":        schema.StringAttribute{Required: true, MarkdownDescription: "IAM instance profile of the nodes."},
					"subnet_selector":         tagMap("Select the subnets carrying all these tags. Absent means the subnets tagged `kubernetes.io/cluster/<cluster-name>`."),
					"security_group_selector": tagMap("Select the security groups carrying all these tags. Absent means the groups tagged `kubernetes.io/cluster/<cluster-name>`."),
					"tags":                    tagMap("Tags put on instances, volumes and launch templates; the agent's own tags cannot be set here."),
				}},
			"provider_ref": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Name of the `tenon_node_class` the nodes are launched with (the API's `providerRef.name`; its apiVersion and kind are always `" +
					v1alpha5.DefaultProviderRefAPIVersion + "` and `" + v1alpha5.DefaultProviderRefKind + "`). Exclusive with `aws`; one of them is required."},
			"status": schema.SingleNestedAttribute{Computed: true, MarkdownDescription: "What the agent observed about the provisioner.",
				Attributes: map[string]schema.Attribute{
					"last_scale_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When the agent last launched or removed one of its nodes (RFC 3339)."},
					"resources":       schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Sum of the capacity of its nodes."},
					"conditions":      conditionsAttribute("`Ready`, `NodeClassReady`, `ValidationSucceeded`"),
				}},
		},
	}
}

// ValidateConfig runs the API's validation on the configuration, at plan time.
func (r *provisionerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m provisionerModel
	if d := req.Config.Get(ctx, &m); d.HasError() {
		return // a collection is unknown until apply; it is checked then
	}
	p, errs := m.toAPI()
	if m.Name.IsUnknown() {
		p.Name = "unknown"
	}
	errs = append(errs, p.Validate()...)
	addFieldErrors(ctx, &resp.Diagnostics, req.Config, provisionerPaths, "Provisioner", errs)
}

func (r *provisionerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan provisionerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if r.apply(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

func (r *provisionerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan provisionerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if r.apply(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

// apply writes the planned Provisioner and replaces plan with what the target stored.
func (r *provisionerResource) apply(ctx context.Context, plan *provisionerModel, diags *diag.Diagnostics) bool {
	if diags.HasError() || !requireTarget(r.target, diags) {
		return false
	}
	p, _ := plan.toAPI()
	if err := r.target.Apply(ctx, p); err != nil {
		diags.AddError("Cannot Apply Provisioner", err.Error())
		return false
	}
	*plan = provisionerFromAPI(p, plan)
	return true
}

func provisionerRef(name string) *v1alpha5.Provisioner {
	p := &v1alpha5.Provisioner{}
	p.APIVersion, p.Kind, p.Name = v1alpha5.SchemeGroupVersion.String(), v1alpha5.ProvisionerKind, name
	return p
}

func (r *provisionerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state provisionerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireTarget(r.target, &resp.Diagnostics) {
		return
	}
	p := provisionerRef(state.Name.ValueString())
	if err := r.target.Get(ctx, p); err != nil {
		if delivery.IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Cannot Read Provisioner", err.Error())
		return
	}
	m := provisionerFromAPI(p, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *provisionerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state provisionerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	deleteObject(ctx, r.target, provisionerRef(state.Name.ValueString()), resp)
}

// ImportState adopts an existing Provisioner by name: terraform import tenon_provisioner.x NAME.
func (r *provisionerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
