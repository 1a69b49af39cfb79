// Package catalog is Tenon's offline EC2 instance catalog: instance types with
// capacity, allocatable resources, well-known label requirements, and
// offerings (zone × capacity type × price) for one region.
//
// The data is embedded from data/ec2-instance-types.json, a snapshot taken in
// mid-2026 from public sources (see data/README.md for the full table):
//
//   - specs, labels, allocatable and max pods: aws/karpenter-provider-aws,
//     website/content/en/docs/reference/instance-types.md (AL2023 defaults);
//   - on-demand prices for us-east-1, us-gov-east-1 and us-gov-west-1:
//     Karpenter's generated static price tables (zz_generated.pricing_aws*.go);
//   - ENI limits and the bare-metal flag: Karpenter's zz_generated.vpclimits.go;
//   - spot savings: the AWS Spot Instance Advisor data vendored in
//     alexei-led/spotinfo. The spot price is an estimate, on-demand × (100 −
//     savings%) / 100, present for us-east-1 only.
//
// Prices are list prices that change; a type with no price in a region has
// no offering there, never a zero price. The package is pure: New parses the
// embedded bytes into a fresh Catalog, with no package-level mutable state.
package catalog
