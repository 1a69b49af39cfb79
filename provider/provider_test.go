package provider_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/tenonhq/terraform-provider-tenon/provider"
)

// TestProviderServesSchema starts the provider behind the real protocol-6
// server, as Terraform would, and asks for its schema.
func TestProviderServesSchema(t *testing.T) {
	server, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatalf("starting the provider server: %v", err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatalf("GetProviderSchema: %v", err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
		}
	}
	if resp.Provider == nil || resp.Provider.Block == nil {
		t.Fatal("the provider answered without a provider schema")
	}
	if resp.Provider.Block.Description == "" {
		t.Error("the provider schema has no description; docs are generated from it")
	}

	meta, err := server.GetMetadata(context.Background(), &tfprotov6.GetMetadataRequest{})
	if err != nil {
		t.Fatalf("GetMetadata: %v", err)
	}
	if len(meta.Diagnostics) > 0 {
		t.Fatalf("GetMetadata diagnostics: %+v", meta.Diagnostics)
	}
}
