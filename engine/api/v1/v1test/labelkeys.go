package v1test

import (
	"sort"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// SampleLabelKeys returns the label keys the API's restricted-label tests run through both the
// CRDs and Go and compare with scheduling.IsRestrictedLabel: every well-known label, its
// Karpenter spellings, and keys on either side of each restricted domain's edge. v1 and
// v1alpha5 share the list so their rules cannot drift apart unnoticed.
func SampleLabelKeys() []string {
	keys := scheduling.WellKnownLabels().UnsortedList()
	for k := range scheduling.WellKnownLabels() {
		if name, ok := strings.CutPrefix(k, "tenon.dev/"); ok {
			keys = append(keys, "karpenter.k8s.aws/"+name, "karpenter.sh/"+name)
		}
	}
	keys = append(keys,
		"team", "example.com/team", "kubernetes.io/team", "a.kubernetes.io/b", "evilkubernetes.io/b",
		"node.kubernetes.io/role", "x.node.kubernetes.io/y", "node-restriction.kubernetes.io/z",
		"k8s.io/a", "x.k8s.io/a", "kops.k8s.io/instancegroup", "a.kops.k8s.io/b", "tenon.dev/team", "x.tenon.dev/a",
		"karpenter.sh/provisioner-name", "karpenter.k8s.aws/instance-encryption-in-transit-supported",
		"karpenter.k8s.aws/instance-pods", "karpenter.k8s.aws/ec2nodeclass", "beta.kubernetes.io/arch",
		"failure-domain.beta.kubernetes.io/zone",
	)
	sort.Strings(keys)
	return keys
}
