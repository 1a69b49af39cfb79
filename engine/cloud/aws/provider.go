package aws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/go-logr/logr"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// ProviderName is the provider's short name and the scheme of its provider
// IDs (aws:///<zone>/<instance-id>).
const ProviderName = "aws"

// Tag keys the provider puts on what it creates.
const (
	TagCluster   = "tenon.dev/cluster"
	TagNodePool  = "tenon.dev/nodepool"
	TagNodeClaim = "tenon.dev/nodeclaim"
	// TagNode is set by TagRegistered to the node name an instance
	// registered as.
	TagNode = "tenon.dev/node"
	// TagName is the EC2 console's name tag.
	TagName = "Name"
)

// Defaults of Options.
const (
	DefaultRefreshInterval   = 5 * time.Minute
	DefaultUnavailableFor    = 3 * time.Minute
	DefaultLaunchTemplateTTL = 30 * time.Minute
	// DefaultReservationsTTL is how long described capacity reservations
	// (and their available counts) are trusted before they are described
	// again; launches into one count against it at once.
	DefaultReservationsTTL = time.Minute
	// CapacityBlockLead is how long before a capacity block ends that no
	// node is launched into it any more and its nodes drift (they are
	// replaced before EC2 reclaims them at the end).
	CapacityBlockLead = 40 * time.Minute
	// MaxOverrides is the most instance-type × subnet options one CreateFleet
	// request carries.
	MaxOverrides = 60
	// pricingRegion is where the Price List API is served.
	pricingRegion = "us-east-1"
)

// NodeClassLookup returns the NodeClass called name, with its defaults
// applied, or nil and no error when it does not exist. It keeps this package free of Kubernetes clients: the agent passes
// a function reading its informer cache.
type NodeClassLookup func(ctx context.Context, name string) (*v1.NodeClass, error)

// Options configure New. ClusterName, Region (or Config.Region) and NodeClass
// are required; ClusterEndpoint, ClusterCA and KubernetesVersion are required
// to launch AL2023 or Bottlerocket nodes (they go into the bootstrap user data
// and the SSM parameter names).
type Options struct {
	// Config is the AWS configuration the clients are built from (region,
	// credentials, retryer, BaseEndpoint for tests). The Pricing client is
	// built for us-east-1, where the Price List API lives.
	Config aws.Config
	// ClusterName is the EKS cluster name: instances, launch templates and
	// default subnet/security-group selectors are scoped by it.
	ClusterName string
	// Region is the EC2 region; empty means Config.Region.
	Region string
	// InterruptionQueue is the name of the SQS queue EventBridge sends
	// interruption events to; empty disables InterruptionSource.
	InterruptionQueue string
	// NodeClass looks NodeClasses up by name.
	NodeClass NodeClassLookup

	// ClusterEndpoint is the API server URL nodes join (https://...).
	ClusterEndpoint string
	// ClusterCA is the cluster's certificate authority, base64-encoded PEM
	// as EKS returns it.
	ClusterCA string
	// ClusterCIDR is the service CIDR (nodeadm's cluster.cidr); empty means
	// 10.100.0.0/16 (EKS's default unless the VPC is in 10.0.0.0/8).
	ClusterCIDR string
	// ClusterDNS is the cluster DNS service IP for Bottlerocket; empty means
	// the tenth address of ClusterCIDR.
	ClusterDNS string
	// KubernetesVersion is the cluster's minor version, such as "1.33"; it
	// names the public SSM parameters of the EKS-optimized AMIs.
	KubernetesVersion string

	// EC2, SSM, Pricing, SQS and IAM replace the clients built from Config
	// (tests pass awsfake.Fake).
	EC2     EC2API
	SSM     SSMAPI
	Pricing PricingAPI
	SQS     SQSAPI
	IAM     IAMAPI

	// Catalog is the embedded instance catalog (catalog.New()), when the
	// caller has loaded it already; nil means New loads it. Only its specs
	// (capacity, allocatable, labels) and us-east-1 prices are used.
	Catalog *catalog.Catalog

	// Logger receives structured logs: the agent passes its own, so the
	// provider's lines follow --log-format and --log-level (warnings keep
	// their level when it is backed by a slog handler, as the agent's is).
	// The zero Logger discards them.
	Logger logr.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// RefreshInterval is how often discovery, instance types and prices are
	// refreshed and launch templates collected; 0 means 5 minutes, negative
	// disables the background loop (tests drive Refresh themselves).
	RefreshInterval time.Duration
	// UnavailableFor is how long an offering that reported insufficient
	// capacity is skipped; 0 means 3 minutes.
	UnavailableFor time.Duration
	// LaunchTemplateTTL is how long a launch template may go unused before it
	// is deleted; 0 means 30 minutes.
	LaunchTemplateTTL time.Duration
	// ReservationsTTL is how long described capacity reservations are
	// trusted; 0 means DefaultReservationsTTL.
	ReservationsTTL time.Duration
}

