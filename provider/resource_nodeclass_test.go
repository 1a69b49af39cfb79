package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func nodeClassHCL(body string) string {
	return "resource \"tenon_node_class\" \"test\" {\n  name = \"nc\"\n" + body + "\n}\n"
}

func awsHCL(inner string) string {
	return nodeClassHCL("  aws = {\n    role = \"nodes\"\n" + inner + "\n  }")
}

func TestNodeClassValidationAtPlan(t *testing.T) {
	cases := []validationCase{
		{"no cloud block", nodeClassHCL(""), ""},
		{"two cloud blocks", nodeClassHCL("  kwok = {}\n  aws = { role = \"nodes\" }"), "kwok"},
		{"no identity", nodeClassHCL("  aws = { ami_family = \"AL2023\" }"), "aws"},
		{"role and instance profile", awsHCL(`    instance_profile = "p"`), "aws.instance_profile"},
		{"ami family", awsHCL(`    ami_family = "Windows"`), "aws.ami_family"},
		{"custom without selectors", awsHCL(`    ami_family = "Custom"`), "aws.ami_selector_terms"},
		{"subnet id", awsHCL(`    subnet_selector_terms = [{ id = "vpc-1" }]`), "aws.subnet_selector_terms[0].id"},
		{"restricted tag", awsHCL(`    tags = { "tenon.dev/cluster" = "x" }`), `aws.tags["tenon.dev/cluster"]`},
		{"http tokens", awsHCL(`    metadata_options = { http_tokens = "maybe" }`), "aws.metadata_options.http_tokens"},
		{"hop limit", awsHCL(`    metadata_options = { http_put_response_hop_limit = 100 }`), "aws.metadata_options.http_put_response_hop_limit"},
		{"volume type", awsHCL(`    block_device_mappings = [{ device_name = "/dev/xvda", ebs = { volume_size = "20Gi", volume_type = "ssd" } }]`),
			"aws.block_device_mappings[0].ebs.volume_type"},
		{"volume size", awsHCL(`    block_device_mappings = [{ device_name = "/dev/xvda", ebs = { volume_size = "big" } }]`),
			"aws.block_device_mappings[0].ebs.volume_size"},
		{"two root volumes", awsHCL(`    block_device_mappings = [
      { device_name = "/dev/xvda", root_volume = true },
      { device_name = "/dev/xvdb", root_volume = true },
    ]`), "aws.block_device_mappings[1].root_volume"},
		{"max pods", awsHCL(`    kubelet = { max_pods = 0 }`), "aws.kubelet.max_pods"},
		{"image gc thresholds", awsHCL(`    kubelet = {
      image_gc_high_threshold_percent = 50
      image_gc_low_threshold_percent  = 60
    }`), "aws.kubelet.image_gc_low_threshold_percent"},
		{"ebs without size or snapshot", awsHCL(`    block_device_mappings = [{ device_name = "/dev/xvda", ebs = { encrypted = true } }]`), "aws.block_device_mappings[0].ebs"},
		{"empty security group term", awsHCL(`    security_group_selector_terms = [{}]`), "aws.security_group_selector_terms[0]"},
		{"ami id", awsHCL(`    ami_selector_terms = [{ id = "image-1" }]`), "aws.ami_selector_terms[0].id"},
		{"reserved resource", awsHCL(`    kubelet = { system_reserved = { gpu = "1" } }`), `aws.kubelet.system_reserved["gpu"]`},
		{"soft eviction without grace", awsHCL(`    kubelet = { eviction_soft = { "memory.available" = "10%" } }`), "aws.kubelet.eviction_soft_grace_period"},
	}
	runValidationCases(t, "Invalid NodeClass", cases)
}

