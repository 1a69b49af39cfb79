package v1_test

import (
	"fmt"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestRestrictedLabelsAgreeWithScheduling keeps the API's label rules (Go and, through the twin
// runner, CEL) in step with the scheduling package: every key scheduling lets a pool require
// (IsRestrictedRequirement) or set (IsRestrictedLabel) is accepted there, every key it refuses is
// rejected.
func TestRestrictedLabelsAgreeWithScheduling(t *testing.T) {
	keys := v1test.SampleLabelKeys()

	var cases []twin
	for i, k := range keys {
		c := twin{
			Name:  k,
			Patch: fmt.Sprintf("{spec: {template: {spec: {requirements: [{key: %q, operator: Exists}]}}}}", k),
		}
		// Karpenter's aliases may be required (they read as Tenon's labels), not set.
		if err := scheduling.IsRestrictedRequirement(k); err != nil {
			c.Path, c.Fix = "spec.template.spec.requirements[0].key", "restricted"
		}
		cases = append(cases, c)
		l := twin{Name: fmt.Sprintf("label %d %s", i, k), Patch: fmt.Sprintf("{spec: {template: {metadata: {labels: {%q: x}}}}}", k)}
		if scheduling.IsRestrictedLabel(k) != nil {
			l.Path, l.Fix = fmt.Sprintf("spec.template.metadata.labels[%s]", k), "restricted"
		}
		cases = append(cases, l)
	}
	_ = runTwins[v1.NodePool](t, "tenon.dev_nodepools.yaml", nodePoolBase, cases)
}