// Provider is the AWS cloud provider. It implements cloud.CloudProvider and
// is safe for concurrent use.
type Provider struct {
	opts    Options
	region  string
	ec2     EC2API
	ssm     SSMAPI
	pricing PricingAPI
	sqs     SQSAPI
	iam     IAMAPI
	log     *slog.Logger
	now     func() time.Time

	specs *catalog.Catalog // embedded specs (capacity, allocatable, labels)

	// loadMu serializes the first loads of the type and price views, so
	// concurrent first launches ask AWS once.
	loadMu sync.Mutex

	mu          sync.Mutex
	classes     map[string]*resolved         // by NodeClass name
	types       *typeView                    // instance types and offerings of the region
	prices      *priceView                   // on-demand and spot prices
	unavailable map[cloud.Offering]time.Time // insufficient capacity until
	templates   map[string]time.Time         // launch template name -> last used
	// reservations are the capacity reservations each NodeClass selects,
	// by NodeClass name.
	reservations map[string]*reservationView
}

var _ cloud.CloudProvider = (*Provider)(nil)

var kubernetesVersion = regexp.MustCompile(`^1\.[0-9]{1,3}$`)

// New checks opts, builds the AWS clients it was not given, and starts a
// background loop (stopped when ctx ends) that refreshes discovery, instance
// types and prices and collects unused launch templates. It makes no AWS
// call itself: the first Create or InstanceTypes does.
func New(ctx context.Context, opts Options) (*Provider, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	region := opts.Region
	if region == "" {
		region = opts.Config.Region
	}
	specs := opts.Catalog
	if specs == nil {
		var err error
		if specs, err = catalog.New(); err != nil {
			return nil, fmt.Errorf("loading the embedded instance catalog: %w", err)
		}
	}
	p := &Provider{
		opts: opts, region: region, ec2: opts.EC2, ssm: opts.SSM, pricing: opts.Pricing, sqs: opts.SQS, iam: opts.IAM,
		log: slog.New(slog.DiscardHandler), now: opts.Now, specs: specs,
		classes: map[string]*resolved{}, unavailable: map[cloud.Offering]time.Time{}, templates: map[string]time.Time{},
		reservations: map[string]*reservationView{},
	}
	if opts.Logger.GetSink() != nil {
		p.log = slog.New(logr.ToSlogHandler(opts.Logger))
	}
	p.log = p.log.With("cloud", ProviderName, "cluster", opts.ClusterName, "region", region)
	if p.now == nil {
		p.now = time.Now
	}
	if p.opts.UnavailableFor == 0 {
		p.opts.UnavailableFor = DefaultUnavailableFor
	}
	if p.opts.ReservationsTTL == 0 {
		p.opts.ReservationsTTL = DefaultReservationsTTL
	}
	if p.opts.LaunchTemplateTTL == 0 {
		p.opts.LaunchTemplateTTL = DefaultLaunchTemplateTTL
	}
	if p.opts.RefreshInterval == 0 {
		p.opts.RefreshInterval = DefaultRefreshInterval
	}
	if p.opts.ClusterCIDR == "" {
		p.opts.ClusterCIDR = "10.100.0.0/16"
	}
	cfg := opts.Config.Copy()
	cfg.Region = region
	if p.ec2 == nil {
		p.ec2 = ec2.NewFromConfig(cfg)
	}
	if p.ssm == nil {
		p.ssm = ssm.NewFromConfig(cfg)
	}
	if p.pricing == nil {
		p.pricing = pricing.NewFromConfig(cfg, func(o *pricing.Options) { o.Region = pricingRegion })
	}
	if p.sqs == nil {
		p.sqs = sqs.NewFromConfig(cfg)
	}
	if p.iam == nil {
		p.iam = iam.NewFromConfig(cfg)
	}
	if p.opts.RefreshInterval > 0 {
		go p.loop(ctx)
	}
	return p, nil
}

