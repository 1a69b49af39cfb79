package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// Field indexes the controllers look objects up by.
const (
	indexClaimProviderID = "status.providerID"
	indexNodeProviderID  = "spec.providerID"
	indexPodNodeName     = "spec.nodeName"
)

// Agent holds what every controller shares.
type Agent struct {
	opts     Options
	client   client.Client
	cloud    cloud.CloudProvider
	recorder events.EventRecorder
	metrics  *metrics
	log      logr.Logger
	batcher  *batcher
	// nominated remembers when each pod was nominated, to measure pod
	// startup latency when it runs.
	nominated *nominations
	// podCounts is the workload pod count of each node at the last
	// disruption pass, to notice pods coming and going.
	podCountsMu sync.Mutex
	podCounts   map[string]int
	// evictions paces the retries of evictions a PDB refused.
	evictions *evictionBackoff
}

// NewScheme returns the scheme of every type the agent reads or writes.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1.AddToScheme, v1alpha5.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building the scheme: %w", err)
		}
	}
	return scheme, nil
}

// RestConfig loads --kubeconfig, or the in-cluster configuration when it is
// empty.
func RestConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("reading --kubeconfig %s: %w", kubeconfig, err)
		}
		return cfg, nil
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("no --kubeconfig and not running in a cluster: %w", err)
	}
	return cfg, nil
}

// Leader-election timing: a killed leader's lease expires after
// leaseDuration and another replica takes over within retryPeriod of that.
var (
	leaseDuration = 10 * time.Second
	renewDeadline = 7 * time.Second
	retryPeriod   = 2 * time.Second
)

// Run starts the agent and blocks until ctx ends or the manager fails (a
// lost leadership ends it too, so that a restart starts clean).
func Run(ctx context.Context, cfg *rest.Config, opts Options, log logr.Logger) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	scheme, err := NewScheme()
	if err != nil {
		return err
	}
	ctrl.SetLogger(log)
	// client-go's default of 5 requests per second would pace a batch of
	// claims and the evictions of a drain; the agent writes in bursts.
	if cfg.QPS == 0 {
		cfg = rest.CopyConfig(cfg)
		cfg.QPS, cfg.Burst = 50, 100
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Logger:                        log,
		Metrics:                       metricsserver.Options{BindAddress: opts.MetricsAddr},
		HealthProbeBindAddress:        opts.HealthAddr,
		LeaderElection:                opts.LeaderElect,
		LeaderElectionID:              LeaseName,
		LeaderElectionNamespace:       opts.LeaderElectNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &leaseDuration,
		RenewDeadline:                 &renewDeadline,
		RetryPeriod:                   &retryPeriod,
	})
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	provider, err := newCloud(ctx, cfg, scheme, opts)
	if err != nil {
		return err
	}
	a, err := New(mgr, provider, opts, ctrlmetrics.Registry, log)
	if err != nil {
		return err
	}
	if err := addPolicySync(mgr, cfg, scheme, opts, log); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("adding the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("cache", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("informer caches not synced")
		}
		return nil
	}); err != nil {
		return fmt.Errorf("adding the readiness check: %w", err)
	}
	log.Info("starting the agent", "cloud", provider.Name(), "cluster", opts.ClusterName, "leaderElect", opts.LeaderElect)
	_ = a
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the agent: %w", err)
	}
	return nil
}

// New wires the agent's controllers into mgr. Metrics register on reg.
func New(mgr manager.Manager, provider cloud.CloudProvider, opts Options, reg prometheus.Registerer, log logr.Logger) (*Agent, error) {
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	a := &Agent{
		opts:      opts,
		client:    mgr.GetClient(),
		cloud:     provider,
		recorder:  mgr.GetEventRecorder("tenon-agent"),
		metrics:   m,
		log:       log,
		nominated: newNominations(),
		podCounts: map[string]int{},
		evictions: newEvictionBackoff(),
	}
	a.batcher = newBatcher(opts.BatchIdle, opts.BatchMax, a.provision, log.WithName("provisioner"))
	ctx := context.Background()
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &v1.NodeClaim{}, indexClaimProviderID, func(o client.Object) []string {
		if id := o.(*v1.NodeClaim).Status.ProviderID; id != "" {
			return []string{id}
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("indexing nodeclaims: %w", err)
	}
	if err := idx.IndexField(ctx, &corev1.Node{}, indexNodeProviderID, func(o client.Object) []string {
		if id := o.(*corev1.Node).Spec.ProviderID; id != "" {
			return []string{id}
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("indexing nodes: %w", err)
	}
	if err := idx.IndexField(ctx, &corev1.Pod{}, indexPodNodeName, func(o client.Object) []string {
		if n := o.(*corev1.Pod).Spec.NodeName; n != "" {
			return []string{n}
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("indexing pods: %w", err)
	}
	for _, setup := range []func(manager.Manager) error{
		a.setupProvisioning, a.setupLifecycle, a.setupNodes, a.setupLoops, a.setupInterruption,
	} {
		if err := setup(mgr); err != nil {
			return nil, err
		}
	}
	return a, nil
}
