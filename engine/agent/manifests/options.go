package manifests

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

// ImageRepository is where releases publish the agent image (`make image PUSH=ghcr.io/tenonhq/tenon`).
const ImageRepository = "ghcr.io/tenonhq/tenon"

// DefaultImage is the agent's image when Options.Image is empty: the image released with this
// binary's own version (internal/version), so the provider or `tenon manifests` of v1.2.3
// installs the agent v1.2.3, never a moving :latest. It is derived once from the version the
// linker stamped and never changes. The image's entrypoint is the tenon binary, so the
// container's args start with the subcommand, agent.
var DefaultImage = ImageRepository + ":" + version.ImageTag()

// DefaultImageNote returns, for a development build, which tag DefaultImage names and how to
// get an image for it; for a release, "".
func DefaultImageNote() string {
	if version.IsRelease() {
		return ""
	}
	return "development build " + version.Version() + ": the agent image defaults to " + DefaultImage +
		", a tag no release publishes; push one with `make image PUSH=<registry>/<repository>` and pass it as the image, or pass a release's image"
}

// Defaults of Options.
const (
	// DefaultNamespace is where the agent runs when Options.Namespace is empty.
	DefaultNamespace = "tenon-system"
	// DefaultReplicas is the Deployment's size when Options.Replicas is zero: one leader and
	// one stand-by.
	DefaultReplicas = 2
	// DefaultBatchIdle and DefaultBatchMax are the pending-pod batcher's windows (DESIGN §7).
	DefaultBatchIdle = time.Second
	DefaultBatchMax  = 10 * time.Second
	// DefaultLogLevel and DefaultLogFormat are the agent's logging defaults: JSON for log
	// collectors.
	DefaultLogLevel  = "info"
	DefaultLogFormat = "json"
	// MetricsPort serves Prometheus metrics at /metrics; HealthPort serves /healthz and /readyz.
	MetricsPort = 8080
	HealthPort  = 8081
)

// Clouds the agent can launch nodes in.
const (
	CloudKWOK = "kwok"
	CloudAWS  = "aws"
)

// Values accepted by Settings.
var (
	Clouds     = []string{CloudAWS, CloudKWOK}
	LogLevels  = []string{"debug", "info", "warn", "error"}
	LogFormats = []string{"json", "text"}
)

// Options say how to install the agent. The zero value of every field but Cloud and
// ClusterName means its default; Objects fills them in (see Defaulted).
type Options struct {
	// Namespace holds the agent's Deployment, ServiceAccount, Role, leader-election Lease and
	// PDB. Default DefaultNamespace.
	Namespace string
	// Image is the agent's container image. Default DefaultImage.
	Image string
	// ImagePullPolicy of the agent's container; empty lets Kubernetes choose (Always for
	// :latest, IfNotPresent otherwise).
	ImagePullPolicy corev1.PullPolicy
	// Replicas of the Deployment; one is the leader, the others wait on the Lease. Zero means
	// DefaultReplicas.
	Replicas int32
	// Cloud is where nodes are launched: "aws" or "kwok". Required.
	Cloud string
	// ClusterName names the cluster in cloud tags and logs. Required.
	ClusterName string
	// ServiceAccountAnnotations go on the agent's ServiceAccount, such as
	// eks.amazonaws.com/role-arn for IAM roles for service accounts (IRSA).
	ServiceAccountAnnotations map[string]string
	// Settings are the agent's flags.
	Settings Settings
	// Resources of the agent's container. Empty means DefaultResources().
	Resources corev1.ResourceRequirements
	// PolicyGit turns on pull mode: the agent applies the tenon.dev objects of a Git path
	// itself, where no ArgoCD or Flux runs. Nil means off. It adds the permissions pull mode
	// needs (see Permissions).
	PolicyGit *PolicyGit
	// Args are appended to the agent's generated arguments, for flags Settings does not cover.
	Args []string
	// ServiceMonitor adds a Prometheus Operator ServiceMonitor for the metrics Service. Nil
	// means none (the default: it needs the Operator's CRDs).
	ServiceMonitor *ServiceMonitor
}

