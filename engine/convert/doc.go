// Package convert turns Karpenter's policy objects into Tenon's: `tenon convert`.
//
// It reads multi-document Karpenter YAML with engine/manifest
// (karpenterKinds: karpenter.sh/v1alpha5 Provisioner, karpenter.sh/v1beta1
// and v1 NodePool, karpenter.k8s.aws/v1beta1 and v1 EC2NodeClass,
// karpenter.k8s.aws/v1alpha1 AWSNodeTemplate, karpenter.sh/v1alpha1 NodeOverlay,
// autoscaling.x-k8s.io/v1alpha1 and v1beta1 CapacityBuffer), maps every field it knows to
// the tenon.dev API (engine/api/v1 and v1alpha5), validates the result with
// that API's Go validation, and writes it as Terraform HCL for the tenon_*
// resources or as tenon.dev YAML.
//
// The mapping is mechanical: Tenon's field names are Karpenter's (DESIGN §4),
// label keys move from the karpenter.sh and karpenter.k8s.aws domains to
// tenon.dev (scheduling.FromKarpenterLabel), and the few fields that moved
// between Karpenter versions (v1beta1's disruption.expireAfter and
// template.spec.kubelet) move to where Tenon's v1 keeps them. Every input field
// is accounted for: a field the walker does not consume is reported as
// unmapped, with the reason, on stderr and in a comment at the top of the
// output, so nothing is dropped silently. Fields the API server or Karpenter
// set (status, metadata.uid, hashes) are listed as ignored.
//
// A CapacityBuffer becomes the spec.buffer of the NodePool its pods would run in (buffer.go):
// its PodTemplate or workload must be in the input too, read only for the pods' requests.
//
// The package is pure: it reads bytes and returns values; it imports no
// client-go and nothing of Terraform (hclwrite formats the HCL).
package convert
