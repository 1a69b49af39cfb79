package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

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
	// claims, the nominated node of each pod of a burst (hint.go) and the
	// evictions of a drain; the agent writes in bursts. Karpenter's
	// defaults.
	if cfg.QPS == 0 {
		cfg = rest.CopyConfig(cfg)
		cfg.QPS, cfg.Burst = 200, 300
	}
	mgr, err := newManager(cfg, scheme, opts, log)
	if err != nil {
		return err
	}
	provider, err := newCloud(ctx, cfg, scheme, opts, log)
	if err != nil {
		return err
	}
	if opts.WrapCloud != nil {
		provider = opts.WrapCloud(provider)
	}
	// The one wall clock of the agent: every controller reads and waits on
	// it.
	clk := clock.RealClock{}
	if err := setup(mgr, provider, opts, ctrlmetrics.Registry, log, clk); err != nil {
		return err
	}
	if err := addPolicySync(mgr, cfg, scheme, opts, log, clk); err != nil {
		return err
	}
	log.Info("starting the agent", "cloud", provider.Name(), "cluster", opts.ClusterName, "leaderElect", opts.LeaderElect, "podDeletionCost", opts.PodDeletionCost)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the agent: %w", err)
	}
	return nil
}

// newManager creates the controller manager: metrics, probes (healthz
// ping; readyz once the informer caches synced) and leader election on the
// Lease LeaseName, timed by opts.Timings.
func newManager(cfg *rest.Config, scheme *runtime.Scheme, opts Options, log logr.Logger) (manager.Manager, error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Logger: log,
		// No cached object keeps its managedFields: the agent never reads
		// them, and on pods they are a third of what the cache holds and
		// copies. Updates without them leave the server's as they are.
		Cache:                         cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                       metricsserver.Options{BindAddress: opts.MetricsAddr},
		HealthProbeBindAddress:        opts.HealthAddr,
		PprofBindAddress:              opts.PprofAddr,
		LeaderElection:                opts.LeaderElect,
		LeaderElectionID:              LeaseName,
		LeaderElectionNamespace:       opts.LeaderElectNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &opts.Timings.LeaseDuration,
		RenewDeadline:                 &opts.Timings.RenewDeadline,
		RetryPeriod:                   &opts.Timings.RetryPeriod,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the controller manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("cache", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("informer caches not synced")
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("adding the readiness check: %w", err)
	}
	return mgr, nil
}

// setup registers the agent's field indexes and controllers on mgr, with
// clk. Metrics register on reg.
func setup(mgr manager.Manager, provider cloud.CloudProvider, opts Options, reg prometheus.Registerer, log logr.Logger, clk agentClock) error {
	m, err := newMetrics(reg)
	if err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	if err := addIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	ctrls := newControllers(mgr.GetClient(), provider, mgr.GetEventRecorder("tenon-agent"), m, opts, clk, log)
	for _, r := range ctrls.all() {
		if err := r.Register(mgr); err != nil {
			return err
		}
	}
	return nil
}

// controllers are the agent's controllers, each with the dependencies it
// uses; the nominations and the view builder are the state they share.
type controllers struct {
	provisioner  *provisioner
	lifecycle    *lifecycle
	termination  *termination
	gc           *garbageCollector
	disruption   *disruption
	interruption *interruption
	status       *poolStatus
	static       *staticCapacity
	buffers      *capacityBuffers
	// deletionCosts is nil unless --pod-deletion-cost.
	deletionCosts *deletionCosts
}

// newControllers wires the controllers to one client, cloud, recorder,
// metrics, clock and logger.
func newControllers(c client.Client, provider cloud.CloudProvider, rec events.EventRecorder, m *metrics, opts Options, clk agentClock, log logr.Logger) *controllers {
	t := opts.Timings
	views := &viewBuilder{client: c, cloud: provider}
	nominated := newNominations(t.NominationWindow)
	disrupter := &disrupter{client: c, recorder: rec, metrics: m, log: log.WithName("disruption")}
	drained := newWake()
	term := &termination{client: c, cloud: provider, evictions: newEvictionBackoff(t.EvictionBackoffMin, t.EvictionBackoffMax),
		recorder: rec, metrics: m, log: log.WithName("termination"), clock: clk, timings: t, drained: drained}
	slots := newSlots(t.NominationWindow)
	arrivals := &arrivals{}
	hints := &hinter{client: c, log: log.WithName("provisioner")}
	prov := &provisioner{client: c, views: views, nominated: nominated, recorder: rec, metrics: m, log: log.WithName("provisioner"), clock: clk, timings: t,
		anticipate: opts.AnticipatePods, await: opts.AnticipatePods && opts.AwaitPods, slots: slots, hints: hints, arrivals: arrivals}
	prov.batcher = newBatcher(opts.BatchIdle, opts.BatchMax, prov.provision, clk, prov.log)
	prov.batcher.foresee = opts.AnticipatePods
	buffers := &capacityBuffers{views: views, prov: prov, log: log.WithName("capacity-buffers"), clock: clk, last: map[string]string{},
		interval: t.DisruptionInterval, timeout: t.SolveTimeout, window: t.NominationWindow, launched: map[string]time.Time{}}
	var costs *deletionCosts
	if opts.PodDeletionCost {
		costs = newDeletionCosts(c, m, log.WithName("pod-deletion-cost"), clk)
	}
	return &controllers{
		deletionCosts: costs,
		provisioner:   prov,
		lifecycle:     &lifecycle{client: c, hints: hints, cloud: provider, termination: term, recorder: rec, metrics: m, log: log.WithName("lifecycle"), clock: clk, timings: t, arrivals: arrivals},
		termination:   term,
		gc: &garbageCollector{client: c, cloud: provider, disrupter: disrupter, recorder: rec, metrics: m,
			log: log.WithName("garbage-collection"), clock: clk, timings: t},
		disruption: &disruption{client: c, views: views, nominated: nominated, slots: slots, buffers: buffers, conditions: newClaimConditions(c), disrupter: disrupter,
			deletionCosts: costs, metrics: m, log: log.WithName("disruption"), clock: clk, timings: t, drained: drained},
		interruption: &interruption{client: c, cloud: provider, disrupter: disrupter, recorder: rec, metrics: m,
			log: log.WithName("interruption"), clock: clk, timings: t},
		status:  &poolStatus{client: c, cloud: provider, views: views, recorder: rec, metrics: m, log: log.WithName("pool-status"), clock: clk, timings: t},
		static:  &staticCapacity{views: views, prov: prov, log: log.WithName("static-capacity"), clock: clk, blocked: map[string]string{}, interval: t.DisruptionInterval},
		buffers: buffers,
	}
}

// all lists the controllers in the order they register.
func (c *controllers) all() []interface{ Register(manager.Manager) error } {
	out := []interface{ Register(manager.Manager) error }{
		c.provisioner, c.lifecycle, c.termination, c.gc, c.disruption, c.interruption, c.status, c.static, c.buffers,
	}
	if c.deletionCosts != nil {
		out = append(out, c.deletionCosts)
	}
	return out
}