// PolicyGit is the agent's pull mode (the --policy-git-* flags).
type PolicyGit struct {
	// URL is the repository (https://, ssh:// or git@host:path). Required.
	URL string
	// Branch to follow; empty means the agent's default.
	Branch string
	// Path is the repository folder holding the objects; empty means the root.
	Path string
	// Interval between fetches; zero means the agent's default.
	Interval time.Duration
	// Secret names a Secret in the agent's namespace with the Git credentials; empty means
	// anonymous access. The agent may read this Secret and no other.
	Secret string
	// InsecureHTTP lets the Secret's token or password go to an http:// URL, in clear text
	// (--policy-git-insecure-http): a test server or a trusted network only.
	InsecureHTTP bool
}

// Settings are the agent's behaviour flags.
type Settings struct {
	// BatchIdle ends a batch of pending pods after this long without a new one (--batch-idle).
	// Default DefaultBatchIdle.
	BatchIdle time.Duration
	// BatchMax ends a batch this long after its first pod at the latest (--batch-max).
	// Default DefaultBatchMax.
	BatchMax time.Duration
	// LogLevel is debug, info, warn or error (--log-level). Default DefaultLogLevel.
	LogLevel string
	// LogFormat is json or text (--log-format). Default DefaultLogFormat.
	LogFormat string
	// InterruptionQueue is the SQS queue the aws cloud reads spot interruption and instance
	// state events from (--interruption-queue); empty means none. aws only.
	InterruptionQueue string
	// Region is the cloud region (--region); empty lets the agent decide (AWS: the SDK's
	// configuration; kwok: the catalog's default region).
	Region string
	// Zones restrict the zones nodes are launched in (--zones); empty means all of the region.
	Zones []string
	// KWOKLaunchDelay simulates an instance's boot time (--kwok-launch-delay). kwok only.
	KWOKLaunchDelay time.Duration
	// PodDeletionCost has the agent write controller.kubernetes.io/pod-deletion-cost on
	// ReplicaSet pods, so a scale-down deletes first the replicas on the nodes consolidation
	// would remove (--pod-deletion-cost). Off by default, as in Karpenter.
	PodDeletionCost bool
}

// DefaultResources are the agent container's requests and limits when Options.Resources is
// empty: the agent's informers hold every pod and node of the cluster, so memory grows with the
// cluster; raise the limit on clusters of many thousands of pods.
func DefaultResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("250m"),
			corev1.ResourceMemory: resource.MustParse("256Mi"),
		},
		Limits: corev1.ResourceList{
			corev1.ResourceMemory: resource.MustParse("1Gi"),
		},
	}
}

// Defaulted returns o with every empty field set to its default. It does not validate.
func (o Options) Defaulted() Options {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.Replicas == 0 {
		o.Replicas = DefaultReplicas
	}
	if len(o.Resources.Requests) == 0 && len(o.Resources.Limits) == 0 && len(o.Resources.Claims) == 0 {
		o.Resources = DefaultResources()
	}
	s := &o.Settings
	if s.BatchIdle == 0 {
		s.BatchIdle = DefaultBatchIdle
	}
	if s.BatchMax == 0 {
		s.BatchMax = DefaultBatchMax
	}
	if s.LogLevel == "" {
		s.LogLevel = DefaultLogLevel
	}
	if s.LogFormat == "" {
		s.LogFormat = DefaultLogFormat
	}
	o.ServiceAccountAnnotations = maps.Clone(o.ServiceAccountAnnotations)
	o.Args = slices.Clone(o.Args)
	if o.PolicyGit != nil {
		g := *o.PolicyGit
		o.PolicyGit = &g
	}
	if o.ServiceMonitor != nil {
		o.ServiceMonitor = &ServiceMonitor{Labels: maps.Clone(o.ServiceMonitor.Labels)}
	}
	s.Zones = slices.Clone(s.Zones)
	return o
}

