package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

// The shape every resource shares, as HashiCorp's framework providers write it: read the plan
// or state into the model, return on an error, do the work through the delivery target, set
// the state. targetResource is what all resources have (type name, target); objectResource is
// the whole CRUD of a resource that is one tenon.dev object (tenon_nodepool, tenon_node_class,
// tenon_provisioner), given the hooks of its kind in an apiKind.

// tenonResource is what every resource of the provider implements: it takes the provider's
// delivery target, checks its configuration at plan time and can be imported.
type tenonResource interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
	resource.ResourceWithValidateConfig
}

// targetResource is the part of every resource that is not about its objects: its type name
// and the delivery target Configure hands it.
type targetResource struct {
	// typeName follows the provider's name, such as "_nodepool".
	typeName string
	target   delivery.Target
}

// Metadata names the resource tenon<typeName>.
func (r *targetResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeName
}

// Configure takes the provider's delivery target.
func (r *targetResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.target = targetFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// apiObject is a typed tenon.dev object that checks itself as the API server would.
type apiObject interface {
	delivery.Object
	Validate() field.ErrorList
}

// apiKind is what objectResource needs to know of one kind: M is the resource's model (its
// schema as Go values), O the API object it stands for.
type apiKind[M any, O apiObject] struct {
	// name is the API kind, such as NodePool, for diagnostics.
	name string
	// paths maps the object's validation paths to the resource's attributes.
	paths pathMapper
	// ref returns an object holding only apiVersion, kind and name: what Get fills and Delete
	// removes.
	ref func(name string) O
	// toAPI builds the object the model describes, and reports values that have no API form.
	toAPI func(m *M) (O, field.ErrorList)
	// fromAPI is the model of a stored object. prior (the plan or the last state, may be nil)
	// keeps the user's spelling of values the API stores in another form.
	fromAPI func(o O, prior *M) M
	// checkAtApply, when set, reports a configuration whose validation waits for apply: a
	// value unknown at plan time decides what the object is.
	checkAtApply func(m *M) bool
}

// objectResource is the resource of one API kind: Create and Update apply the object the plan
// describes, Read gets it back (a missing object leaves the state), Delete removes it,
// ValidateConfig runs the API's own validation at plan time and ImportState adopts an object
// by name. Each resource file gives its kind, description and attributes.
type objectResource[M any, O apiObject] struct {
	targetResource
	kind apiKind[M, O]
	// description introduces the resource in its documentation; attributes are its own
	// attributes (schema adds the id and name every object has).
	description string
	attributes  func() map[string]schema.Attribute
}

// newObjectResource is the resource tenon<typeName> of kind, with the schema that description
// and attributes give.
func newObjectResource[M any, O apiObject](typeName string, kind apiKind[M, O], description string, attributes func() map[string]schema.Attribute) *objectResource[M, O] {
	return &objectResource[M, O]{targetResource: targetResource{typeName: typeName}, kind: kind, description: description, attributes: attributes}
}

// schema is the resource's schema: attrs and the id and name every object has.
func (r *objectResource[M, O]) schema(description string, attrs map[string]schema.Attribute) schema.Schema {
	attrs["id"] = idAttribute()
	attrs["name"] = nameAttribute(r.kind.name)
	return schema.Schema{MarkdownDescription: description, Attributes: attrs}
}

// Schema is the resource's schema: its description and attributes, and the id and name every
// object has.
func (r *objectResource[M, O]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema(r.description, r.attributes())
}

// ValidateConfig runs the API's validation on the configuration, at plan time.
func (r *objectResource[M, O]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m M
	if d := req.Config.Get(ctx, &m); d.HasError() {
		return // a collection is unknown until apply; it is checked then
	}
	if r.kind.checkAtApply != nil && r.kind.checkAtApply(&m) {
		return
	}
	obj, errs := r.kind.toAPI(&m)
	var name types.String
	if d := req.Config.GetAttribute(ctx, path.Root("name"), &name); !d.HasError() && name.IsUnknown() {
		obj.SetName("unknown") // any valid name: the real one is checked once known
	}
	errs = append(errs, obj.Validate()...)
	addFieldErrors(ctx, &resp.Diagnostics, req.Config, r.kind.paths, r.kind.name, errs)
}

// Create applies the planned object.
func (r *objectResource[M, O]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	applyPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.apply)
}

