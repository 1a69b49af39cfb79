package convert_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
	"github.com/tenonhq/terraform-provider-tenon/engine/convert"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
	"github.com/tenonhq/terraform-provider-tenon/provider"
)

// suite is this package's control plane (etcd and kube-apiserver), started
// by the first test that needs it.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

// TestImportPlansNoChanges is the migration guide's step 3, for real: for
// each Karpenter example (and each recipe of the recipes guide) it applies `tenon convert -o yaml` to a real API
// server with the tenon.dev CRDs (so the converted objects pass the CRDs'
// schemas and CEL rules too), then plans `tenon convert --import`'s HCL with
// OpenTofu and the provider: every resource must be imported with no change,
// and after the apply the plan must be empty. Examples using a resource type
// the provider does not serve yet are skipped, saying which.
func TestImportPlansNoChanges(t *testing.T) {
	cp := suite.Require(t)
	testenv.RequireTofu(t, testenv.AcceptanceTest)
	kubectl := func(args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, cp.Kubectl(), append([]string{"--kubeconfig", cp.Kubeconfig}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	crdDir := t.TempDir()
	for _, name := range crds.Names() {
		data, err := crds.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crdDir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	kubectl("apply", "--server-side", "-f", crdDir)
	kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")

	served := servedResources(t)
	for _, files := range exampleSets(t) {
		name := strings.TrimSuffix(files[len(files)-1], ".yaml")
		t.Run(name, func(t *testing.T) {
			var inputs []convert.Input
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				inputs = append(inputs, convert.Input{Name: "examples/convert/" + f, Data: data})
			}
			res, err := convert.Convert(inputs, convert.Options{ClusterName: "prod"})
			if err != nil {
				t.Fatalf("converting: %v", err)
			}
			var hcl, yml bytes.Buffer
			if err := convert.WriteHCL(&hcl, res, convert.HCLOptions{Import: true}); err != nil {
				t.Fatal(err)
			}
			if err := convert.WriteYAML(&yml, res); err != nil {
				t.Fatal(err)
			}
			addrs := resourceAddresses(hcl.String())
			for _, a := range addrs {
				if rt, _, _ := strings.Cut(a, "."); !served[rt] {
					t.Skipf("the provider does not serve %s yet; this example is checked once it does", rt)
				}
			}
			objects := filepath.Join(t.TempDir(), "tenon.yaml")
			if err := os.WriteFile(objects, yml.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			var checks []plancheck.PlanCheck
			for _, a := range addrs {
				checks = append(checks, plancheck.ExpectResourceAction(a, plancheck.ResourceActionNoop))
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
					"tenon": providerserver.NewProtocol6WithError(provider.New("test")()),
				},
				Steps: []resource.TestStep{{
					// As the guide does: kubectl apply -f the converted YAML first.
					PreConfig: func() { kubectl("apply", "-f", objects) },
					Config:    providerBlock(cp.Kubeconfig) + hcl.String(),
					// Imported, not created or changed; after the apply the
					// framework plans again and fails on any difference.
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: checks},
				}},
			})
		})
	}
}

// exampleSets lists the files converted together: each example, and each
// recipe with the node class the recipes share.
func exampleSets(t *testing.T) [][]string {
	t.Helper()
	var sets [][]string
	examples, _ := filepath.Glob("*.yaml")
	for _, e := range examples {
		sets = append(sets, []string{e})
	}
	recipes, _ := filepath.Glob("recipes/*.yaml")
	for _, r := range recipes {
		if r != "recipes/nodeclass.yaml" {
			sets = append(sets, []string{"recipes/nodeclass.yaml", r})
		}
	}
	if len(sets) < 2 {
		t.Fatal("no examples found")
	}
	return sets
}

func providerBlock(kubeconfig string) string {
	return fmt.Sprintf("provider \"tenon\" {\n  kubernetes {\n    config_path = %q\n  }\n}\n\n", kubeconfig)
}

var resourceHeader = regexp.MustCompile(`(?m)^resource "(tenon_\w+)" "([\w-]+)" \{`)

// resourceAddresses lists the addresses (type.name) of the HCL's resources.
func resourceAddresses(hcl string) []string {
	var out []string
	for _, m := range resourceHeader.FindAllStringSubmatch(hcl, -1) {
		out = append(out, m[1]+"."+m[2])
	}
	return out
}

// servedResources lists the resource types the provider serves.
func servedResources(t *testing.T) map[string]bool {
	t.Helper()
	server := providerserver.NewProtocol6(provider.New("test")())()
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for rt := range resp.ResourceSchemas {
		out[rt] = true
	}
	return out
}
