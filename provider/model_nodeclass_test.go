package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestNodeClassRoundTrip: model -> API -> model is the identity for every field, with the
// defaults the CRD applies already in the model (as a plan has them).
func TestNodeClassRoundTrip(t *testing.T) {
	s := types.StringValue
	i := types.Int64Value
	b := types.BoolValue
	full := nodeClassModel{
		ID: s("c"), Name: s("c"), KWOK: types.ObjectNull(kwokType.AttrTypes),
		AWS: &awsModel{
			AMIFamily:                  s("Custom"),
			AMISelectorTerms:           []amiTermModel{{Tags: map[string]types.String{"team": s("a")}, ID: types.StringNull(), Name: s("eks-*"), Owner: s("amazon"), SSMParameter: types.StringNull()}},
			SubnetSelectorTerms:        []subnetTermModel{{Tags: nil, ID: s("subnet-0123456789abcdef0")}},
			SecurityGroupSelectorTerms: []securityGroupTermModel{{Tags: map[string]types.String{"k": s("*")}, ID: types.StringNull(), Name: types.StringNull()}},
			CapacityReservationSelectorTerms: []reservationTermModel{
				{ID: s("cr-0123456789abcdef0"), Tags: nil, OwnerID: types.StringNull(), InstanceMatchCriteria: types.StringNull()},
				{ID: types.StringNull(), Tags: map[string]types.String{"team": s("ml")}, OwnerID: s("123456789012"), InstanceMatchCriteria: s("targeted")},
			},
			Role:            types.StringNull(),
			InstanceProfile: s("profile"),
			Tags:            map[string]types.String{"cost-center": s("42")},
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
	kwok := nodeClassModel{ID: s("k"), Name: s("k"), KWOK: types.ObjectValueMust(kwokType.AttrTypes, map[string]attr.Value{})}
	t.Run("aws, every field", func(t *testing.T) { checkRoundTrip(t, nodeClassKind, full) })
	t.Run("kwok", func(t *testing.T) { checkRoundTrip(t, nodeClassKind, kwok) })
}
