// Package aws is Tenon's AWS cloud provider (DESIGN §8): it launches, finds,
// and terminates EC2 instances for NodeClaims with aws-sdk-go-v2, and is the
// only package that imports the AWS SDK.
//
// Build it with New, which the agent calls for `tenon agent --cloud aws`:
//
//	p, err := aws.New(ctx, aws.Options{
//		Config:            cfg, // config.LoadDefaultConfig(ctx): IRSA or Pod Identity credentials
//		ClusterName:       "prod",
//		Region:            "eu-west-1",
//		InterruptionQueue: "tenon-prod", // "" disables interruption handling
//		NodeClass:         func(ctx context.Context, name string) (*v1.NodeClass, error) { ... },
//		ClusterEndpoint:   "https://....eks.amazonaws.com",
//		ClusterCA:         "LS0t...", // base64 PEM, as EKS returns it
//		KubernetesVersion: "1.33",
//		Logger:            log, // the agent's logr.Logger: lines follow --log-format and --log-level
//	})
//
// What it does, and where:
//
//   - api.go: the narrow per-service interfaces (EC2API, SSMAPI, PricingAPI,
//     SQSAPI, IAMAPI) with the SDK's exact signatures. They list every operation
//     the provider calls; docs/guides/aws-iam.md is checked against them.
//   - discovery.go: NodeClass → subnets and security groups (tag selectors or
//     IDs; by default the kubernetes.io/cluster/<name> tag), AMIs (the
//     family's public SSM parameters, or amiSelectorTerms), instance
//     profile, and the Ready condition saying what is missing. Cached per
//     NodeClass spec, refreshed on a timer, dropped by Invalidate.
//   - instanceprofile.go: for a NodeClass with role, the instance profile
//     the provider manages (tenon_<cluster>_<hash>, tagged with the cluster
//     and the NodeClass, holding exactly the role), deleted once the
//     NodeClass is gone.
//   - instancetypes.go, pricing.go: DescribeInstanceTypes and
//     DescribeInstanceTypeOfferings per zone; on-demand prices from the Price
//     List API (us-east-1 endpoint) and spot prices from the spot price
//     history, falling back to the embedded catalog (PriceSources says which).
//   - launch.go, launchtemplate.go, userdata.go: Create through an instant
//     CreateFleet over the 60 cheapest type × subnet options, one launch
//     template per (NodeClass, AMI, labels/taints) hash with nodeadm or
//     Bottlerocket user data, idempotent per claim, with a 3-minute
//     insufficient-capacity cache and spot → on-demand fallback.
//   - instances.go: Get, List, Delete, IsDrifted, CollectOrphans (terminate
//     untracked instances after a grace period) and TagRegistered.
//   - interruption.go: the SQS InterruptionSource for EventBridge events.
//
// Subpackage awsfake is an in-memory EC2/SSM/Pricing/SQS/IAM with fault
// knobs for tests, and awsfake.Server serves it over HTTP for wire tests.
package aws
