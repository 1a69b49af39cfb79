package delivery

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// KubernetesConfig says how to reach the API server: a kubeconfig file (ConfigPaths, with
// ConfigContext), or Host with a token or client certificate, optionally an exec plugin. Its
// fields mirror the provider's kubernetes {} block, environment fallbacks already applied.
type KubernetesConfig struct {
	ConfigPaths          []string
	ConfigContext        string
	Host                 string
	Token                string
	ClientCertificate    string
	ClientKey            string
	ClusterCACertificate string
	Insecure             bool
	Exec                 *ExecConfig
}

// ExecConfig is a client-go exec credential plugin, such as `aws eks get-token`.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// RESTConfig builds the client configuration. With Host set the kubeconfig is not read; with
// neither Host nor a kubeconfig there is nothing to connect to, and the error says what to set.
func (c KubernetesConfig) RESTConfig() (*rest.Config, error) {
	overrides := &clientcmd.ConfigOverrides{}
	if c.ConfigContext != "" {
		overrides.CurrentContext = c.ConfigContext
	}
	if c.Host == "" && len(c.ConfigPaths) == 0 {
		return nil, errors.New("no Kubernetes cluster is configured: set kubernetes { config_path } " +
			"(or KUBE_CONFIG_PATH / KUBECONFIG), or kubernetes { host } with token, client certificate or exec")
	}
	if c.Host != "" {
		return c.directConfig()
	}
	paths := make([]string, 0, len(c.ConfigPaths))
	for _, p := range c.ConfigPaths {
		expanded, err := expandHome(p)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(expanded); err != nil {
			return nil, fmt.Errorf("kubernetes config_path %q: %w", p, err)
		}
		paths = append(paths, expanded)
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", strings.Join(paths, ":"), err)
	}
	return cfg, nil
}

func (c KubernetesConfig) directConfig() (*rest.Config, error) {
	cfg := &rest.Config{
		Host:        c.Host,
		BearerToken: c.Token,
		TLSClientConfig: rest.TLSClientConfig{
			Insecure: c.Insecure,
			CertData: []byte(c.ClientCertificate),
			KeyData:  []byte(c.ClientKey),
			CAData:   []byte(c.ClusterCACertificate),
		},
	}
	if c.Exec != nil {
		exec := &clientcmdapi.ExecConfig{
			APIVersion:      c.Exec.APIVersion,
			Command:         c.Exec.Command,
			Args:            c.Exec.Args,
			InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		}
		for k, v := range c.Exec.Env {
			exec.Env = append(exec.Env, clientcmdapi.ExecEnvVar{Name: k, Value: v})
		}
		cfg.ExecProvider = exec
	}
	if (len(cfg.CertData) == 0) != (len(cfg.KeyData) == 0) {
		return nil, errors.New("kubernetes client_certificate and client_key go together; set both or neither")
	}
	return cfg, nil
}

func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding %q: %w", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// Kubernetes is the Target that writes objects to an API server with server-side apply. It
// connects on first use, so a provider whose cluster does not exist yet can still plan.
type Kubernetes struct {
	config KubernetesConfig

	mu     sync.Mutex
	client dynamic.Interface
	host   string
}

var _ Target = (*Kubernetes)(nil)

// NewKubernetes returns a Kubernetes target for cfg. It does not connect.
func NewKubernetes(cfg KubernetesConfig) *Kubernetes {
	return &Kubernetes{config: cfg}
}

// NewKubernetesForConfig returns a Kubernetes target for a ready client configuration, as
// tests have one.
func NewKubernetesForConfig(cfg *rest.Config) (*Kubernetes, error) {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client: %w", err)
	}
	return &Kubernetes{client: client, host: cfg.Host}, nil
}

func (k *Kubernetes) dynamicClient() (dynamic.Interface, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.client != nil {
		return k.client, nil
	}
	cfg, err := k.config.RESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = UserAgent()
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client for %s: %w", cfg.Host, err)
	}
	k.client, k.host = client, cfg.Host
	return client, nil
}

// Describe names the API server.
func (k *Kubernetes) Describe() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.host == "" {
		return "the Kubernetes API server"
	}
	return "the Kubernetes API server " + k.host
}

// resourceFor returns the client for obj's kind, namespaced when obj has a namespace.
func (k *Kubernetes) resourceFor(obj Object) (dynamic.ResourceInterface, schema.GroupVersionKind, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, gvk, fmt.Errorf("object %q has no apiVersion and kind; this is always a bug in the provider, please report it", obj.GetName())
	}
	client, err := k.dynamicClient()
	if err != nil {
		return nil, gvk, err
	}
	gvr := resourceOf(gvk)
	if ns := obj.GetNamespace(); ns != "" {
		return client.Resource(gvr).Namespace(ns), gvk, nil
	}
	return client.Resource(gvr), gvk, nil
}

