package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// liveRequestTimeout bounds each request `tenon simulate --kubeconfig` and `tenon explain`
// make, so an unreachable server fails instead of hanging.
const liveRequestTimeout = 20 * time.Second

// ReadCluster reads the running cluster o names as the agent does: the same lists, through
// the same viewBuilder, which leaves out the same invalid policy and the pools whose NodeClass
// cannot launch, so `tenon simulate --kubeconfig` and `tenon explain` decide on the objects the
// agent decides on. It only gets and lists (manifests.ReadOnlyPermissions). Instance types come
// from the embedded catalog for o.Region and o.Zones (the KWOK cloud's, and the offline
// simulator's); a NodeClass can launch unless the agent recorded Ready=False on it: its cloud
// decides, and this command holds no cloud credentials.
//
// Errors in o are *simulate.UsageError naming the flag and the fix; no error carries the
// kubeconfig's credentials.
func ReadCluster(ctx context.Context, o simulate.LiveOptions) (*simulate.LiveCluster, error) {
	cfg, name, err := liveConfig(o)
	if err != nil {
		return nil, err
	}
	types, err := newCatalogTypes(o.Region, o.Zones)
	if err != nil {
		return nil, &simulate.UsageError{Err: fmt.Errorf("--region %q, --zones %q: %w", o.Region, strings.Join(o.Zones, ","), err)}
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, clusterError(cfg, name, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	b := &viewBuilder{client: tolerantReader{c}, cloud: types}
	v, err := b.view(ctx)
	if err != nil {
		return nil, clusterError(cfg, name, err)
	}
	lc := &simulate.LiveCluster{Objects: v.objects, Region: types.region, Zones: types.zones, Now: now, LeftOut: map[string]string{}, Cluster: name}
	for key, why := range v.invalid {
		lc.LeftOut[key] = "invalid: " + why
	}
	for pool, why := range v.notReady {
		lc.LeftOut["pool/"+pool] = "its NodeClass cannot launch: " + why
	}
	admitted := map[string]bool{}
	for _, p := range v.objects.Pods {
		admitted[p.Namespace+"/"+p.Name] = true
	}
	for key := range v.pending {
		if !admitted[key] {
			lc.Waiting = append(lc.Waiting, key)
		}
	}
	slices.Sort(lc.Waiting)
	return lc, nil
}

// liveConfig loads the kubeconfig as kubectl does (--kubeconfig, else $KUBECONFIG, else
// ~/.kube/config) and selects the context, checking each step so that the error names the flag
// and the fix. It returns the config and the context's name.
func liveConfig(o simulate.LiveOptions) (*rest.Config, string, error) {
	usage := func(format string, args ...any) (*rest.Config, string, error) {
		return nil, "", &simulate.UsageError{Err: fmt.Errorf(format, args...)}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	source := "(the default: $KUBECONFIG or ~/.kube/config)"
	flagName := "--kubeconfig"
	if o.Kubeconfig != "" {
		if _, err := os.Stat(o.Kubeconfig); err != nil {
			return usage("--kubeconfig %s: cannot read it (%v); pass the kubeconfig file kubectl uses, such as ~/.kube/config", o.Kubeconfig, pathErr(err))
		}
		rules.ExplicitPath = o.Kubeconfig
		source = o.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context})
	raw, err := cc.RawConfig()
	if err != nil {
		return usage("%s %s: not a readable kubeconfig: %v; pass the file kubectl uses", flagName, source, err)
	}
	name := o.Context
	if name == "" {
		name = raw.CurrentContext
	}
	contexts := slices.Sorted(func(yield func(string) bool) {
		for k := range raw.Contexts {
			if !yield(k) {
				return
			}
		}
	})
	switch {
	case len(contexts) == 0:
		return usage("%s %s: it names no context; pass the kubeconfig of a cluster (kubectl config view shows one)", flagName, source)
	case name == "":
		return usage("%s %s has no current context: pass --context, one of %s", flagName, source, strings.Join(contexts, ", "))
	case raw.Contexts[name] == nil && o.Context != "":
		return usage("--context %q: no such context in %s; pass one of %s (kubectl config get-contexts lists them)", o.Context, source, strings.Join(contexts, ", "))
	case raw.Contexts[name] == nil:
		return usage("%s %s: its current context %q does not exist; pass --context, one of %s", flagName, source, name, strings.Join(contexts, ", "))
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return usage("%s %s, context %q: %v; fix the context's cluster and user entries (kubectl config view)", flagName, source, name, err)
	}
	cfg.Timeout = liveRequestTimeout
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "tenon-explain"
	return cfg, name, nil
}

// pathErr is an *os.PathError's reason alone ("no such file or directory"), the path being in
// the message already.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// clusterError says which server could not be read and what to do: grant the read-only role
// when the server refused, else check that the server is reachable. The server's URL loses any
// user information; the error never holds the kubeconfig's credentials.
func clusterError(cfg *rest.Config, context string, err error) error {
	hint := fmt.Sprintf("check that the API server is up and that context %q reaches it (kubectl --context %s get nodes)", context, context)
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		hint = "bind your identity to the read-only ClusterRole tenon-readonly (tenon manifests --read-only-role prints it)"
	}
	return fmt.Errorf("reading the cluster at %s (context %q): %w; %s", serverURL(cfg.Host), context, err, hint)
}

// serverURL is host without user information.
func serverURL(host string) string {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return "the kubeconfig's server"
	}
	u.User = nil
	return u.String()
}

