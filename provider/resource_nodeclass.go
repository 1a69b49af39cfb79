package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

var (
	_ resource.ResourceWithConfigure      = (*nodeClassResource)(nil)
	_ resource.ResourceWithImportState    = (*nodeClassResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodeClassResource)(nil)
)

// nodeClassResource is tenon_node_class: a tenon.dev/v1 NodeClass.
type nodeClassResource struct {
	target delivery.Target
}

// NewNodeClassResource returns the tenon_node_class resource.
func NewNodeClassResource() resource.Resource { return &nodeClassResource{} }

func (r *nodeClassResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_class"
}

func (r *nodeClassResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.target = targetFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// replaceOnCloudSwitch replaces the object when the cloud block switches between aws and kwok,
// which the API forbids in place.
func replaceOnCloudSwitch() planmodifier.Object {
	return objectplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = !req.State.Raw.IsNull() && req.StateValue.IsNull() != req.PlanValue.IsNull()
	}, "Switching between aws and kwok replaces the NodeClass.", "Switching between `aws` and `kwok` replaces the NodeClass.")
}

func selectorTagsAttribute() schema.MapAttribute {
	return schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
		MarkdownDescription: "Select the resources carrying all these tags; a value of `*` matches any value."}
}

func optString(d string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Validators: nonEmptyString(), MarkdownDescription: d}
}

func (r *nodeClassResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A `tenon.dev/v1` NodeClass: how a cloud launches nodes. Exactly one of `aws` (EC2) or `kwok` " +
			"(simulated nodes for local clusters and tests). Node pools reference it by name. The agent resolves subnets, " +
			"security groups and AMIs into `status`.",
		Attributes: map[string]schema.Attribute{
			"id":   idAttribute(),
			"name": nameAttribute("NodeClass"),
			"kwok": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{},
				PlanModifiers:       []planmodifier.Object{replaceOnCloudSwitch()},
				MarkdownDescription: "Launch simulated nodes (Node objects KWOK keeps Ready). It has no settings: write `kwok = {}`. Exclusive with `aws`; switching replaces the NodeClass."},
			"aws": schema.SingleNestedAttribute{
				Optional:            true,
				PlanModifiers:       []planmodifier.Object{replaceOnCloudSwitch()},
				MarkdownDescription: "Launch EC2 instances. Exclusive with `kwok`; switching replaces the NodeClass.",
				Attributes: map[string]schema.Attribute{
					"ami_family": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(v1.AMIFamilyAL2023),
						MarkdownDescription: "Operating system family: `AL2023` (the default), `Bottlerocket`, or `Custom` (requires `ami_selector_terms`). It decides the bootstrap user data."},
					"ami_selector_terms": schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
						MarkdownDescription: "Select the AMIs instead of the family's default. Terms are ORed; a term's fields are ANDed.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"tags":          selectorTagsAttribute(),
							"id":            optString("AMI ID such as `ami-0123456789abcdef0`."),
							"name":          optString("AMI name, with `*` as a wildcard."),
							"owner":         optString("AMI owner: an account ID, `self`, `amazon` or `aws-marketplace`. Absent means self and amazon."),
							"ssm_parameter": optString("Name or ARN of an SSM parameter holding an AMI ID."),
						}}},
					"subnet_selector_terms": schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
						MarkdownDescription: "Select the subnets nodes are launched in; terms are ORed. Absent means the subnets tagged `kubernetes.io/cluster/<cluster-name>`.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"tags": selectorTagsAttribute(),
							"id":   optString("Subnet ID such as `subnet-0123456789abcdef0`."),
						}}},
					"security_group_selector_terms": schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
						MarkdownDescription: "Select the security groups of the nodes; terms are ORed. Absent means the groups tagged `kubernetes.io/cluster/<cluster-name>`.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"tags": selectorTagsAttribute(),
							"id":   optString("Security group ID such as `sg-0123456789abcdef0`."),
							"name": optString("Security group name (not its Name tag)."),
						}}},
					"role":             optString("IAM role of the nodes; the agent manages an instance profile for it. Exclusive with `instance_profile`."),
					"instance_profile": optString("Existing IAM instance profile of the nodes. Exclusive with `role`."),
					"tags": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
						MarkdownDescription: "Tags put on instances, volumes and launch templates. `tenon.dev/cluster`, `tenon.dev/nodepool`, `tenon.dev/nodeclaim` and `kubernetes.io/cluster/*` are set by the agent and cannot be set here."},
					"block_device_mappings": schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
						MarkdownDescription: "Disks of the nodes. Absent means the family's default root volume.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"device_name": schema.StringAttribute{Required: true, MarkdownDescription: "Device name, such as `/dev/xvda`."},
							"root_volume": schema.BoolAttribute{Optional: true, MarkdownDescription: "The kubelet's root directory lives on this device. At most one device may set it."},
							"ebs": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "The EBS volume of the device.",
								Attributes: map[string]schema.Attribute{
									"delete_on_termination": schema.BoolAttribute{Optional: true, MarkdownDescription: "Delete the volume with the instance. Absent means true."},
									"encrypted":             schema.BoolAttribute{Optional: true, MarkdownDescription: "Encrypt the volume."},
									"iops":                  schema.Int64Attribute{Optional: true, MarkdownDescription: "Provisioned IOPS of io1, io2 and gp3 volumes."},
									"kms_key_id":            optString("KMS key (ID, alias or ARN) encrypting the volume."),
									"snapshot_id":           optString("EBS snapshot the volume is created from."),
									"throughput":            schema.Int64Attribute{Optional: true, MarkdownDescription: "Provisioned throughput of gp3 volumes, in MiB/s."},
									"volume_size":           optString("Size of the volume, such as `100Gi`."),
									"volume_type":           optString("`standard`, `io1`, `io2`, `gp2`, `sc1`, `st1` or `gp3`."),
								}},
						}}},
					"metadata_options": schema.SingleNestedAttribute{Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultMetadataOptions()),
						MarkdownDescription: "The instance metadata service (IMDS). The default requires IMDSv2 tokens with a hop limit of 1, so pods cannot reach the node's credentials.",
						Attributes: map[string]schema.Attribute{
							"http_endpoint": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(defaultHTTPEndpoint),
								MarkdownDescription: "`enabled` (the default) or `disabled`."},
							"http_protocol_ipv6": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(defaultHTTPProtocolIPv6),
								MarkdownDescription: "The IPv6 endpoint: `enabled` or `disabled` (the default)."},
							"http_put_response_hop_limit": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultHopLimit),
								MarkdownDescription: "Network hops a metadata response may travel, 1 (the default) to 64."},
							"http_tokens": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(defaultHTTPTokens),
								MarkdownDescription: "`required` (the default: IMDSv2 only) or `optional`."},
						}},
					"user_data": optString("User data merged with the family's bootstrap user data (nodeadm YAML or MIME for AL2023, TOML for Bottlerocket); used as is with `Custom`."),
					"kubelet":   kubeletAttribute("Kubelet settings of the nodes."),
				},
			},
			"status": schema.SingleNestedAttribute{
				Computed: true, MarkdownDescription: "What the agent resolved from the spec.",
				Attributes: map[string]schema.Attribute{
					"ready": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the `Ready` condition is true: nodes can be launched with this class."},
					"subnets": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Subnets the selector resolved to.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"id":      schema.StringAttribute{Computed: true, MarkdownDescription: "Subnet ID."},
							"zone":    schema.StringAttribute{Computed: true, MarkdownDescription: "Availability zone name."},
							"zone_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Availability zone ID."},
						}}},
					"security_groups": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Security groups the selector resolved to.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Security group ID."},
							"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Security group name."},
						}}},
					"amis": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "AMIs the family or selector resolved to.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "AMI ID."},
							"name": schema.StringAttribute{Computed: true, MarkdownDescription: "AMI name."},
							"requirements": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Node labels the AMI can serve.",
								NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
									"key":      schema.StringAttribute{Computed: true, MarkdownDescription: "Label key."},
									"operator": schema.StringAttribute{Computed: true, MarkdownDescription: "Operator."},
									"values":   schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Values."},
								}}},
						}}},
					"instance_profile": schema.StringAttribute{Computed: true, MarkdownDescription: "Instance profile nodes are launched with."},
					"conditions":       conditionsAttribute("`Ready`, `SubnetsReady`, `SecurityGroupsReady`, `AMIsReady`, `InstanceProfileReady`"),
				},
			},
		},
	}
}

