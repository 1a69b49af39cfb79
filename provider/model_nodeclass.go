package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// nodeClassModel is tenon_node_class's schema as Go values.
type nodeClassModel struct {
	ID     types.String `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	AWS    *awsModel    `tfsdk:"aws"`
	KWOK   types.Object `tfsdk:"kwok"`
	Status types.Object `tfsdk:"status"`
}

type awsModel struct {
	AMIFamily                  types.String              `tfsdk:"ami_family"`
	AMISelectorTerms           []amiTermModel            `tfsdk:"ami_selector_terms"`
	SubnetSelectorTerms        []subnetTermModel         `tfsdk:"subnet_selector_terms"`
	SecurityGroupSelectorTerms []securityGroupTermModel  `tfsdk:"security_group_selector_terms"`
	Role                       types.String              `tfsdk:"role"`
	InstanceProfile            types.String              `tfsdk:"instance_profile"`
	Tags                       map[string]types.String   `tfsdk:"tags"`
	BlockDeviceMappings        []blockDeviceMappingModel `tfsdk:"block_device_mappings"`
	MetadataOptions            *metadataOptionsModel     `tfsdk:"metadata_options"`
	UserData                   types.String              `tfsdk:"user_data"`
	Kubelet                    *kubeletModel             `tfsdk:"kubelet"`
	// CapacityReservationSelectorTerms select EC2 capacity reservations.
	CapacityReservationSelectorTerms []reservationTermModel `tfsdk:"capacity_reservation_selector_terms"`
}

type reservationTermModel struct {
	ID                    types.String            `tfsdk:"id"`
	Tags                  map[string]types.String `tfsdk:"tags"`
	OwnerID               types.String            `tfsdk:"owner_id"`
	InstanceMatchCriteria types.String            `tfsdk:"instance_match_criteria"`
}

func reservationTermsToAPI(terms []reservationTermModel) []v1.CapacityReservationSelectorTerm {
	var out []v1.CapacityReservationSelectorTerm
	for _, t := range terms {
		out = append(out, v1.CapacityReservationSelectorTerm{ID: str(t.ID), Tags: strMap[string](t.Tags), OwnerID: str(t.OwnerID), InstanceMatchCriteria: str(t.InstanceMatchCriteria)})
	}
	return out
}

func reservationTermsFromAPI(terms []v1.CapacityReservationSelectorTerm) []reservationTermModel {
	var out []reservationTermModel
	for _, t := range terms {
		out = append(out, reservationTermModel{ID: tfStr(t.ID), Tags: tfStrMap(t.Tags), OwnerID: tfStr(t.OwnerID), InstanceMatchCriteria: tfStr(t.InstanceMatchCriteria)})
	}
	return out
}

type amiTermModel struct {
	Tags         map[string]types.String `tfsdk:"tags"`
	ID           types.String            `tfsdk:"id"`
	Name         types.String            `tfsdk:"name"`
	Owner        types.String            `tfsdk:"owner"`
	SSMParameter types.String            `tfsdk:"ssm_parameter"`
}

type subnetTermModel struct {
	Tags map[string]types.String `tfsdk:"tags"`
	ID   types.String            `tfsdk:"id"`
}

type securityGroupTermModel struct {
	Tags map[string]types.String `tfsdk:"tags"`
	ID   types.String            `tfsdk:"id"`
	Name types.String            `tfsdk:"name"`
}

type blockDeviceMappingModel struct {
	DeviceName types.String `tfsdk:"device_name"`
	EBS        *ebsModel    `tfsdk:"ebs"`
	RootVolume types.Bool   `tfsdk:"root_volume"`
}

type ebsModel struct {
	DeleteOnTermination types.Bool   `tfsdk:"delete_on_termination"`
	Encrypted           types.Bool   `tfsdk:"encrypted"`
	IOPS                types.Int64  `tfsdk:"iops"`
	KMSKeyID            types.String `tfsdk:"kms_key_id"`
	SnapshotID          types.String `tfsdk:"snapshot_id"`
	Throughput          types.Int64  `tfsdk:"throughput"`
	VolumeSize          types.String `tfsdk:"volume_size"`
	VolumeType          types.String `tfsdk:"volume_type"`
}

type metadataOptionsModel struct {
	HTTPEndpoint            types.String `tfsdk:"http_endpoint"`
	HTTPProtocolIPv6        types.String `tfsdk:"http_protocol_ipv6"`
	HTTPPutResponseHopLimit types.Int64  `tfsdk:"http_put_response_hop_limit"`
	HTTPTokens              types.String `tfsdk:"http_tokens"`
}

// nodeClassKind is how tenon_node_class stores its model: as a NodeClass. Whether kwok is set
// decides which cloud the class is for, so a kwok block unknown at plan time waits for apply.
var nodeClassKind = apiKind[nodeClassModel, *v1.NodeClass]{
	name: v1.NodeClassKind, ref: nodeClassRef, toAPI: (*nodeClassModel).toAPI, fromAPI: nodeClassFromAPI,
	checkAtApply: func(m *nodeClassModel) bool { return m.KWOK.IsUnknown() },
	paths: newPathMapper([]pathRule{
		{api: "metadata.name", tf: path.Root("name")},
		{api: "spec", tf: path.Empty()},
	}, append([]string{"tags"}, kubeletMaps...)...),
}

// defaultMetadataOptionsAPI is metadataOptions as the CRD defaults it.
func defaultMetadataOptionsAPI() *v1.MetadataOptions {
	nc := &v1.NodeClass{Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{}}}
	nc.SetDefaults()
	return nc.Spec.AWS.MetadataOptions
}

// defaultMetadataOptions is the metadata_options of an aws block without one.
func defaultMetadataOptions() types.Object {
	def := defaultMetadataOptionsAPI()
	return types.ObjectValueMust(metadataOptionsType.AttrTypes, map[string]attr.Value{
		"http_endpoint":               tfStrPtr(def.HTTPEndpoint),
		"http_protocol_ipv6":          tfStrPtr(def.HTTPProtocolIPv6),
		"http_put_response_hop_limit": tfInt64Ptr(def.HTTPPutResponseHopLimit),
		"http_tokens":                 tfStrPtr(def.HTTPTokens),
	})
}

// nodeClassRef is the NodeClass named name, for Get and Delete.
func nodeClassRef(name string) *v1.NodeClass {
	nc := &v1.NodeClass{}
	nc.APIVersion, nc.Kind, nc.Name = v1.SchemeGroupVersion.String(), v1.NodeClassKind, name
	return nc
}

// toAPI builds the NodeClass the model describes, and reports values that have no API form.
func (m *nodeClassModel) toAPI() (*v1.NodeClass, field.ErrorList) {
	nc := &v1.NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeClassKind},
		ObjectMeta: metav1.ObjectMeta{Name: str(m.Name)},
	}
	if !m.KWOK.IsNull() && !m.KWOK.IsUnknown() {
		nc.Spec.KWOK = &v1.KWOKNodeClassSpec{}
	}
	a := m.AWS
	if a == nil {
		return nc, nil
	}
	var errs field.ErrorList
	spec := &v1.AWSNodeClassSpec{
		AMIFamily:       str(a.AMIFamily),
		Role:            str(a.Role),
		InstanceProfile: str(a.InstanceProfile),
		Tags:            strMap[string](a.Tags),
		UserData:        strPtr(a.UserData),
		Kubelet:         a.Kubelet.toAPI(),

		CapacityReservationSelectorTerms: reservationTermsToAPI(a.CapacityReservationSelectorTerms),
	}
	for _, t := range a.AMISelectorTerms {
		spec.AMISelectorTerms = append(spec.AMISelectorTerms, v1.AMISelectorTerm{
			Tags: strMap[string](t.Tags), ID: str(t.ID), Name: str(t.Name), Owner: str(t.Owner), SSMParameter: str(t.SSMParameter)})
	}
	for _, t := range a.SubnetSelectorTerms {
		spec.SubnetSelectorTerms = append(spec.SubnetSelectorTerms, v1.SubnetSelectorTerm{Tags: strMap[string](t.Tags), ID: str(t.ID)})
	}
	for _, t := range a.SecurityGroupSelectorTerms {
		spec.SecurityGroupSelectorTerms = append(spec.SecurityGroupSelectorTerms, v1.SecurityGroupSelectorTerm{
			Tags: strMap[string](t.Tags), ID: str(t.ID), Name: str(t.Name)})
	}
	for i, b := range a.BlockDeviceMappings {
		bdm := v1.BlockDeviceMapping{DeviceName: str(b.DeviceName), RootVolume: b.RootVolume.ValueBool()}
		if e := b.EBS; e != nil {
			bdm.EBS = &v1.BlockDevice{
				DeleteOnTermination: boolPtr(e.DeleteOnTermination), Encrypted: boolPtr(e.Encrypted),
				IOPS: int64Ptr(e.IOPS), KMSKeyID: strPtr(e.KMSKeyID), SnapshotID: strPtr(e.SnapshotID),
				Throughput: int64Ptr(e.Throughput), VolumeType: strPtr(e.VolumeType),
			}
			if s := strPtr(e.VolumeSize); s != nil {
				q, err := scheduling.ParseQuantity(*s)
				if err != nil {
					errs = append(errs, field.Invalid(field.NewPath("spec", "aws", "blockDeviceMappings").Index(i).Child("ebs", "volumeSize"),
						*s, "must be a size such as 100Gi"))
				} else {
					bdm.EBS.VolumeSize = &q
				}
			}
		}
		spec.BlockDeviceMappings = append(spec.BlockDeviceMappings, bdm)
	}
	if mo := a.MetadataOptions; mo != nil {
		spec.MetadataOptions = &v1.MetadataOptions{
			HTTPEndpoint: strPtr(mo.HTTPEndpoint), HTTPProtocolIPv6: strPtr(mo.HTTPProtocolIPv6),
			HTTPPutResponseHopLimit: int64Ptr(mo.HTTPPutResponseHopLimit), HTTPTokens: strPtr(mo.HTTPTokens),
		}
	}
	nc.Spec.AWS = spec
	return nc, errs
}

// nodeClassFromAPI is the model of a stored NodeClass; prior (may be nil) keeps the user's
// spelling of unchanged volume sizes and of root_volume = false.
func nodeClassFromAPI(nc *v1.NodeClass, prior *nodeClassModel) nodeClassModel {
	m := nodeClassModel{ID: types.StringValue(nc.Name), Name: types.StringValue(nc.Name), KWOK: types.ObjectNull(kwokType.AttrTypes)}
	if nc.Spec.KWOK != nil {
		m.KWOK = types.ObjectValueMust(kwokType.AttrTypes, map[string]attr.Value{})
	}
	if a := nc.Spec.AWS; a != nil {
		var priorAWS *awsModel
		if prior != nil {
			priorAWS = prior.AWS
		}
		m.AWS = awsFromAPI(a, priorAWS)
	}
	m.Status = nodeClassStatus(nc.Status)
	return m
}

func awsFromAPI(a *v1.AWSNodeClassSpec, prior *awsModel) *awsModel {
	out := &awsModel{
		AMIFamily:       tfStr(a.AMIFamily),
		Role:            tfStr(a.Role),
		InstanceProfile: tfStr(a.InstanceProfile),
		Tags:            tfStrMap(a.Tags),
		UserData:        tfStrPtr(a.UserData),
		Kubelet:         kubeletFromAPI(a.Kubelet),

		CapacityReservationSelectorTerms: reservationTermsFromAPI(a.CapacityReservationSelectorTerms),
	}
	for _, t := range a.AMISelectorTerms {
		out.AMISelectorTerms = append(out.AMISelectorTerms, amiTermModel{Tags: tfStrMap(t.Tags), ID: tfStr(t.ID), Name: tfStr(t.Name),
			Owner: tfStr(t.Owner), SSMParameter: tfStr(t.SSMParameter)})
	}
	for _, t := range a.SubnetSelectorTerms {
		out.SubnetSelectorTerms = append(out.SubnetSelectorTerms, subnetTermModel{Tags: tfStrMap(t.Tags), ID: tfStr(t.ID)})
	}
	for _, t := range a.SecurityGroupSelectorTerms {
		out.SecurityGroupSelectorTerms = append(out.SecurityGroupSelectorTerms, securityGroupTermModel{Tags: tfStrMap(t.Tags), ID: tfStr(t.ID), Name: tfStr(t.Name)})
	}
	for i, b := range a.BlockDeviceMappings {
		var pb *blockDeviceMappingModel
		if prior != nil && i < len(prior.BlockDeviceMappings) {
			pb = &prior.BlockDeviceMappings[i]
		}
		bm := blockDeviceMappingModel{DeviceName: types.StringValue(b.DeviceName), RootVolume: types.BoolNull()}
		switch {
		case b.RootVolume:
			bm.RootVolume = types.BoolValue(true)
		case pb != nil && !pb.RootVolume.IsNull():
			bm.RootVolume = types.BoolValue(false) // written as false, dropped by the API
		}
		if e := b.EBS; e != nil {
			em := &ebsModel{
				DeleteOnTermination: tfBoolPtr(e.DeleteOnTermination), Encrypted: tfBoolPtr(e.Encrypted),
				IOPS: tfInt64Ptr(e.IOPS), KMSKeyID: tfStrPtr(e.KMSKeyID), SnapshotID: tfStrPtr(e.SnapshotID),
				Throughput: tfInt64Ptr(e.Throughput), VolumeSize: types.StringNull(), VolumeType: tfStrPtr(e.VolumeType),
			}
			if e.VolumeSize != nil {
				priorSize := types.StringNull()
				if pb != nil && pb.EBS != nil {
					priorSize = pb.EBS.VolumeSize
				}
				em.VolumeSize = types.StringValue(keepQuantity(*e.VolumeSize, priorSize))
			}
			bm.EBS = em
		}
		out.BlockDeviceMappings = append(out.BlockDeviceMappings, bm)
	}
	if mo := a.MetadataOptions; mo != nil {
		out.MetadataOptions = &metadataOptionsModel{
			HTTPEndpoint: tfStrPtr(mo.HTTPEndpoint), HTTPProtocolIPv6: tfStrPtr(mo.HTTPProtocolIPv6),
			HTTPPutResponseHopLimit: tfInt64Ptr(mo.HTTPPutResponseHopLimit), HTTPTokens: tfStrPtr(mo.HTTPTokens),
		}
	}
	return out
}

func nodeClassStatus(s v1.NodeClassStatus) types.Object {
	var subnets, sgs, amis []attr.Value
	for _, sn := range s.Subnets {
		subnets = append(subnets, types.ObjectValueMust(subnetStatusType.AttrTypes, map[string]attr.Value{
			"id": types.StringValue(sn.ID), "zone": types.StringValue(sn.Zone), "zone_id": types.StringValue(sn.ZoneID)}))
	}
	for _, sg := range s.SecurityGroups {
		sgs = append(sgs, types.ObjectValueMust(securityGroupType.AttrTypes, map[string]attr.Value{
			"id": types.StringValue(sg.ID), "name": types.StringValue(sg.Name)}))
	}
	for _, ami := range s.AMIs {
		amis = append(amis, types.ObjectValueMust(amiStatusType.AttrTypes, map[string]attr.Value{
			"id": types.StringValue(ami.ID), "name": types.StringValue(ami.Name), "requirements": tfCoreRequirements(ami.Requirements)}))
	}
	ready := false
	for _, c := range s.Conditions {
		if c.Type == v1.ConditionReady && c.Status == metav1.ConditionTrue {
			ready = true
		}
	}
	return types.ObjectValueMust(nodeClassStatusType.AttrTypes, map[string]attr.Value{
		"ready":            types.BoolValue(ready),
		"subnets":          types.ListValueMust(subnetStatusType, orEmpty(subnets)),
		"security_groups":  types.ListValueMust(securityGroupType, orEmpty(sgs)),
		"amis":             types.ListValueMust(amiStatusType, orEmpty(amis)),
		"instance_profile": types.StringValue(s.InstanceProfile),
		"conditions":       tfConditions(s.Conditions),
	})
}

func orEmpty(vs []attr.Value) []attr.Value {
	if vs == nil {
		return []attr.Value{}
	}
	return vs
}

func tfCoreRequirements(reqs []corev1.NodeSelectorRequirement) types.List {
	elems := []attr.Value{}
	for _, r := range reqs {
		vals := []attr.Value{}
		for _, v := range r.Values {
			vals = append(vals, types.StringValue(v))
		}
		elems = append(elems, types.ObjectValueMust(amiRequirementType.AttrTypes, map[string]attr.Value{
			"key": types.StringValue(r.Key), "operator": types.StringValue(string(r.Operator)),
			"values": types.ListValueMust(types.StringType, vals)}))
	}
	return types.ListValueMust(amiRequirementType, elems)
}