// tolerantReader reads a cluster where a tenon.dev CRD is not installed (a cluster without the
// v1alpha5 Provisioner, say) as having none of that kind.
type tolerantReader struct{ client.Client }

// List lists, with an empty list for a kind the server does not serve.
func (r tolerantReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := r.Client.List(ctx, list, opts...); err != nil && !meta.IsNoMatchError(err) {
		return err
	}
	return nil
}

// catalogTypes is the instance-type source of the live commands: the embedded catalog's types
// offered in a region's zones, for every NodeClass the agent has not reported not ready.
type catalogTypes struct {
	region string
	zones  []string
	types  []*catalog.InstanceType
}

func newCatalogTypes(region string, zones []string) (*catalogTypes, error) {
	var opts []catalog.Option
	if region != "" {
		opts = append(opts, catalog.WithRegion(region))
	}
	if len(zones) > 0 {
		opts = append(opts, catalog.WithZones(zones...))
	}
	cat, err := catalog.New(opts...)
	if err != nil {
		return nil, err
	}
	t := &catalogTypes{region: cat.Region(), zones: cat.Zones()}
	for _, it := range cat.InstanceTypes() {
		if len(it.Offerings) > 0 {
			t.types = append(t.types, it)
		}
	}
	return t, nil
}

// InstanceTypes returns the offered types when the pool's class can launch.
func (t *catalogTypes) InstanceTypes(_ context.Context, pool *state.Pool) ([]*catalog.InstanceType, error) {
	var class *v1.NodeClass
	if pool != nil {
		class = pool.Class
	}
	if err := t.Ready(class); err != nil {
		return nil, err
	}
	return slices.Clone(t.types), nil
}

// Ready reports the class not ready when the agent recorded Ready=False on it, with the
// agent's message.
func (t *catalogTypes) Ready(class *v1.NodeClass) error {
	if class == nil {
		return &cloud.NodeClassNotReadyError{Reason: "the pool names no NodeClass"}
	}
	if c := meta.FindStatusCondition(class.Status.Conditions, v1.ConditionReady); c != nil && c.Status == metav1.ConditionFalse {
		return &cloud.NodeClassNotReadyError{NodeClass: class.Name, Reason: "the agent reports it not ready: " + c.Message}
	}
	return nil
}
