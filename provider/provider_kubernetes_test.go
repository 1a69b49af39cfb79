package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://a.example:6443", insecure-skip-tls-verify: true}
- name: b
  cluster: {server: "https://b.example:6443", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: secret}
contexts:
- name: ctx-a
  context: {cluster: a, user: u}
- name: ctx-b
  context: {cluster: b, user: u}
current-context: ctx-a
`

// TestKubernetesRESTConfig: each way of naming a cluster gives the client configuration
// client-go would build, and the missing ones say what to set.
func TestKubernetesRESTConfig(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	if err := os.WriteFile(kubeconfig, []byte(testKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		cfg       delivery.KubernetesConfig
		wantHost  string
		wantToken string
		wantErr   string
	}{
		{name: "kubeconfig current context", cfg: delivery.KubernetesConfig{ConfigPaths: []string{kubeconfig}}, wantHost: "https://a.example:6443", wantToken: "secret"},
		{name: "kubeconfig other context", cfg: delivery.KubernetesConfig{ConfigPaths: []string{kubeconfig}, ConfigContext: "ctx-b"}, wantHost: "https://b.example:6443", wantToken: "secret"},
		{name: "unknown context", cfg: delivery.KubernetesConfig{ConfigPaths: []string{kubeconfig}, ConfigContext: "nope"}, wantErr: `context "nope"`},
		{name: "missing file", cfg: delivery.KubernetesConfig{ConfigPaths: []string{filepath.Join(dir, "none")}}, wantErr: "no such file"},
		{name: "host and token", cfg: delivery.KubernetesConfig{Host: "https://c.example", Token: "t"}, wantHost: "https://c.example", wantToken: "t"},
		{name: "certificate without key", cfg: delivery.KubernetesConfig{Host: "https://c.example", ClientCertificate: "PEM"}, wantErr: "client_key"},
		{name: "nothing", cfg: delivery.KubernetesConfig{}, wantErr: "no Kubernetes cluster is configured"},
		{name: "exec", cfg: delivery.KubernetesConfig{Host: "https://d.example", Exec: &delivery.ExecConfig{APIVersion: "client.authentication.k8s.io/v1beta1", Command: "aws", Args: []string{"eks", "get-token"}}}, wantHost: "https://d.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.cfg.RESTConfig()
			if tc.wantErr != "" {
				if err == nil || !regexp.MustCompile(regexp.QuoteMeta(tc.wantErr)).MatchString(err.Error()) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Host != tc.wantHost || got.BearerToken != tc.wantToken {
				t.Errorf("host %q token %q, want %q %q", got.Host, got.BearerToken, tc.wantHost, tc.wantToken)
			}
			if tc.cfg.Exec != nil && (got.ExecProvider == nil || got.ExecProvider.Command != "aws" || len(got.ExecProvider.Args) != 2) {
				t.Errorf("exec provider %+v, want the configured command", got.ExecProvider)
			}
		})
	}
}

// TestKubernetesEnvFallbacks: without attributes the provider reads the same environment
// variables as hashicorp/kubernetes.
func TestKubernetesEnvFallbacks(t *testing.T) {
	t.Setenv("KUBE_HOST", "https://env.example")
	t.Setenv("KUBE_TOKEN", "env-token")
	t.Setenv("KUBE_CTX", "ctx-b")
	t.Setenv("KUBE_CONFIG_PATH", "/from/env")
	var k kubernetesModel
	if got := stringOrEnv(k.Host, "host"); got != "https://env.example" {
		t.Errorf("host %q", got)
	}
	if got := stringOrEnv(k.Token, "token"); got != "env-token" {
		t.Errorf("token %q", got)
	}
	if got := stringOrEnv(k.ConfigContext, "config_context"); got != "ctx-b" {
		t.Errorf("context %q", got)
	}
	if got := stringOrEnv(k.ConfigPath, "config_path"); got != "/from/env" {
		t.Errorf("config path %q", got)
	}
}

// TestUnknownClusterIsDeferred: a kubernetes block whose host is known only after apply (a
// cluster created in the same run) does not fail the plan, as with hashicorp/kubernetes; the
// plan creates the NodePool.
func TestUnknownClusterIsDeferred(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"tenon": providerserver.NewProtocol6WithError(New("test")())},
		Steps: []tfresource.TestStep{{
			Config: `
resource "terraform_data" "cluster" {
  input = "https://cluster.example"
}

provider "tenon" {
  kubernetes {
    host  = terraform_data.cluster.output
    token = "t"
  }
}

resource "tenon_nodepool" "test" {
  name     = "pool"
  template = { node_class = "default" }
}
`,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: tfresource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("tenon_nodepool.test", plancheck.ResourceActionCreate),
			}},
		}},
	})
}
