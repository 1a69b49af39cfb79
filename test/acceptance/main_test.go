// Package acceptance_test drives the tenon provider with the real OpenTofu CLI
// (terraform-plugin-testing, TF_ACC) against a real kube-apiserver with the tenon.dev CRDs:
// every resource is created, imported, updated in place, replaced where the API is immutable,
// changed behind Terraform's back (drift) and destroyed. One control plane serves the whole
// package. `make testacc` runs it; `make test` includes it.
package acceptance_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
	"github.com/tenonhq/terraform-provider-tenon/provider"
)

// suite is the whole stack: tenon_agent's test needs the scheduler, the controller manager and
// KWOK for its Deployment to roll out; the other tests need only the API server.
var suite = controlplane.NewSuite(controlplane.Options{Scheduler: true, ControllerManager: true, KWOK: true})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

// providers serves the provider in process, as the acceptance framework wants.
var providers = map[string]func() (tfprotov6.ProviderServer, error){
	"tenon": providerserver.NewProtocol6WithError(provider.New("acceptance")()),
}

// cluster is the package's control plane with the CRDs installed.
type cluster struct {
	kubeconfig string
	rest       *rest.Config
	client     client.Client
	dynamic    dynamic.Interface
}

var shared = struct {
	sync.Once
	c   *cluster
	err error
}{}

// requireCluster starts the control plane (once per package), installs the CRDs (again after
// tenon_agent's test removed them) and points terraform-plugin-testing at bin/tofu. It skips
// under -short and fails when a tool is missing.
func requireCluster(t *testing.T) *cluster {
	t.Helper()
	cp := suite.Require(t)
	testenv.RequireTofu(t, testenv.AcceptanceTest)
	shared.Do(func() {
		shared.c, shared.err = setUp(cp.Kubeconfig)
	})
	if shared.err != nil {
		t.Fatalf("setting up the control plane: %v", shared.err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := kube.InstallCRDs(ctx, shared.c.client); err != nil {
		t.Fatalf("installing the CRDs: %v", err)
	}
	return shared.c
}

func setUp(kubeconfig string) (*cluster, error) {
	c, cfg, err := kube.NewClient(kubeconfig)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &cluster{kubeconfig: kubeconfig, rest: cfg, client: c, dynamic: dyn}, nil
}

// providerBlock is the provider configuration pointing at the control plane.
func (c *cluster) providerBlock() string {
	return fmt.Sprintf("provider \"tenon\" {\n  kubernetes {\n    config_path = %q\n  }\n}\n", c.kubeconfig)
}

var (
	nodePools    = schema.GroupVersionResource{Group: "tenon.dev", Version: "v1", Resource: "nodepools"}
	nodeClasses  = schema.GroupVersionResource{Group: "tenon.dev", Version: "v1", Resource: "nodeclasses"}
	provisioners = schema.GroupVersionResource{Group: "tenon.dev", Version: "v1alpha5", Resource: "provisioners"}
)