func TestNodeClassRoundTrip(t *testing.T) {
	s := types.StringValue
	i := types.Int64Value
	b := types.BoolValue
	full := nodeClassModel{
		ID: s("c"), Name: s("c"), KWOK: types.ObjectNull(kwokAttrTypes),
		AWS: &awsModel{
			AMIFamily:                  s("Custom"),
			AMISelectorTerms:           []amiTermModel{{Tags: map[string]types.String{"team": s("a")}, ID: types.StringNull(), Name: s("eks-*"), Owner: s("amazon"), SSMParameter: types.StringNull()}},
			SubnetSelectorTerms:        []subnetTermModel{{Tags: nil, ID: s("subnet-0123456789abcdef0")}},
			SecurityGroupSelectorTerms: []securityGroupTermModel{{Tags: map[string]types.String{"k": s("*")}, ID: types.StringNull(), Name: types.StringNull()}},
			Role:                       types.StringNull(),
			InstanceProfile:            s("profile"),
			Tags:                       map[string]types.String{"cost-center": s("42")},
			BlockDeviceMappings: []blockDeviceMappingModel{
				{DeviceName: s("/dev/xvda"), RootVolume: b(true), EBS: &ebsModel{DeleteOnTermination: b(false), Encrypted: b(true), IOPS: i(3000),
					KMSKeyID: s("alias/k"), SnapshotID: types.StringNull(), Throughput: i(125), VolumeSize: s("100Gi"), VolumeType: s("gp3")}},
				{DeviceName: s("/dev/xvdb"), RootVolume: b(false), EBS: &ebsModel{DeleteOnTermination: types.BoolNull(), Encrypted: types.BoolNull(),
					IOPS: types.Int64Null(), KMSKeyID: types.StringNull(), SnapshotID: s("snap-1"), Throughput: types.Int64Null(), VolumeSize: types.StringNull(), VolumeType: types.StringNull()}},
			},
			MetadataOptions: &metadataOptionsModel{HTTPEndpoint: s("enabled"), HTTPProtocolIPv6: s("enabled"), HTTPPutResponseHopLimit: i(2), HTTPTokens: s("optional")},
			UserData:        s("#!/bin/sh\necho hi\n"),
			Kubelet: &kubeletModel{
				ClusterDNS: []types.String{s("10.0.0.10")}, MaxPods: i(110), PodsPerCore: i(10),
				SystemReserved: map[string]types.String{"cpu": s("100m")}, KubeReserved: map[string]types.String{"memory": s("1Gi")},
				EvictionHard: map[string]types.String{"memory.available": s("5%")}, EvictionSoft: map[string]types.String{"memory.available": s("10%")},
				EvictionSoftGracePeriod: map[string]types.String{"memory.available": s("1m30s")}, EvictionMaxPodGracePeriod: i(60),
				ImageGCHighThresholdPercent: i(85), ImageGCLowThresholdPercent: i(80), CPUCFSQuota: b(false),
			},
		},
	}
	kwok := nodeClassModel{ID: s("k"), Name: s("k"), KWOK: types.ObjectValueMust(kwokAttrTypes, map[string]attr.Value{})}
	for _, tc := range []struct {
		name  string
		model nodeClassModel
	}{{"aws, every field", full}, {"kwok", kwok}} {
		t.Run(tc.name, func(t *testing.T) {
			nc, errs := tc.model.toAPI()
			if len(errs) > 0 {
				t.Fatalf("toAPI: %v", errs)
			}
			if verrs := nc.Validate(); len(verrs) > 0 {
				t.Fatalf("the model converts to an invalid NodeClass: %v", verrs)
			}
			before := nc.DeepCopy()
			nc.SetDefaults()
			if diff := cmp.Diff(before, nc); diff != "" {
				t.Errorf("the model lacks CRD defaults (-model +defaulted):\n%s", diff)
			}
			got := nodeClassFromAPI(nc, &tc.model)
			got.Status = tc.model.Status
			if diff := cmp.Diff(tc.model, got); diff != "" {
				t.Errorf("round trip changed the model (-want +got):\n%s", diff)
			}
		})
	}
}
