package agent

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// Cloud names accepted by --cloud.
const (
	CloudKWOK = "kwok"
	CloudAWS  = "aws"
)

// Options are the agent's settings, one per flag.
type Options struct {
	// Cloud is the cloud provider: kwok or aws.
	Cloud string
	// ClusterName identifies the cluster on every instance.
	ClusterName string
	// Kubeconfig is the kubeconfig file; "" means in-cluster configuration.
	Kubeconfig string
	// MetricsAddr and HealthAddr are where /metrics and /healthz, /readyz
	// listen; "0" disables.
	MetricsAddr string
	HealthAddr  string
	// PprofAddr, when set, serves Go's /debug/pprof profiles there (off by
	// default: profiles show the agent's internals to whoever reaches it).
	PprofAddr string
	// LeaderElect turns on leader election on a Lease named LeaseName in
	// LeaderElectNamespace.
	LeaderElect          bool
	LeaderElectNamespace string
	// BatchIdle and BatchMax bound how long unschedulable pods are
	// batched: the batch closes BatchIdle after the last new pod, or
	// BatchMax after the first.
	BatchIdle time.Duration
	BatchMax  time.Duration
	// AnticipatePods sizes each batch's claims for the pods ReplicaSets,
	// StatefulSets and Jobs are still creating (launching only claims that
	// pods waiting now need), so a burst packs as if it arrived at once.
	AnticipatePods bool
	// AwaitPods starts the nodes a plan launches for pods controllers are
	// still creating with the awaiting-pods taint (awaiting.go), lifted once
	// every such pod came; each pod planned there is given the toleration of
	// its node's taint alone, so it binds as the node registers while the
	// room stays closed to pods planned elsewhere: the burst lands as
	// planned. Only with AnticipatePods.
	AwaitPods bool
	// PodDeletionCost writes controller.kubernetes.io/pod-deletion-cost on
	// ReplicaSet pods (deletioncost.go), so a scale-down deletes first the
	// replicas on the nodes consolidation would remove. Off by default, as
	// in Karpenter.
	PodDeletionCost bool
	// LogLevel is debug, info, warn or error; LogFormat json or text.
	LogLevel  string
	LogFormat string
	// KWOKLaunchDelay is how long the kwok provider waits before making a
	// node, to simulate boot time.
	KWOKLaunchDelay time.Duration
	// WrapCloud, when set, wraps the cloud provider the flags chose before any controller
	// uses it. It is no flag: programs that embed the agent set it, as the end-to-end tests
	// do to make the cloud fail (throttling, 5xx) for a while.
	WrapCloud func(cloud.CloudProvider) cloud.CloudProvider
	// Region and Zones select the catalog's offerings (kwok); Region is
	// also the EC2 region (aws; default the SDK's).
	Region string
	Zones  []string
	// InterruptionQueue is the SQS queue of EventBridge interruption
	// events (aws); "" turns interruption handling off.
	InterruptionQueue string
	// ClusterEndpoint is the API server URL new nodes join (aws); ""
	// means the one the agent talks to.
	ClusterEndpoint string
	// ClusterCIDR is the cluster's service CIDR (aws), which AL2023 and
	// Bottlerocket nodes need for their cluster DNS address; "" means
	// 10.100.0.0/16 (EKS's default unless the VPC is in 10.0.0.0/8).
	ClusterCIDR string

	// Timings pace the controllers (no flags: they are the agent's own
	// pacing, with production defaults; tests shorten them).
	Timings Timings

	// PolicyGit is the pull mode (--policy-git-*); off without a URL.
	PolicyGit PolicyGitOptions
}