// Apply server-side applies obj with field manager tenon-terraform, taking over fields
// someone else changed (that is how Terraform restores drift), and fills obj with the result.
func (k *Kubernetes) Apply(ctx context.Context, obj Object) error {
	res, gvk, err := k.resourceFor(obj)
	if err != nil {
		return err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("encoding %s %q: %w", gvk.Kind, obj.GetName(), err)
	}
	u := &unstructured.Unstructured{Object: content}
	// Fields the server owns must not appear in an apply configuration.
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "metadata", "resourceVersion")
	unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
	unstructured.RemoveNestedField(u.Object, "status")
	out, err := res.Apply(ctx, obj.GetName(), u, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("applying %s %q to %s: %w", gvk.Kind, obj.GetName(), k.Describe(), err)
	}
	return decode(out, obj)
}

// Get fills obj with the live object.
func (k *Kubernetes) Get(ctx context.Context, obj Object) error {
	res, gvk, err := k.resourceFor(obj)
	if err != nil {
		return err
	}
	out, err := res.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s %q in %s: %w", gvk.Kind, obj.GetName(), k.Describe(), ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("reading %s %q from %s: %w", gvk.Kind, obj.GetName(), k.Describe(), err)
	}
	return decode(out, obj)
}

// deletePoll bounds the wait for a deleted object to disappear (finalizers).
const (
	deletePoll    = 200 * time.Millisecond
	deleteTimeout = 5 * time.Minute
)

// Delete deletes the object and waits until the API server no longer has it (an object with
// finalizers stays until their controllers remove them). Dependents are left to the garbage
// collector (background propagation): foreground propagation would add a finalizer that only
// kube-controller-manager removes.
func (k *Kubernetes) Delete(ctx context.Context, obj Object) error {
	res, gvk, err := k.resourceFor(obj)
	if err != nil {
		return err
	}
	policy := metav1.DeletePropagationBackground
	err = res.Delete(ctx, obj.GetName(), metav1.DeleteOptions{PropagationPolicy: &policy})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting %s %q from %s: %w", gvk.Kind, obj.GetName(), k.Describe(), err)
	}
	if gvk.Group == "" && gvk.Kind == "Namespace" {
		// The namespace controller empties and removes it in its own time; nothing in
		// Terraform depends on it being gone.
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	for {
		_, err := res.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("waiting for %s %q to be deleted: %w", gvk.Kind, obj.GetName(), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %q is still present %s after deletion (finalizers?): %w", gvk.Kind, obj.GetName(), deleteTimeout, ctx.Err())
		case <-time.After(deletePoll):
		}
	}
}

// ListNames returns the names of the live objects of a kind matching a label selector (such
// as "tenon.dev/nodepool"), sorted.
func (k *Kubernetes) ListNames(ctx context.Context, gvk schema.GroupVersionKind, labelSelector string) ([]string, error) {
	client, err := k.dynamicClient()
	if err != nil {
		return nil, err
	}
	gvr := resourceOf(gvk)
	list, err := client.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: labelSelector})
	if err != nil {
		return nil, fmt.Errorf("listing %s (%s) in %s: %w", gvr.Resource, labelSelector, k.Describe(), err)
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		names = append(names, item.GetName())
	}
	sort.Strings(names)
	return names, nil
}

func decode(u *unstructured.Unstructured, obj Object) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return fmt.Errorf("decoding %s %q: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

// Unavailable is a Target that cannot be used yet, because the provider's configuration
// holds values Terraform only knows after apply (such as the endpoint of a cluster created in
// the same run). Planning works; anything that needs the cluster fails with the reason.
type Unavailable struct {
	Reason string
}

var _ Target = Unavailable{}

func (u Unavailable) err(obj Object) error {
	return fmt.Errorf("cannot reach the cluster for %s %q: %s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), u.Reason)
}

// Apply fails with the reason.
func (u Unavailable) Apply(_ context.Context, obj Object) error { return u.err(obj) }

// Get fails with the reason.
func (u Unavailable) Get(_ context.Context, obj Object) error { return u.err(obj) }

// Delete fails with the reason.
func (u Unavailable) Delete(_ context.Context, obj Object) error { return u.err(obj) }

// Describe says the target is not configured yet.
func (u Unavailable) Describe() string { return "an unconfigured delivery target" }

// resourceOf is the resource of a kind the provider writes: the regular plural, as
// meta.UnsafeGuessKindToResource guesses it, but for a kind ending in a vowel and y, whose
// plural only adds s (NodeOverlay: nodeoverlays, not nodeoverlaies).
func resourceOf(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	kind := strings.ToLower(gvk.Kind)
	if n := len(kind); n > 1 && kind[n-1] == 'y' && strings.ContainsRune("aeiou", rune(kind[n-2])) {
		gvr.Resource = kind + "s"
	}
	return gvr
}