// Update applies the planned object over the stored one.
func (r *objectResource[M, O]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	applyPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.apply)
}

// apply writes the planned object and replaces plan with what the target stored.
func (r *objectResource[M, O]) apply(ctx context.Context, plan *M, diags *diag.Diagnostics) bool {
	if !requireTarget(r.target, diags) {
		return false
	}
	obj, _ := r.kind.toAPI(plan) // ValidateConfig reported what has no API form
	if err := r.target.Apply(ctx, obj); err != nil {
		diags.AddError("Cannot Apply "+r.kind.name, failure("The "+r.kind.name+" could not be written", err))
		return false
	}
	*plan = r.kind.fromAPI(obj, plan)
	return true
}

// Read refreshes the state from the stored object; an object gone from the target leaves the
// state, so that Terraform plans to create it again.
func (r *objectResource[M, O]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state M
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	name := stateName(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !requireTarget(r.target, &resp.Diagnostics) {
		return
	}
	obj := r.kind.ref(name)
	if err := r.target.Get(ctx, obj); err != nil {
		if delivery.IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Cannot Read "+r.kind.name, failure("The "+r.kind.name+" could not be read", err))
		return
	}
	m := r.kind.fromAPI(obj, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete removes the object; one already gone is fine.
func (r *objectResource[M, O]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	name := stateName(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !requireTarget(r.target, &resp.Diagnostics) {
		return
	}
	if err := r.target.Delete(ctx, r.kind.ref(name)); err != nil {
		resp.Diagnostics.AddError("Cannot Delete "+r.kind.name, failure("The "+r.kind.name+" could not be deleted", err))
	}
}

// ImportState adopts an existing object by name: terraform import tenon_nodepool.x NAME. Read
// fills in the rest.
func (r *objectResource[M, O]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if problems := validation.IsDNS1123Subdomain(req.ID); len(problems) > 0 {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("The import ID %q is not the name of a %s (%s). "+
			"Import the object by its name, such as `terraform import tenon%s.example default`.",
			req.ID, r.kind.name, strings.Join(problems, "; "), r.typeName))
		return
	}
	setImported(ctx, resp, map[string]any{"id": req.ID, "name": req.ID})
}

// applyPlan is Create and Update: it reads the plan into a model, lets write make it real
// (and fill in what the target stored), and saves the result as the state.
func applyPlan[M any](ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics,
	write func(context.Context, *M, *diag.Diagnostics) bool) {
	var m M
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() || !write(ctx, &m, diags) {
		return
	}
	diags.Append(state.Set(ctx, &m)...)
}

// setImported writes the attributes an import ID stands for into the state, in a fixed order.
func setImported(ctx context.Context, resp *resource.ImportStateResponse, attrs map[string]any) {
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), attrs[name])...)
	}
}

// stateName is the name attribute of an object resource's state.
func stateName(ctx context.Context, state tfsdk.State, diags *diag.Diagnostics) string {
	var name types.String
	diags.Append(state.GetAttribute(ctx, path.Root("name"), &name)...)
	return name.ValueString()
}

// failure is the detail of a diagnostic about a failed operation: what failed, then why, as
// one sentence.
func failure(what string, err error) string {
	return what + ": " + strings.TrimSuffix(err.Error(), ".") + "."
}

// Every object resource is a tenonResource.
var (
	_ tenonResource = (*objectResource[nodePoolModel, *v1.NodePool])(nil)
	_ tenonResource = (*objectResource[nodeClassModel, *v1.NodeClass])(nil)
	_ tenonResource = (*objectResource[provisionerModel, *v1alpha5.Provisioner])(nil)
)
