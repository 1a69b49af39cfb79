package v1_test

import (
	"fmt"
	"strings"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestNodePoolAtTheLimits runs the largest objects the schema allows through both sides: the
// CEL rules must stay within the API server's runtime cost budget, and one more item must be
// rejected by both.
func TestNodePoolAtTheLimits(t *testing.T) {
	_ = runTwins[v1.NodePool](t, "tenon.dev_nodepools.yaml", nodePoolBase, []twin{
		{Name: "largest valid pool", Patch: largestPool(100, 50, 50)},
		{Name: "101 requirements", Patch: largestPool(101, 1, 1),
			Path: "spec.template.spec.requirements", Fix: "must have at most 100 items"},
		{Name: "51 taints", Patch: largestPool(1, 51, 1),
			Path: "spec.template.spec.taints", Fix: "must have at most 50 items"},
		{Name: "51 budgets", Patch: largestPool(1, 1, 51),
			Path: "spec.disruption.budgets", Fix: "must have at most 50 items"},
	})
}

func largestPool(requirements, taints, budgets int) string {
	var b strings.Builder
	b.WriteString("spec:\n  template:\n    metadata:\n      labels:\n")
	for i := range 100 {
		fmt.Fprintf(&b, "        example.com/label-%d: %s\n", i, strings.Repeat("v", 63))
	}
	b.WriteString("    spec:\n      requirements:\n")
	values := make([]string, 50)
	for i := range values {
		values[i] = fmt.Sprintf("%s-%02d", strings.Repeat("x", 60), i)
	}
	for i := range requirements {
		fmt.Fprintf(&b, "      - {key: example.com/requirement-%d, operator: In, values: [%s], minValues: 50}\n", i, strings.Join(values, ", "))
	}
	b.WriteString("      taints:\n")
	for i := range taints {
		fmt.Fprintf(&b, "      - {key: example.com/taint-%d, value: %s, effect: NoSchedule}\n", i, strings.Repeat("v", 63))
	}
	b.WriteString("      startupTaints:\n")
	for i := range 50 {
		fmt.Fprintf(&b, "      - {key: example.com/startup-%d, effect: NoExecute}\n", i)
	}
	b.WriteString("  disruption:\n    consolidateAfter: 30s\n    budgets:\n")
	for range budgets {
		b.WriteString("    - {nodes: \"10%\", schedule: \"0,5,10,15,20,25,30,35,40,45,50,55 0-23/2 1-31 jan-dec mon-fri\", duration: 1h30m, reasons: [Empty, Underutilized, Drifted]}\n")
	}
	return b.String()
}
