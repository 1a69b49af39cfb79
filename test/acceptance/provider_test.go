package acceptance_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"k8s.io/client-go/rest"
)

// TestProviderHostAndClientCertificate: the kubernetes block without a kubeconfig (host,
// client certificate and key, cluster CA) reaches the API server, and tenon_simulation reads
// its pool and NodeClass from the cluster by name.
func TestProviderHostAndClientCertificate(t *testing.T) {
	c := requireCluster(t)
	cfg := rest.CopyConfig(c.rest)
	if err := rest.LoadTLSFiles(cfg); err != nil {
		t.Fatalf("loading the kubeconfig's certificates: %v", err)
	}
	if len(cfg.CertData) == 0 || len(cfg.CAData) == 0 {
		t.Fatalf("the control plane's kubeconfig has no client certificate or CA")
	}
	config := fmt.Sprintf(`
provider "tenon" {
  kubernetes {
    host                   = %q
    client_certificate     = <<-EOT
%sEOT
    client_key             = <<-EOT
%sEOT
    cluster_ca_certificate = <<-EOT
%sEOT
  }
}

resource "tenon_node_class" "sim" {
  name = "acc-sim"
  kwok = {}
}

resource "tenon_nodepool" "sim" {
  name = "acc-sim"
  template = {
    requirements = [{ key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand"] }]
    node_class   = tenon_node_class.sim.name
  }
}

data "tenon_simulation" "sim" {
  workloads  = [{ name = "web", replicas = 4, requests = { cpu = "1", memory = "2Gi" } }]
  node_pools = [tenon_nodepool.sim.name]
}
`, cfg.Host, cfg.CertData, cfg.KeyData, cfg.CAData)
	ctx := context.Background()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		CheckDestroy:             resource.ComposeTestCheckFunc(checkGone(ctx, c, nodePools, "acc-sim"), checkGone(ctx, c, nodeClasses, "acc-sim")),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.tenon_simulation.sim", tfjsonpath.New("placed"), knownvalue.Int64Exact(4)),
				statecheck.ExpectKnownValue("data.tenon_simulation.sim", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("node_pool"), knownvalue.StringExact("acc-sim")),
				statecheck.ExpectKnownValue("data.tenon_simulation.sim", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("capacity_type"), knownvalue.StringExact("on-demand")),
			},
			Check: checkLive(ctx, c, nodePools, "acc-sim", expectManager),
		}},
	})
}
