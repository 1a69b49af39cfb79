package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func provisionerHCL(body string) string {
	return "resource \"tenon_provisioner\" \"test\" {\n  name = \"prov\"\n" + body + "\n}\n"
}

func withRef(body string) string {
	return provisionerHCL("  provider_ref = \"default\"\n" + body)
}

func TestProvisionerValidationAtPlan(t *testing.T) {
	cases := []validationCase{
		{"no provider", provisionerHCL(""), ""},
		{"aws and provider_ref", withRef(`  aws = { instance_profile = "p" }`), "provider_ref"},
		{"provider_ref name", provisionerHCL(`  provider_ref = "Bad Name"`), "provider_ref"},
		{"ami family", provisionerHCL(`  aws = { instance_profile = "p", ami_family = "Ubuntu" }`), "aws.ami_family"},
		{"custom without selector", provisionerHCL(`  aws = { instance_profile = "p", ami_family = "Custom" }`), "aws.ami_selector"},
		{"subnet selector by id", provisionerHCL(`  aws = {
    instance_profile = "p"
    subnet_selector  = { "aws-ids" = "subnet-1" }
  }`), `aws.subnet_selector["aws-ids"]`},
		{"restricted tag", provisionerHCL(`  aws = {
    instance_profile = "p"
    tags             = { "tenon.dev/nodepool" = "x" }
  }`), `aws.tags["tenon.dev/nodepool"]`},
		{"restricted label", withRef(`  labels = { "karpenter.sh/capacity-type" = "spot" }`), `labels["karpenter.sh/capacity-type"]`},
		{"Gte is not v1alpha5", withRef(`  requirements = [{ key = "tenon.dev/instance-cpu", operator = "Gte", values = ["4"] }]`), "requirements[0].operator"},
		{"duplicate taint", withRef(`  taints = [
    { key = "example.com/t", effect = "NoSchedule" },
    { key = "example.com/t", value = "x", effect = "NoSchedule" },
  ]`), "taints[1]"},
		{"ttl with consolidation", withRef(`  ttl_seconds_after_empty = 30
  consolidation           = { enabled = true }`), "ttl_seconds_after_empty"},
		{"negative expiry", withRef(`  ttl_seconds_until_expired = -1`), "ttl_seconds_until_expired"},
		{"weight", withRef(`  weight = 101`), "weight"},
		{"limits quantity", withRef(`  limits = { memory = "a lot" }`), `limits["memory"]`},
		{"kubelet pods per core", withRef(`  kubelet_configuration = { pods_per_core = -1 }`), "kubelet_configuration.pods_per_core"},
	}
	runValidationCases(t, "Invalid Provisioner", cases)
}

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
		Consolidation:          &consolidationModel{Enabled: types.BoolValue(true)},
		Weight:                 i(50),
		ProviderRef:            types.StringNull(),
		KubeletConfiguration:   &kubeletModel{MaxPods: i(58), PodsPerCore: types.Int64Null(), EvictionMaxPodGracePeriod: types.Int64Null(), ImageGCHighThresholdPercent: types.Int64Null(), ImageGCLowThresholdPercent: types.Int64Null(), CPUCFSQuota: types.BoolNull()},
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
	for _, tc := range []struct {
		name  string
		model provisionerModel
	}{{"inline provider, every field", inline}, {"provider_ref", ref}} {
		t.Run(tc.name, func(t *testing.T) {
			p, errs := tc.model.toAPI()
			if len(errs) > 0 {
				t.Fatalf("toAPI: %v", errs)
			}
			if verrs := p.Validate(); len(verrs) > 0 {
				t.Fatalf("the model converts to an invalid Provisioner: %v", verrs)
			}
			before := p.DeepCopy()
			p.SetDefaults()
			if diff := cmp.Diff(before, p); diff != "" {
				t.Errorf("the model lacks CRD defaults (-model +defaulted):\n%s", diff)
			}
			got := provisionerFromAPI(p, &tc.model)
			got.Status = tc.model.Status
			if diff := cmp.Diff(tc.model, got); diff != "" {
				t.Errorf("round trip changed the model (-want +got):\n%s", diff)
			}
		})
	}
}
