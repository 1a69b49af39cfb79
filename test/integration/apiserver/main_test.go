// Package apiserver_test checks the tenon.dev API against a real kube-apiserver and etcd, as
// `make testbin` builds them: every CRD installs, every validation case of the Go twin tests
// gets the same answer from the API server, printer columns and status subresources work.
package apiserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

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
)

// suite is etcd and kube-apiserver, started by the first test that needs them.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

// restConfig is the admin configuration for the control plane, or a skip under -short.
func restConfig(t *testing.T) *rest.Config {
	t.Helper()
	c := suite.Require(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 200, 400 // the tables send a few hundred requests
	return cfg
}

func dynamicClient(t *testing.T) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(restConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// installed is every CRD of engine/api/crds, installed once for the package's tests.
var installed = struct {
	sync.Once
	crds []apiextensionsv1.CustomResourceDefinition
	err  error
}{}

// installCRDs installs every CRD of engine/api/crds and waits until the API server serves
// them; tests that create custom resources call it first.
func installCRDs(t *testing.T) []apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	cfg := restConfig(t)
	installed.Do(func() {
		installed.crds, installed.err = install(cfg)
	})
	if installed.err != nil {
		t.Fatalf("installing the CRDs: %v", installed.err)
	}
	return installed.crds
}

func install(cfg *rest.Config) ([]apiextensionsv1.CustomResourceDefinition, error) {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []apiextensionsv1.CustomResourceDefinition
	for _, name := range crds.Names() {
		data, err := crds.Get(name)
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
			return nil, fmt.Errorf("creating %s: %w", name, err)
		}
		out = append(out, crd)
	}
	for _, crd := range out {
		if err := waitEstablished(ctx, client, crd.Name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// waitEstablished waits for the Established and NamesAccepted conditions, after which the
// API server serves the resource.
func waitEstablished(ctx context.Context, client apiextensionsclient.Interface, name string) error {
	for {
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ok := 0
		for _, c := range crd.Status.Conditions {
			if (c.Type == apiextensionsv1.Established || c.Type == apiextensionsv1.NamesAccepted) && c.Status == apiextensionsv1.ConditionTrue {
				ok++
			}
		}
		if ok == 2 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s is not established: %v", name, crd.Status.Conditions)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// gvr is the resource a CRD serves at its storage version.
func gvr(crd apiextensionsv1.CustomResourceDefinition) schema.GroupVersionResource {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
		}
	}
	panic("CRD " + crd.Name + " has no storage version")
}

func crdByKind(t *testing.T, kind string) apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	for _, crd := range installCRDs(t) {
		if crd.Spec.Names.Kind == kind {
			return crd
		}
	}
	t.Fatalf("no CRD serves kind %s", kind)
	return apiextensionsv1.CustomResourceDefinition{}
}

// statusCauses are the field causes of an API error.
func statusCauses(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	return status.Status().Details.Causes
}

// causes lists the field causes of an API error as "type field: message" lines, for messages.
func causes(err error) string {
	list := statusCauses(err)
	if len(list) == 0 {
		return "  " + fmt.Sprint(err)
	}
	var b strings.Builder
	for _, c := range list {
		fmt.Fprintf(&b, "  %s %s: %s\n", c.Type, c.Field, c.Message)
	}
	return b.String()
}
