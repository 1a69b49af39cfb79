package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestProvisionerRoundTrip: model -> API -> model is the identity for every field, with the
// defaults the CRD applies already in the model (as a plan has them).
func TestProvisionerRoundTrip(t *testing.T) {
	s := types.StringValue
	i := types.Int64Value
	inline := provisionerModel{
		ID: s("p"), Name: s("p"),
		Labels:        map[string]types.String{"example.com/team": s("a")},
		Annotations:   map[string]types.String{"example.com/note": s("b")},
		Taints:        []taintModel{{Key: s("example.com/t"), Value: s("v"), Effect: s("NoSchedule")}},
		StartupTaints: []taintModel{{Key: s("example.com/s"), Value: types.StringNull(), Effect: s("NoExecute")}},
		Requirements: []coreRequirementModel{
			{Key: s("tenon.dev/capacity-type"), Operator: s("In"), Values: []types.String{s("spot")}},
			{Key: s("tenon.dev/instance-cpu"), Operator: s("Lt"), Values: []types.String{s("65")}},
		},
		Limits:                 map[string]types.String{"cpu": s("1000")},
		TTLSecondsAfterEmpty:   types.Int64Null(),
		TTLSecondsUntilExpired: i(2592000),
		Consolidation: &consolidationModel{Enabled: types.BoolValue(true), MinSavingsPerHour: s("1.5"), MinSavingsPercent: i(100),
			MinSavingsPerPod: types.StringNull()},
		Weight:               i(50),
		ProviderRef:          types.StringNull(),
		KubeletConfiguration: &kubeletModel{MaxPods: i(58), PodsPerCore: types.Int64Null(), EvictionMaxPodGracePeriod: types.Int64Null(), ImageGCHighThresholdPercent: types.Int64Null(), ImageGCLowThresholdPercent: types.Int64Null(), CPUCFSQuota: types.BoolNull()},
		AWS: &inlineProviderModel{
			AMIFamily: s("Bottlerocket"), InstanceProfile: s("KarpenterNodeInstanceProfile"),
			SubnetSelector: map[string]types.String{"karpenter.sh/discovery": s("prod")}, SecurityGroupSelector: map[string]types.String{"k": s("*")},
			Tags: map[string]types.String{"team": s("a")},
		},
	}
	ref := provisionerModel{
		ID: s("r"), Name: s("r"), TTLSecondsAfterEmpty: i(30), TTLSecondsUntilExpired: types.Int64Null(), Weight: types.Int64Null(),
		ProviderRef: s("default"),
	}
	t.Run("inline provider, every field", func(t *testing.T) { checkRoundTrip(t, provisionerKind, inline) })
	t.Run("provider_ref", func(t *testing.T) { checkRoundTrip(t, provisionerKind, ref) })
}
