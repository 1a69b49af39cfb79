package v1_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestRestrictedLabelsAgreeWithScheduling keeps the API's label rules (Go and, through the twin
// runner, CEL) in step with the scheduling package: every key scheduling lets a pool use is
// accepted as a requirement and a label, every key it refuses is rejected.
func TestRestrictedLabelsAgreeWithScheduling(t *testing.T) {
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

	var cases []twin
	for i, k := range keys {
		c := twin{
			Name:  k,
			Patch: fmt.Sprintf("{spec: {template: {spec: {requirements: [{key: %q, operator: Exists}]}}}}", k),
		}
		if err := scheduling.IsRestrictedLabel(k); err != nil {
			c.Path, c.Fix = "spec.template.spec.requirements[0].key", "restricted"
		}
		cases = append(cases, c)
		l := twin{Name: fmt.Sprintf("label %d %s", i, k), Patch: fmt.Sprintf("{spec: {template: {metadata: {labels: {%q: x}}}}}", k)}
		if c.Path != "" {
			l.Path, l.Fix = fmt.Sprintf("spec.template.metadata.labels[%s]", k), "restricted"
		}
		cases = append(cases, l)
	}
	_ = runTwins[v1.NodePool](t, "tenon.dev_nodepools.yaml", nodePoolBase, cases)
}
