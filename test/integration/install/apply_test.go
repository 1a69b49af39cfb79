package install_test

import (
	"context"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// suite is etcd and kube-apiserver, started by the first test that needs them.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

// TestBothInstallsApplyWithServerSideDryRun sends every object of both renderings of every case
// (but the optional ServiceMonitor, whose CRD is the Prometheus Operator's) to the API server as a
// server-side apply with dryRun=All: the schemas, defaulting and
// admission accept them, and nothing is persisted but each case's namespace.
func TestBothInstallsApplyWithServerSideDryRun(t *testing.T) {
	cp := suite.Require(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	core := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	for _, c := range installCases() {
		t.Run(c.name, func(t *testing.T) {
			ns := c.opts.Defaulted().Namespace
			_, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			for what, objs := range map[string][]*unstructured.Unstructured{"tenon manifests": fromManifests(t, c), "helm template": renderChart(t, c)} {
				for _, u := range objs {
					gvk := u.GroupVersionKind()
					if gvk.Group == "monitoring.coreos.com" {
						// The ServiceMonitor's CRD is the Prometheus Operator's, not part of the
						// install; TestChartRendersWhatManifestsPrints compares the object itself.
						continue
					}
					m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
					if err != nil {
						t.Fatalf("%s: %s: %v", what, key(u), err)
					}
					var r dynamic.ResourceInterface = dyn.Resource(m.Resource)
					if u.GetNamespace() != "" {
						r = dyn.Resource(m.Resource).Namespace(u.GetNamespace())
					}
					opts := metav1.ApplyOptions{FieldManager: "tenon-install-test", Force: true, DryRun: []string{metav1.DryRunAll}}
					if _, err := r.Apply(ctx, u.GetName(), u, opts); err != nil {
						t.Errorf("%s: server-side dry-run of %s: %v", what, key(u), err)
					}
				}
			}
		})
	}
	// Nothing but the namespaces was persisted: no CRD exists.
	crds, err := dyn.Resource(apiextensionsGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(crds.Items) != 0 {
		t.Errorf("a dry run persisted %d CRDs", len(crds.Items))
	}
}

var apiextensionsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
