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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
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
	if err := installCRDs(shared.c.rest); err != nil {
		t.Fatalf("installing the CRDs: %v", err)
	}
	return shared.c
}

func setUp(kubeconfig string) (*cluster, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", kubeconfig, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &cluster{kubeconfig: kubeconfig, rest: cfg, dynamic: dyn}, nil
}

func installCRDs(cfg *rest.Config) error {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range crds.Names() {
		data, err := crds.Get(name)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating CRD %s: %w", name, err)
		}
		if err := waitEstablished(ctx, client, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, client apiextensionsclient.Interface, name string) error {
	for {
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s is not established: %v", name, crd.Status.Conditions)
		case <-time.After(50 * time.Millisecond):
		}
	}
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
