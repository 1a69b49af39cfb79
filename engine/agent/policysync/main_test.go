package policysync

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// suite is etcd and kube-apiserver, started by the first test that needs them.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

var testScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1.AddToScheme, v1alpha5.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

var crdsOnce = struct {
	sync.Once
	err error
}{}

// kubeClient returns an admin client for the control plane, with the tenon.dev CRDs installed.
func kubeClient(t *testing.T) client.Client {
	t.Helper()
	cp := suite.Require(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	c, err := client.New(cfg, client.Options{Scheme: testScheme})
	if err != nil {
		t.Fatal(err)
	}
	crdsOnce.Do(func() { crdsOnce.err = installCRDs(c) })
	if crdsOnce.err != nil {
		t.Fatalf("installing the CRDs: %v", crdsOnce.err)
	}
	return c
}

// installCRDs installs the tenon.dev CRDs and waits until NodePools are listed.
func installCRDs(c client.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := kube.InstallCRDs(ctx, c); err != nil {
		return err
	}
	// The API server's discovery (and so the client's REST mapper) may lag the CRDs a little.
	for {
		if err := c.List(ctx, &v1.NodePoolList{}); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nodepools not served: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// namespace creates a namespace for one test's status ConfigMap and events.
func namespace(t *testing.T, c client.Client, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return name
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// events returns the events of a namespace with the reason.
func events(t *testing.T, c client.Client, ns, reason string) []eventsv1.Event {
	t.Helper()
	var list eventsv1.EventList
	if err := c.List(testContext(t), &list, client.InNamespace(ns)); err != nil {
		t.Fatalf("listing events: %v", err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

func statusData(t *testing.T, c client.Client, ns, name string) map[string]string {
	t.Helper()
	var cm corev1.ConfigMap
	if err := c.Get(testContext(t), client.ObjectKey{Namespace: ns, Name: name}, &cm); err != nil {
		t.Fatalf("reading the status ConfigMap: %v", err)
	}
	return cm.Data
}