// NewFromDefaultConfig is New with opts.Config loaded the SDK's default way
// (config.LoadDefaultConfig): credentials from the environment, IRSA web
// identity or EKS Pod Identity, and endpoint overrides from AWS_ENDPOINT_URL
// (tests point it at a local server). opts.Region, when set, overrides the
// region of the environment.
func NewFromDefaultConfig(ctx context.Context, opts Options) (*Provider, error) {
	var loadOpts []func(*config.LoadOptions) error
	if opts.Region != "" {
		loadOpts = append(loadOpts, config.WithRegion(opts.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	opts.Config = cfg
	return New(ctx, opts)
}

func (o Options) check() error {
	var errs []error
	if o.ClusterName == "" {
		errs = append(errs, errors.New("ClusterName is empty: pass the EKS cluster name (--cluster-name)"))
	}
	if o.Region == "" && o.Config.Region == "" {
		errs = append(errs, errors.New("no region: set Options.Region or the AWS config's region (AWS_REGION)"))
	}
	if o.NodeClass == nil {
		errs = append(errs, errors.New("NodeClass lookup is nil: pass a function returning NodeClasses by name"))
	}
	if o.KubernetesVersion != "" && !kubernetesVersion.MatchString(o.KubernetesVersion) {
		errs = append(errs, fmt.Errorf("KubernetesVersion %q is not a minor version such as 1.33", o.KubernetesVersion))
	}
	if o.ClusterEndpoint != "" && !strings.HasPrefix(o.ClusterEndpoint, "https://") {
		errs = append(errs, fmt.Errorf("ClusterEndpoint %q must be an https:// URL", o.ClusterEndpoint))
	}
	if o.ClusterCIDR != "" {
		if _, _, err := net.ParseCIDR(o.ClusterCIDR); err != nil {
			errs = append(errs, fmt.Errorf("ClusterCIDR %q is not a CIDR such as 10.100.0.0/16", o.ClusterCIDR))
		}
	}
	if o.ClusterDNS != "" && net.ParseIP(o.ClusterDNS) == nil {
		errs = append(errs, fmt.Errorf("ClusterDNS %q is not an IP address", o.ClusterDNS))
	}
	return errors.Join(errs...)
}

// Name returns "aws".
func (p *Provider) Name() string { return ProviderName }

// Region returns the EC2 region the provider launches in.
func (p *Provider) Region() string { return p.region }

// loop refreshes on a timer until ctx ends.
func (p *Provider) loop(ctx context.Context) {
	t := time.NewTicker(p.opts.RefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := p.Refresh(ctx); err != nil && ctx.Err() == nil {
				p.log.Warn("refresh failed", "error", err)
			}
		}
	}
}

// Refresh re-resolves every NodeClass seen so far, reloads instance types
// and prices, and deletes launch templates unused for LaunchTemplateTTL. The
// background loop calls it; the agent may call it after a NodeClass change.
func (p *Provider) Refresh(ctx context.Context) error {
	var errs []error
	p.mu.Lock()
	names := make([]string, 0, len(p.classes))
	for name := range p.classes {
		names = append(names, name)
	}
	p.mu.Unlock()
	for _, name := range names {
		if err := p.rediscover(ctx, name); err != nil {
			errs = append(errs, err)
		}
	}
	// The new views replace the old only once loaded, so launches never
	// wait on a refresh; a failed type refresh keeps the old view.
	if _, err := p.loadTypeView(ctx); err != nil {
		errs = append(errs, err)
	}
	p.loadPriceView(ctx)
	if _, err := p.CollectLaunchTemplates(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