// Timings are every duration the agent waits, polls or gives up after,
// each read by the controller it names.
type Timings struct {
	// LaunchTimeout: the lifecycle deletes a claim not launched within it.
	LaunchTimeout time.Duration
	// RegistrationTimeout: the lifecycle deletes a launched claim whose
	// node has not registered within it.
	RegistrationTimeout time.Duration
	// NodeClassRetry is how soon the lifecycle retries a launch its
	// NodeClass was not ready for.
	NodeClassRetry time.Duration
	// OrphanGracePeriod: garbage collection terminates an instance no claim
	// tracks once it is this old.
	OrphanGracePeriod time.Duration
	// GCInterval is how often garbage collection compares the cloud with
	// the claims.
	GCInterval time.Duration
	// SolveTimeout bounds one packing solve or consolidation plan.
	SolveTimeout time.Duration
	// CacheWaitTimeout and CachePollInterval bound the provisioner's wait
	// for the informer cache to hold the claims it just created.
	CacheWaitTimeout  time.Duration
	CachePollInterval time.Duration
	// UnschedulableRetry is how often the provisioner starts a batch while
	// pods are still unschedulable (a limit may have freed up).
	UnschedulableRetry time.Duration
	// NominationWindow is how long a node that just received nominated
	// pods is kept from disruption while the scheduler binds them.
	NominationWindow time.Duration
	// DisruptionInterval is how often disruption plans empty nodes
	// (consolidation's emptiness method alone), so an empty node goes
	// within a tick of its consolidateAfter.
	DisruptionInterval time.Duration
	// ConsolidationInterval is how often disruption makes the whole plan
	// (expiration, drift, consolidation) and runs its commands.
	ConsolidationInterval time.Duration
	// ReplacementTimeout bounds the wait for a command's replacements to
	// be initialized; ReplacementPollInterval paces it.
	ReplacementTimeout      time.Duration
	ReplacementPollInterval time.Duration
	// ReplacementHold is how long a replacement a disruption command
	// launched is kept from voluntary disruption, and the longest
	// consolidation waits for the nodes a command deleted to drain before
	// it plans the next one.
	ReplacementHold time.Duration
	// DrainRetry is how soon termination looks at a drain again while pods
	// leave.
	DrainRetry time.Duration
	// EvictionBackoffMin and EvictionBackoffMax pace the retries of an
	// eviction a PodDisruptionBudget refused: the minimum, doubling per
	// refusal of the same pod up to the maximum.
	EvictionBackoffMin time.Duration
	EvictionBackoffMax time.Duration
	// InterruptionRetry is how long interruption waits after its event
	// source failed before it asks again.
	InterruptionRetry time.Duration
	// StatusInterval is how often pool and NodeClass status is written.
	StatusInterval time.Duration
	// LeaseDuration, RenewDeadline and RetryPeriod time leader election: a
	// killed leader's lease expires after LeaseDuration and another
	// replica takes over within RetryPeriod of that.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
}

// DefaultTimings are the production timings.
func DefaultTimings() Timings {
	return Timings{
		LaunchTimeout:           5 * time.Minute,
		RegistrationTimeout:     15 * time.Minute,
		NodeClassRetry:          10 * time.Second,
		OrphanGracePeriod:       2 * time.Minute,
		GCInterval:              10 * time.Second,
		SolveTimeout:            30 * time.Second,
		CacheWaitTimeout:        10 * time.Second,
		CachePollInterval:       20 * time.Millisecond,
		UnschedulableRetry:      10 * time.Second,
		NominationWindow:        30 * time.Second,
		DisruptionInterval:      time.Second,
		ConsolidationInterval:   10 * time.Second,
		ReplacementTimeout:      5 * time.Minute,
		ReplacementPollInterval: time.Second,
		ReplacementHold:         5 * time.Minute,
		DrainRetry:              time.Second,
		EvictionBackoffMin:      time.Second,
		EvictionBackoffMax:      10 * time.Second,
		InterruptionRetry:       time.Second,
		StatusInterval:          5 * time.Second,
		LeaseDuration:           10 * time.Second,
		RenewDeadline:           7 * time.Second,
		RetryPeriod:             2 * time.Second,
	}
}

