// Package provider is Tenon's Terraform adapter: schemas, models translated to and from
// engine/api types, diagnostics and delivery targets. Domain logic lives in engine/...; this
// package only translates. Each Terraform object has one file (resource_nodepool.go), its
// model and the model <-> API mapping one file (model_nodepool.go), and the objects are written
// through the provider's delivery.Target, so resources do not know whether they write to a
// cluster or to Git. The resources that are one API object share their CRUD (objectResource,
// resource_object.go); attribute types of values the provider builds are derived from the
// schemas, and the allowed values descriptions list come from the engine's own lists
// (descriptions.go).
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

var _ provider.Provider = (*tenonProvider)(nil)

// tenonProvider is the provider's implementation.
type tenonProvider struct {
	version string
	// target, when set (by tests), replaces the target Configure would build.
	target delivery.Target
}

// New returns a constructor for the provider, as providerserver.Serve wants.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &tenonProvider{version: version}
	}
}

// providerData is what Configure hands to resources and data sources.
type providerData struct {
	target delivery.Target
}

func (p *tenonProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "tenon"
	resp.Version = p.version
}

func (p *tenonProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Tenon puts Kubernetes node-autoscaling policy (node pools, node classes, " +
			"provisioners) in Terraform and Git, and runs an in-cluster agent that packs pending pods " +
			"onto the cheapest fitting instances and consolidates the rest.\n\n" +
			"The `kubernetes` block says which cluster the resources are written to. The provider connects " +
			"only when a resource needs the cluster, so it can be configured from a cluster created in the " +
			"same run; the data sources `tenon_instance_types` and `tenon_simulation` (with inline pools) need " +
			"no cluster at all.",
		Blocks: map[string]schema.Block{
			"kubernetes": kubernetesBlock(),
			"git":        gitBlock(),
		},
	}
}

func (p *tenonProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	if p.target != nil {
		data := &providerData{target: delivery.Logged(p.target)}
		resp.ResourceData, resp.DataSourceData = data, data
		return
	}
	target, isGit := configureGit(ctx, req, resp)
	if !isGit && !resp.Diagnostics.HasError() {
		target = configureKubernetes(ctx, req, resp)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	data := &providerData{target: delivery.Logged(target)}
	resp.ResourceData, resp.DataSourceData = data, data
}

func (p *tenonProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewNodePoolResource,
		NewNodeOverlayResource,
		NewNodeClassResource,
		NewProvisionerResource,
		NewAgentResource,
	}
}

func (p *tenonProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewInstanceTypesDataSource,
		NewSimulationDataSource,
	}
}
