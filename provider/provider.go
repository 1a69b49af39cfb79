// Package provider is Tenon's Terraform adapter: schemas, models converted to
// and from engine/api types, diagnostics and delivery targets. Domain logic
// lives in engine/...; this package only translates.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

var _ provider.Provider = (*tenonProvider)(nil)

// tenonProvider is the provider's implementation; resources and data sources
// are added by later changes.
type tenonProvider struct {
	version string
}

// New returns a constructor for the provider, as providerserver.Serve wants.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &tenonProvider{version: version}
	}
}

func (p *tenonProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "tenon"
	resp.Version = p.version
}

func (p *tenonProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Tenon puts Kubernetes node-autoscaling policy (node pools, node classes, " +
			"provisioners) in Terraform and Git, and runs an in-cluster agent that packs pending pods " +
			"onto the cheapest fitting instances and consolidates the rest.",
	}
}

func (p *tenonProvider) Configure(_ context.Context, _ provider.ConfigureRequest, _ *provider.ConfigureResponse) {
}

func (p *tenonProvider) Resources(_ context.Context) []func() resource.Resource {
	return nil
}

func (p *tenonProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return nil
}