// validate checks that every timing is positive and that the pairs that
// bound each other are in order.
func (t Timings) validate() error {
	var errs []error
	for name, d := range map[string]time.Duration{
		"LaunchTimeout": t.LaunchTimeout, "RegistrationTimeout": t.RegistrationTimeout, "NodeClassRetry": t.NodeClassRetry,
		"OrphanGracePeriod": t.OrphanGracePeriod, "GCInterval": t.GCInterval, "SolveTimeout": t.SolveTimeout,
		"CacheWaitTimeout": t.CacheWaitTimeout, "CachePollInterval": t.CachePollInterval, "UnschedulableRetry": t.UnschedulableRetry,
		"NominationWindow": t.NominationWindow, "DisruptionInterval": t.DisruptionInterval, "ConsolidationInterval": t.ConsolidationInterval,
		"ReplacementTimeout": t.ReplacementTimeout, "ReplacementPollInterval": t.ReplacementPollInterval, "ReplacementHold": t.ReplacementHold, "DrainRetry": t.DrainRetry,
		"EvictionBackoffMin": t.EvictionBackoffMin, "EvictionBackoffMax": t.EvictionBackoffMax, "InterruptionRetry": t.InterruptionRetry,
		"StatusInterval": t.StatusInterval, "LeaseDuration": t.LeaseDuration, "RenewDeadline": t.RenewDeadline, "RetryPeriod": t.RetryPeriod,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("timing %s is %s: it must be positive (DefaultTimings has the production value)", name, d))
		}
	}
	if t.EvictionBackoffMax < t.EvictionBackoffMin {
		errs = append(errs, fmt.Errorf("timing EvictionBackoffMax %s is below EvictionBackoffMin %s", t.EvictionBackoffMax, t.EvictionBackoffMin))
	}
	if t.RenewDeadline >= t.LeaseDuration || t.RetryPeriod >= t.RenewDeadline {
		errs = append(errs, fmt.Errorf("leader election timings must satisfy RetryPeriod (%s) < RenewDeadline (%s) < LeaseDuration (%s)", t.RetryPeriod, t.RenewDeadline, t.LeaseDuration))
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// LeaseName is the name of the leader-election Lease.
const LeaseName = "tenon-agent-leader"

// DefaultOptions returns the flags' defaults.
func DefaultOptions() Options {
	ns := os.Getenv("POD_NAMESPACE")
	if ns == "" {
		ns = "kube-system"
	}
	return Options{
		Cloud:                CloudKWOK,
		MetricsAddr:          ":8080",
		HealthAddr:           ":8081",
		LeaderElectNamespace: ns,
		BatchIdle:            time.Second,
		BatchMax:             10 * time.Second,
		AnticipatePods:       true,
		AwaitPods:            true,
		LogLevel:             "info",
		LogFormat:            "json",
		Timings:              DefaultTimings(),
		PolicyGit:            defaultPolicyGitOptions(),
	}
}

// zoneList is a comma-separated --zones value.
type zoneList []string

func (z *zoneList) String() string { return strings.Join(*z, ",") }

func (z *zoneList) Set(v string) error {
	*z = nil
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*z = append(*z, s)
		}
	}
	return nil
}

