package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// importState runs r's ImportState with id on an empty state.
func importState(t *testing.T, r resource.Resource, id string) *resource.ImportStateResponse {
	t.Helper()
	ctx := context.Background()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	resp := &resource.ImportStateResponse{State: tfsdk.State{
		Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil),
	}}
	r.(resource.ResourceWithImportState).ImportState(ctx, resource.ImportStateRequest{ID: id}, resp)
	return resp
}

// TestImportID: an import ID is the object's name (the agent's namespace) and fills the
// attributes Read needs; anything that cannot be one is refused before Read looks for it.
func TestImportID(t *testing.T) {
	for _, tc := range []struct {
		resource func() resource.Resource
		id       string
		want     map[string]string // attribute -> value; nil: refused
	}{
		{NewNodePoolResource, "general", map[string]string{"id": "general", "name": "general"}},
		{NewNodeClassResource, "default", map[string]string{"id": "default", "name": "default"}},
		{NewProvisionerResource, "spot.v2", map[string]string{"id": "spot.v2", "name": "spot.v2"}},
		{NewAgentResource, "tenon-system", map[string]string{"id": "tenon-system", "namespace": "tenon-system"}},
		{NewNodePoolResource, "Bad Name", nil},
		{NewNodeClassResource, "", nil},
		{NewAgentResource, "tenon.system", nil},
	} {
		r := tc.resource()
		var meta resource.MetadataResponse
		r.Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "tenon"}, &meta)
		t.Run(meta.TypeName+" "+tc.id, func(t *testing.T) {
			resp := importState(t, r, tc.id)
			if tc.want == nil {
				if !resp.Diagnostics.HasError() || resp.Diagnostics[0].Summary() != "Invalid Import ID" ||
					!strings.Contains(resp.Diagnostics[0].Detail(), "terraform import "+meta.TypeName+".") {
					t.Fatalf("diagnostics = %v, want Invalid Import ID with an example for %s", resp.Diagnostics, meta.TypeName)
				}
				return
			}
			if resp.Diagnostics.HasError() {
				t.Fatalf("diagnostics: %v", resp.Diagnostics)
			}
			for name, want := range tc.want {
				var got types.String
				resp.State.GetAttribute(context.Background(), path.Root(name), &got)
				if got.ValueString() != want {
					t.Errorf("%s = %s, want %q", name, got, want)
				}
			}
		})
	}
}