// ValidateConfig runs the API's validation on the configuration, at plan time.
func (r *nodeClassResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodeClassModel
	if d := req.Config.Get(ctx, &m); d.HasError() {
		return // a collection is unknown until apply; it is checked then
	}
	if m.KWOK.IsUnknown() {
		return
	}
	nc, errs := m.toAPI()
	if m.Name.IsUnknown() {
		nc.Name = "unknown"
	}
	errs = append(errs, nc.Validate()...)
	addFieldErrors(ctx, &resp.Diagnostics, req.Config, nodeClassPaths, "NodeClass", errs)
}

func (r *nodeClassResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodeClassModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if r.apply(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

func (r *nodeClassResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan nodeClassModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if r.apply(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

// apply writes the planned NodeClass and replaces plan with what the target stored.
func (r *nodeClassResource) apply(ctx context.Context, plan *nodeClassModel, diags *diag.Diagnostics) bool {
	if diags.HasError() || !requireTarget(r.target, diags) {
		return false
	}
	nc, _ := plan.toAPI()
	if err := r.target.Apply(ctx, nc); err != nil {
		diags.AddError("Cannot Apply NodeClass", err.Error())
		return false
	}
	*plan = nodeClassFromAPI(nc, plan)
	return true
}

func nodeClassRef(name string) *v1.NodeClass {
	nc := &v1.NodeClass{}
	nc.APIVersion, nc.Kind, nc.Name = v1.SchemeGroupVersion.String(), v1.NodeClassKind, name
	return nc
}

func (r *nodeClassResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodeClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireTarget(r.target, &resp.Diagnostics) {
		return
	}
	nc := nodeClassRef(state.Name.ValueString())
	if err := r.target.Get(ctx, nc); err != nil {
		if delivery.IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Cannot Read NodeClass", err.Error())
		return
	}
	m := nodeClassFromAPI(nc, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *nodeClassResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodeClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	deleteObject(ctx, r.target, nodeClassRef(state.Name.ValueString()), resp)
}

// ImportState adopts an existing NodeClass by name: terraform import tenon_node_class.x NAME.
func (r *nodeClassResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