// ParseFlags parses args into Options and validates them. Errors name the
// flag and what to write instead.
func ParseFlags(args []string, stderr io.Writer) (Options, error) {
	o := DefaultOptions()
	fs := flag.NewFlagSet("tenon agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Cloud, "cloud", o.Cloud, "cloud provider: kwok (simulated nodes) or aws")
	fs.StringVar(&o.ClusterName, "cluster-name", o.ClusterName, "the cluster's name, recorded on every instance (required)")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig file; empty means the in-cluster configuration")
	fs.StringVar(&o.MetricsAddr, "metrics-addr", o.MetricsAddr, "address of the Prometheus /metrics endpoint; 0 disables it")
	fs.StringVar(&o.PprofAddr, "pprof-addr", o.PprofAddr, "address to serve Go's /debug/pprof profiles on, such as 127.0.0.1:6060, to see where the agent's CPU and memory go; empty (the default) disables it")
	fs.StringVar(&o.HealthAddr, "health-addr", o.HealthAddr, "address of the /healthz and /readyz probes; 0 disables them")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader on the Lease "+LeaseName+" so that only one replica acts")
	fs.StringVar(&o.LeaderElectNamespace, "leader-elect-namespace", o.LeaderElectNamespace, "namespace of the leader-election Lease (default $POD_NAMESPACE, else kube-system)")
	fs.DurationVar(&o.BatchIdle, "batch-idle", o.BatchIdle, "close a batch of pending pods after this long without a new one (with --anticipate-pods, without a pod of a controller the batch has not seen)")
	fs.DurationVar(&o.BatchMax, "batch-max", o.BatchMax, "close a batch of pending pods at the latest this long after its first pod")
	fs.BoolVar(&o.AnticipatePods, "anticipate-pods", o.AnticipatePods, "size each batch's new nodes for the pods ReplicaSets, StatefulSets and Jobs are still creating (false: only for the pods waiting now)")
	fs.BoolVar(&o.AwaitPods, "await-pods", o.AwaitPods, "start the nodes a plan launches for pods still to come, or several nodes at once, with the taint tenon.dev/awaiting-pods=<claim name>, which each pod planned there is given the toleration of, so kube-scheduler binds the burst as planned; lifted once every such pod came (false: no taint, pods bind where the scheduler's score puts them)")
	fs.BoolVar(&o.PodDeletionCost, "pod-deletion-cost", o.PodDeletionCost, "write controller.kubernetes.io/pod-deletion-cost on ReplicaSet pods so a scale-down deletes first the replicas on the nodes consolidation would remove, never over a value the agent did not write (needs patch on pods: tenon manifests --pod-deletion-cost grants it)")
	fs.StringVar(&o.LogLevel, "log-level", o.LogLevel, "debug, info, warn or error")
	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, "json or text")
	fs.DurationVar(&o.KWOKLaunchDelay, "kwok-launch-delay", o.KWOKLaunchDelay, "kwok: wait this long before a launched node appears (simulated boot time)")
	fs.StringVar(&o.Region, "region", o.Region, "region whose catalog offerings and prices apply (default us-east-1)")
	zones := zoneList(o.Zones)
	fs.Var(&zones, "zones", "comma-separated zones of the region (default its a, b and c zones)")
	fs.StringVar(&o.InterruptionQueue, "interruption-queue", o.InterruptionQueue, "aws: SQS queue receiving EventBridge spot interruption, rebalance, health and state-change events; empty turns interruption handling off")
	fs.StringVar(&o.ClusterEndpoint, "cluster-endpoint", o.ClusterEndpoint, "aws: API server URL new nodes join (default the one the agent talks to)")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "aws: the cluster's service CIDR (kubernetesNetworkConfig.serviceIpv4Cidr of aws eks describe-cluster) for the nodes' bootstrap (default 10.100.0.0/16; EKS picks 172.20.0.0/16 for a VPC in 10.0.0.0/8)")
	o.PolicyGit.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: tenon agent takes only flags", fs.Arg(0))
	}
	o.Zones = zones
	return o, o.Validate()
}

// Validate checks the options before anything starts.
func (o Options) Validate() error {
	var errs []error
	switch o.Cloud {
	case CloudKWOK, CloudAWS:
	default:
		errs = append(errs, fmt.Errorf("--cloud %q: use kwok or aws", o.Cloud))
	}
	if o.ClusterName == "" {
		errs = append(errs, errors.New("--cluster-name is required: name the cluster, for example --cluster-name=dev"))
	}
	if o.BatchIdle <= 0 {
		errs = append(errs, fmt.Errorf("--batch-idle %s: must be positive, for example 1s", o.BatchIdle))
	}
	if o.BatchMax < o.BatchIdle {
		errs = append(errs, fmt.Errorf("--batch-max %s: must be at least --batch-idle (%s)", o.BatchMax, o.BatchIdle))
	}
	switch o.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("--log-level %q: use debug, info, warn or error", o.LogLevel))
	}
	switch o.LogFormat {
	case "json", "text":
	default:
		errs = append(errs, fmt.Errorf("--log-format %q: use json or text", o.LogFormat))
	}
	if o.KWOKLaunchDelay < 0 {
		errs = append(errs, fmt.Errorf("--kwok-launch-delay %s: must not be negative", o.KWOKLaunchDelay))
	}
	if o.ClusterCIDR != "" {
		if _, _, err := net.ParseCIDR(o.ClusterCIDR); err != nil {
			errs = append(errs, fmt.Errorf("--cluster-cidr %q is not a CIDR: pass the cluster's service CIDR, for example --cluster-cidr=172.20.0.0/16", o.ClusterCIDR))
		}
	}
	if err := o.PolicyGit.validate(); err != nil {
		errs = append(errs, err)
	}
	if o.LeaderElect && o.LeaderElectNamespace == "" {
		errs = append(errs, errors.New("--leader-elect-namespace is empty: name the namespace of the Lease"))
	}
	if err := o.Timings.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