// Validate checks defaulted options and returns one error naming every field at fault and
// what to write instead.
func (o Options) Validate() error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	for _, msg := range validation.IsDNS1123Label(o.Namespace) {
		add("namespace %q: %s", o.Namespace, msg)
	}
	if strings.TrimSpace(o.Image) != o.Image || strings.ContainsAny(o.Image, " \t\n") {
		add("image %q: must not contain whitespace", o.Image)
	}
	if o.Replicas < 1 {
		add("replicas %d: must be at least 1 (2 or more keep a stand-by agent)", o.Replicas)
	}
	switch o.ImagePullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		add("image pull policy %q: must be Always, IfNotPresent or Never", o.ImagePullPolicy)
	}
	if !slices.Contains(Clouds, o.Cloud) {
		add("cloud %q: must be one of %s", o.Cloud, strings.Join(Clouds, ", "))
	}
	if o.ClusterName == "" {
		add("cluster name: required; it names the cluster in cloud tags and logs")
	} else {
		for _, msg := range validation.IsDNS1123Subdomain(o.ClusterName) {
			add("cluster name %q: %s", o.ClusterName, msg)
		}
	}
	for k, v := range o.ServiceAccountAnnotations {
		for _, msg := range validation.IsQualifiedName(k) {
			add("service account annotation %q: %s", k, msg)
		}
		if strings.TrimSpace(v) == "" {
			add("service account annotation %q: the value is empty; remove the annotation or set a value", k)
		}
	}
	if sm := o.ServiceMonitor; sm != nil {
		for k, v := range sm.Labels {
			for _, msg := range validation.IsQualifiedName(k) {
				add("service monitor label %q: %s", k, msg)
			}
			for _, msg := range validation.IsValidLabelValue(v) {
				add("service monitor label %q value %q: %s", k, v, msg)
			}
		}
	}
	o.Settings.validate(o.Cloud, add)
	if g := o.PolicyGit; g != nil {
		if strings.TrimSpace(g.URL) == "" || strings.ContainsAny(g.URL, " \t\n") {
			add("policy git url %q: required in pull mode, a repository URL such as https://github.com/acme/policy.git", gitops.RedactURL(g.URL))
		} else if err := gitops.CheckURL(g.URL); err != nil {
			add("policy git %v", err)
		}
		if g.Interval != 0 && g.Interval < time.Second {
			add("policy git interval %s: use 1s or more, such as 30s", g.Interval)
		}
		if g.Secret != "" {
			for _, msg := range validation.IsDNS1123Subdomain(g.Secret) {
				add("policy git secret %q: %s", g.Secret, msg)
			}
		}
	}
	for i, a := range o.Args {
		if !strings.HasPrefix(a, "-") {
			add("args[%d] %q: must be a flag such as --name=value", i, a)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid agent options: %s", strings.Join(problems, "; "))
	}
	return nil
}

func (s Settings) validate(cloud string, add func(string, ...any)) {
	if s.BatchIdle <= 0 {
		add("settings batch idle %s: must be positive, such as 1s", s.BatchIdle)
	}
	if s.BatchMax <= 0 {
		add("settings batch max %s: must be positive, such as 10s", s.BatchMax)
	}
	if s.BatchIdle > s.BatchMax {
		add("settings batch idle %s: must not exceed batch max %s", s.BatchIdle, s.BatchMax)
	}
	if !slices.Contains(LogLevels, s.LogLevel) {
		add("settings log level %q: must be one of %s", s.LogLevel, strings.Join(LogLevels, ", "))
	}
	if !slices.Contains(LogFormats, s.LogFormat) {
		add("settings log format %q: must be one of %s", s.LogFormat, strings.Join(LogFormats, ", "))
	}
	if s.InterruptionQueue != "" && cloud != CloudAWS {
		add("settings interruption queue %q: only the aws cloud reads an interruption queue; remove it", s.InterruptionQueue)
	}
	if s.KWOKLaunchDelay < 0 {
		add("settings kwok launch delay %s: must not be negative", s.KWOKLaunchDelay)
	}
	if s.KWOKLaunchDelay != 0 && cloud != CloudKWOK {
		add("settings kwok launch delay %s: only the kwok cloud simulates boot time; remove it", s.KWOKLaunchDelay)
	}
	for i, z := range s.Zones {
		if strings.TrimSpace(z) == "" || strings.Contains(z, ",") {
			add("settings zones[%d] %q: must be a zone name such as us-east-1a", i, z)
		}
	}
}
