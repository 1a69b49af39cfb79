package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

var (
	_ resource.ResourceWithConfigure      = (*nodePoolResource)(nil)
	_ resource.ResourceWithImportState    = (*nodePoolResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodePoolResource)(nil)
)

// nodePoolResource is tenon_nodepool: a tenon.dev/v1 NodePool.
type nodePoolResource struct {
	target delivery.Target
}

// NewNodePoolResource returns the tenon_nodepool resource.
func NewNodePoolResource() resource.Resource { return &nodePoolResource{} }

func (r *nodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nodepool"
}

func (r *nodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.target = targetFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// nonEmptyList and nonEmptyMap keep null and empty from meaning two things: the API drops
// empty lists and maps, so an empty one would read back as null.
func nonEmptyList() []validator.List { return []validator.List{listvalidator.SizeAtLeast(1)} }
func nonEmptyMap() []validator.Map   { return []validator.Map{mapvalidator.SizeAtLeast(1)} }
func nonEmptyString() []validator.String {
	return []validator.String{stringvalidator.LengthAtLeast(1)}
}

func requirementsAttribute(withMinValues bool, operators string) schema.ListNestedAttribute {
	attrs := map[string]schema.Attribute{
		"key": schema.StringAttribute{Required: true, MarkdownDescription: "Node label the requirement applies to, such as " +
			"`node.kubernetes.io/instance-type` or `tenon.dev/capacity-type`. Keys in the kubernetes.io, k8s.io, karpenter.sh " +
			"and tenon.dev domains are restricted to the well-known labels."},
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

func taintsAttribute(what string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true, Validators: nonEmptyList(), MarkdownDescription: what,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":    schema.StringAttribute{Required: true, MarkdownDescription: "Taint key, a label key such as `example.com/dedicated`."},
			"value":  schema.StringAttribute{Optional: true, Validators: nonEmptyString(), MarkdownDescription: "Taint value, a label value."},
			"effect": schema.StringAttribute{Required: true, MarkdownDescription: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`."},
		}},
	}
}

func (r *nodePoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A `tenon.dev/v1` NodePool: which nodes the agent may launch for pending pods (`template`), " +
			"when it may remove or replace them (`disruption`), how much it may launch in total (`limits`) and how it ranks " +
			"against other pools (`weight`). Every field is checked at plan time with the same rules as the API server's.",
		Attributes: map[string]schema.Attribute{
			"id":   idAttribute(),
			"name": nameAttribute("NodePool"),
			"template": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "The nodes this pool may launch. Each node is further constrained by the pods it is launched for.",
				Attributes: map[string]schema.Attribute{
					"metadata": schema.SingleNestedAttribute{
						Optional:            true,
						MarkdownDescription: "Labels and annotations every node of the pool gets.",
						Attributes: map[string]schema.Attribute{
							"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
								MarkdownDescription: "Labels put on every node; pods can select them. Keys in the kubernetes.io, k8s.io, " +
									"karpenter.sh and tenon.dev domains are restricted to the well-known labels; `tenon.dev/nodepool` is set by the agent."},
							"annotations": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
								MarkdownDescription: "Annotations put on every node."},
						},
					},
					"requirements":   requirementsAttribute(true, "`In`, `NotIn`, `Exists`, `DoesNotExist`, and for integer labels `Gt`, `Lt`, `Gte`, `Lte`"),
					"taints":         taintsAttribute("Taints put on every node of the pool; only pods that tolerate them run there."),
					"startup_taints": taintsAttribute("Taints put on every node at launch and removed by something on the node once it is ready. Pods need not tolerate them."),
					"expire_after": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(string(v1.DefaultExpireAfter)),
						MarkdownDescription: "How long a node may live before the agent replaces it, such as `720h` (the default) or `1h30m`; `Never` keeps nodes."},
					"termination_grace_period": schema.StringAttribute{Optional: true,
						MarkdownDescription: "Longest the agent waits for a node to drain, such as `30m`; after that it deletes the remaining pods. Absent means wait as long as it takes."},
					"node_class": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the `tenon_node_class` the nodes are launched with."},
				},
			},
			"disruption": schema.SingleNestedAttribute{
				Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultDisruption()),
				MarkdownDescription: "When the agent may remove or replace the pool's nodes. Absent means consolidate empty or " +
					"underutilized nodes at once (`0s`), at most 10% of the nodes at a time.",
				Attributes: map[string]schema.Attribute{
					"consolidation_policy": schema.StringAttribute{Optional: true, Computed: true,
						Default:             stringdefault.StaticString(string(v1.ConsolidationPolicyWhenEmptyOrUnderutilized)),
						MarkdownDescription: "Which nodes consolidation may remove or replace: `WhenEmpty`, or `WhenEmptyOrUnderutilized` (the default)."},
					"consolidate_after": schema.StringAttribute{Required: true,
						MarkdownDescription: "How long a node must have had no pod scheduled or removed before consolidation considers it, such as `30s`; `0s` considers nodes at once and `Never` turns consolidation off."},
					"budgets": schema.ListNestedAttribute{Optional: true, Computed: true, Default: listdefault.StaticValue(defaultBudgets()),
						Validators:          nonEmptyList(),
						MarkdownDescription: "Caps on how many nodes may be disrupted at once; the most restrictive active one wins. Absent means one budget of `10%`.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"nodes": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(v1.DefaultBudgetNodes),
								MarkdownDescription: "How many nodes may be disrupted at once: a count such as `5` or a percentage such as `10%` (the default)."},
							"schedule": schema.StringAttribute{Optional: true,
								MarkdownDescription: "When the budget's window opens, in cron syntax such as `0 9 * * mon-fri` or `@daily`. Requires `duration`."},
							"duration": schema.StringAttribute{Optional: true,
								MarkdownDescription: "How long the window stays open after each schedule hit, such as `8h` or `1h30m`. Requires `schedule`."},
							"reasons": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyList(),
								MarkdownDescription: "Limit the budget to some disruption reasons: `Empty`, `Underutilized`, `Drifted`. Absent means all."},
						}},
					},
				},
			},
			"limits": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
				MarkdownDescription: "Caps the total resources of the pool's nodes, such as `{ cpu = \"1000\", memory = \"1000Gi\" }`; the agent launches nothing that would exceed them."},
			"weight": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Rank against other pools, 1 to 100: the agent tries higher weights first. Pools without a weight come last."},
			"status": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "What the agent observed about the pool.",
				Attributes: map[string]schema.Attribute{
					"nodes":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of nodes the pool has."},
					"resources":  schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Sum of the capacity of the pool's nodes."},
					"conditions": conditionsAttribute("`Ready`, `NodeClassReady`, `ValidationSucceeded`"),
				},
			},
		},
	}
}

// ValidateConfig runs the API's validation on the configuration, at plan time.
func (r *nodePoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodePoolModel
	if d := req.Config.Get(ctx, &m); d.HasError() {
		return // a collection is unknown until apply; it is checked then
	}
	np, errs := m.toAPI()
	if m.Name.IsUnknown() {
		np.Name = "unknown"
	}
	errs = append(errs, np.Validate()...)
	addFieldErrors(ctx, &resp.Diagnostics, req.Config, nodePoolPaths, "NodePool", errs)
}

func (r *nodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *nodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// apply writes the planned NodePool and replaces plan with what the target stored.
func (r *nodePoolResource) apply(ctx context.Context, plan *nodePoolModel, diags *diag.Diagnostics) {
	np, _ := plan.toAPI()
	if !requireTarget(r.target, diags) {
		return
	}
	if err := r.target.Apply(ctx, np); err != nil {
		diags.AddError("Cannot Apply NodePool", err.Error())
		return
	}
	*plan = nodePoolFromAPI(np, plan)
}

func (r *nodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireTarget(r.target, &resp.Diagnostics) {
		return
	}
	np := &v1.NodePool{}
	np.APIVersion, np.Kind, np.Name = v1.SchemeGroupVersion.String(), v1.NodePoolKind, state.Name.ValueString()
	if err := r.target.Get(ctx, np); err != nil {
		if delivery.IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Cannot Read NodePool", err.Error())
		return
	}
	m := nodePoolFromAPI(np, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *nodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	np := &v1.NodePool{}
	np.APIVersion, np.Kind, np.Name = v1.SchemeGroupVersion.String(), v1.NodePoolKind, state.Name.ValueString()
	deleteObject(ctx, r.target, np, resp)
}

// ImportState adopts an existing NodePool by name: terraform import tenon_nodepool.x NAME.
func (r *nodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
