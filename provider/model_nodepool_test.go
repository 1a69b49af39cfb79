package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestNodePoolRoundTrip: model -> API -> model is the identity for every field, with the
// defaults the CRD applies already in the model (as a plan has them).
func TestNodePoolRoundTrip(t *testing.T) {
	s := types.StringValue
	full := nodePoolModel{
		ID: s("p"), Name: s("p"),
		Template: &nodePoolTemplateModel{
			Metadata: &templateMetadataModel{
				Labels:      map[string]types.String{"example.com/team": s("a")},
				Annotations: map[string]types.String{"example.com/note": s("b")},
			},
			Requirements: []requirementModel{
				{Key: s("node.kubernetes.io/instance-type"), Operator: s("In"), Values: []types.String{s("m5.large"), s("c5.large")}, MinValues: types.Int64Value(2)},
				{Key: s("tenon.dev/instance-cpu"), Operator: s("Gt"), Values: []types.String{s("3")}, MinValues: types.Int64Null()},
			},
			Taints:                 []taintModel{{Key: s("example.com/t"), Value: s("v"), Effect: s("NoSchedule")}},
			StartupTaints:          []taintModel{{Key: s("example.com/s"), Value: types.StringNull(), Effect: s("NoExecute")}},
			ExpireAfter:            s("Never"),
			TerminationGracePeriod: s("1h30m"),
			NodeClass:              s("default"),
		},
		Disruption: &disruptionModel{
			ConsolidationPolicy: s("WhenEmpty"), ConsolidateAfter: s("30s"),
			Budgets: []budgetModel{
				{Nodes: s("10%"), Schedule: types.StringNull(), Duration: types.StringNull()},
				{Nodes: s("0"), Schedule: s("0 9 * * mon-fri"), Duration: s("8h"), Reasons: []types.String{s("Drifted"), s("Empty")}},
			},
			MinSavingsPerHour: s("0.05"), MinSavingsPercent: types.Int64Value(0), MinSavingsPerPod: s("0.0015"),
		},
		Limits: map[string]types.String{"cpu": s("1000"), "memory": s("64Gi")},
		Weight: types.Int64Value(7),
	}
	minimal := nodePoolModel{
		ID: s("m"), Name: s("m"),
		Template: &nodePoolTemplateModel{ExpireAfter: s("720h"), TerminationGracePeriod: types.StringNull(), NodeClass: s("c")},
		Disruption: &disruptionModel{ConsolidationPolicy: s("WhenEmptyOrUnderutilized"), ConsolidateAfter: s("0s"),
			Budgets: []budgetModel{{Nodes: s("10%"), Schedule: types.StringNull(), Duration: types.StringNull()}}},
		Weight: types.Int64Null(),
	}
	t.Run("every field", func(t *testing.T) { checkRoundTrip(t, nodePoolKind, full) })
	t.Run("defaults only", func(t *testing.T) { checkRoundTrip(t, nodePoolKind, minimal) })
}
