// Package kube holds the few API-server helpers `make demo` and the tests against a control plane
// share: reading multi-document YAML into unstructured objects, server-side apply, waiting for
// CRDs to be served, and installing Tenon's CRDs. It is a development helper; nothing that ships
// imports it.
package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// FieldManager is the server-side apply field manager of the demo and the tests.
const FieldManager = "tenon-demo"

// readYAML decodes every non-empty document of data (Lists unpacked), as engine/manifest splits
// them; file names the data in errors.
func readYAML(file string, data []byte) ([]*unstructured.Unstructured, error) {
	docs, err := manifest.Split(manifest.File{Name: file, Data: data})
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(docs))
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(d.Raw); err != nil {
			return nil, d.Errorf("", "%v", err)
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			return nil, d.Errorf("", "apiVersion, kind and metadata.name are required")
		}
		out = append(out, u)
	}
	return out, nil
}

// ReadData decodes the objects of multi-document YAML or JSON; file names the data in errors.
func ReadData(file string, data []byte) ([]*unstructured.Unstructured, error) {
	return readYAML(file, data)
}

// ReadFiles reads the objects of every file, in order.
func ReadFiles(paths ...string) ([]*unstructured.Unstructured, error) {
	files, err := manifest.ReadFiles(paths, nil)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		objs, err := readYAML(f.Name, f.Data)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// Apply server-side applies objs in order, taking ownership of conflicting fields, and waits
// for every CRD among them to be established before applying what follows it.
func Apply(ctx context.Context, c client.Client, objs []*unstructured.Unstructured, opts ...client.ApplyOption) error {
	opts = append([]client.ApplyOption{client.FieldOwner(FieldManager), client.ForceOwnership}, opts...)
	var pending []string
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" && len(pending) > 0 && !dryRun(opts) {
			if err := WaitEstablished(ctx, c, pending...); err != nil {
				return err
			}
			pending = nil
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), opts...); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), Name(u), err)
		}
		if u.GetKind() == "CustomResourceDefinition" {
			pending = append(pending, u.GetName())
		}
	}
	if len(pending) > 0 && !dryRun(opts) {
		return WaitEstablished(ctx, c, pending...)
	}
	return nil
}

func dryRun(opts []client.ApplyOption) bool {
	var o client.ApplyOptions
	o.ApplyOptions(opts)
	return len(o.DryRun) > 0
}

// Name is namespace/name, or name for a cluster-scoped object.
func Name(o client.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// WaitEstablished waits until the API server serves each named CRD (Established and
// NamesAccepted), for at most a minute.
func WaitEstablished(ctx context.Context, c client.Client, names ...string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, name := range names {
		for {
			var crd apiextensionsv1.CustomResourceDefinition
			err := c.Get(ctx, client.ObjectKey{Name: name}, &crd)
			if err == nil && established(&crd) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s is not established after a minute (conditions %v): %w", name, crd.Status.Conditions, errors.Join(ctx.Err(), err))
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	ok := 0
	for _, c := range crd.Status.Conditions {
		if (c.Type == apiextensionsv1.Established || c.Type == apiextensionsv1.NamesAccepted) && c.Status == apiextensionsv1.ConditionTrue {
			ok++
		}
	}
	return ok == 2
}

// NewClient returns a client for the cluster of kubeconfig that knows the built-in types, CRDs
// and whatever schemes adds; other kinds go through unstructured objects.
func NewClient(kubeconfig string, schemes ...func(*runtime.Scheme) error) (client.Client, *rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("reading kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	scheme := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme}, schemes...) {
		if err := add(scheme); err != nil {
			return nil, nil, err
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	return c, cfg, nil
}
