package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// NewNodeClassResource returns tenon_node_class: a tenon.dev/v1 NodeClass.
func NewNodeClassResource() resource.Resource {
	return newObjectResource("_node_class", nodeClassKind, nodeClassDescription, nodeClassAttributes)
}

// nodeClassAttributes are the resource's own attributes (the id and name every object has
// are added by objectResource.schema).
func nodeClassAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"kwok": kwokAttribute(),
		"aws": schema.SingleNestedAttribute{
			Optional:            true,
			PlanModifiers:       []planmodifier.Object{replaceOnCloudSwitch()},
			MarkdownDescription: "Launch EC2 instances. Exclusive with `kwok`; switching replaces the NodeClass.",
			Attributes:          awsAttributes(),
		},
		"status": schema.SingleNestedAttribute{
			Computed: true, MarkdownDescription: "What the agent resolved from the spec.",
			Attributes: nodeClassStatusAttributes(),
		},
	}
}

// replaceOnCloudSwitch replaces the object when the cloud block switches between aws and kwok,
// which the API forbids in place.
func replaceOnCloudSwitch() planmodifier.Object {
	return objectplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = !req.State.Raw.IsNull() && req.StateValue.IsNull() != req.PlanValue.IsNull()
	}, "Switching between aws and kwok replaces the NodeClass.", "Switching between `aws` and `kwok` replaces the NodeClass.")
}

func kwokAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{},
		PlanModifiers:       []planmodifier.Object{replaceOnCloudSwitch()},
		MarkdownDescription: "Launch simulated nodes (Node objects KWOK keeps Ready). It has no settings: write `kwok = {}`. Exclusive with `aws`; switching replaces the NodeClass."}
}

// awsAttributes are the aws block: which AMIs, subnets and security groups, the nodes' IAM
// identity, disks, metadata service, user data and kubelet.
func awsAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"ami_family": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(v1.AMIFamilyAL2023),
			MarkdownDescription: "Operating system family: " + codeList(v1.AMIFamilies(), map[string]string{
				v1.AMIFamilyAL2023: "the default", v1.AMIFamilyCustom: "requires `ami_selector_terms`"}) + ". It decides the bootstrap user data."},
		"ami_selector_terms":                  amiSelectorTermsAttribute(),
		"subnet_selector_terms":               subnetSelectorTermsAttribute(),
		"security_group_selector_terms":       securityGroupSelectorTermsAttribute(),
		"capacity_reservation_selector_terms": reservationSelectorTermsAttribute(),
		"role":                                optString("IAM role of the nodes; the agent manages an instance profile for it. Exclusive with `instance_profile`."),
		"instance_profile":                    optString("Existing IAM instance profile of the nodes. Exclusive with `role`."),
		"tags": optStringMap("Tags put on instances, volumes and launch templates. `tenon.dev/cluster`, `tenon.dev/nodepool`, " +
			"`tenon.dev/nodeclaim` and `kubernetes.io/cluster/*` are set by the agent and cannot be set here."),
		"block_device_mappings": blockDeviceMappingsAttribute(),
		"metadata_options": schema.SingleNestedAttribute{Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultMetadataOptions()),
			MarkdownDescription: "The instance metadata service (IMDS). The default requires IMDSv2 tokens with a hop limit of 1, so pods cannot reach the node's credentials.",
			Attributes:          metadataOptionsAttributes()},
		"user_data": optString("User data merged with the family's bootstrap user data (nodeadm YAML or MIME for AL2023, TOML for Bottlerocket); used as is with `Custom`."),
		"kubelet":   kubeletAttribute("Kubelet settings of the nodes."),
	}
}

func selectorTagsAttribute() schema.MapAttribute {
	return optStringMap("Select the resources carrying all these tags; a value of `*` matches any value.")
}

func amiSelectorTermsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
		MarkdownDescription: "Select the AMIs instead of the family's default. Terms are ORed; a term's fields are ANDed.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"tags":          selectorTagsAttribute(),
			"id":            optString("AMI ID such as `ami-0123456789abcdef0`."),
			"name":          optString("AMI name, with `*` as a wildcard."),
			"owner":         optString("AMI owner: an account ID, `self`, `amazon` or `aws-marketplace`. Absent means self and amazon."),
			"ssm_parameter": optString("Name or ARN of an SSM parameter holding an AMI ID."),
		}}}
}

func subnetSelectorTermsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
		MarkdownDescription: "Select the subnets nodes are launched in; terms are ORed. Absent means the subnets tagged `kubernetes.io/cluster/<cluster-name>`.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"tags": selectorTagsAttribute(),
			"id":   optString("Subnet ID such as `subnet-0123456789abcdef0`."),
		}}}
}

func securityGroupSelectorTermsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
		MarkdownDescription: "Select the security groups of the nodes; terms are ORed. Absent means the groups tagged `kubernetes.io/cluster/<cluster-name>`.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"tags": selectorTagsAttribute(),
			"id":   optString("Security group ID such as `sg-0123456789abcdef0`."),
			"name": optString("Security group name (not its Name tag)."),
		}}}
}

func reservationSelectorTermsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
		MarkdownDescription: "Select the EC2 On-Demand Capacity Reservations and capacity blocks nodes may launch into; terms are ORed, the fields of a term ANDed. " +
			"A node pool whose requirements allow the capacity type `reserved` fills them first, at near-zero marginal cost, until their available count is used up, then falls back to on-demand (or spot). " +
			"See the reserved-capacity guide.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"id":                      optString("Capacity reservation ID such as `cr-0123456789abcdef0`; selects that reservation on its own."),
			"tags":                    selectorTagsAttribute(),
			"owner_id":                optString("12-digit account that owns the reservations (shared through AWS RAM). Absent means any owner."),
			"instance_match_criteria": optString(codeList(v1.InstanceMatchCriteria(), nil) + ": reservations that take any matching instance, or only instances launched into them by ID. Absent means both."),
		}}}
}

func blockDeviceMappingsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Optional: true, Validators: nonEmptyList(),
		MarkdownDescription: "Disks of the nodes. Absent means the family's default root volume.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"device_name": schema.StringAttribute{Required: true, MarkdownDescription: "Device name, such as `/dev/xvda`."},
			"root_volume": schema.BoolAttribute{Optional: true, MarkdownDescription: "The kubelet's root directory lives on this device. At most one device may set it."},
			"ebs": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "The EBS volume of the device.",
				Attributes: map[string]schema.Attribute{
					"delete_on_termination": schema.BoolAttribute{Optional: true, MarkdownDescription: "Delete the volume with the instance. Absent means true."},
					"encrypted":             schema.BoolAttribute{Optional: true, MarkdownDescription: "Encrypt the volume."},
					"iops":                  schema.Int64Attribute{Optional: true, MarkdownDescription: "Provisioned IOPS of io1, io2 and gp3 volumes."},
					"kms_key_id":            optString("KMS key (ID, alias or ARN) encrypting the volume."),
					"snapshot_id":           optString("EBS snapshot the volume is created from."),
					"throughput":            schema.Int64Attribute{Optional: true, MarkdownDescription: "Provisioned throughput of gp3 volumes, in MiB/s."},
					"volume_size":           optString("Size of the volume, such as `100Gi`."),
					"volume_type":           optString(codeList(v1.VolumeTypes(), nil) + "."),
				}},
		}}}
}

// metadataOptionsAttributes are the metadata service settings; each defaults as the CRD does.
func metadataOptionsAttributes() map[string]schema.Attribute {
	def := defaultMetadataOptionsAPI()
	return map[string]schema.Attribute{
		"http_endpoint": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(*def.HTTPEndpoint),
			MarkdownDescription: codeList(v1.MetadataEndpointStates(), map[string]string{*def.HTTPEndpoint: "the default"}) + "."},
		"http_protocol_ipv6": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(*def.HTTPProtocolIPv6),
			MarkdownDescription: "The IPv6 endpoint: " + codeList(v1.MetadataEndpointStates(), map[string]string{*def.HTTPProtocolIPv6: "the default"}) + "."},
		"http_put_response_hop_limit": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(*def.HTTPPutResponseHopLimit),
			MarkdownDescription: "Network hops a metadata response may travel, 1 (the default) to 64."},
		"http_tokens": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(*def.HTTPTokens),
			MarkdownDescription: codeList(v1.MetadataHTTPTokens(), map[string]string{*def.HTTPTokens: "the default: IMDSv2 only"}) + "."},
	}
}

// nodeClassStatusAttributes are what the agent resolved: subnets, security groups, AMIs, the
// instance profile and the conditions.
func nodeClassStatusAttributes() map[string]schema.Attribute {
	computed := func(d string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d}
	}
	computedList := func(d string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
		return schema.ListNestedAttribute{Computed: true, MarkdownDescription: d, NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
	}
	return map[string]schema.Attribute{
		"ready": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the `Ready` condition is true: nodes can be launched with this class."},
		"subnets": computedList("Subnets the selector resolved to.", map[string]schema.Attribute{
			"id": computed("Subnet ID."), "zone": computed("Availability zone name."), "zone_id": computed("Availability zone ID."),
		}),
		"security_groups": computedList("Security groups the selector resolved to.", map[string]schema.Attribute{
			"id": computed("Security group ID."), "name": computed("Security group name."),
		}),
		"amis": computedList("AMIs the family or selector resolved to.", map[string]schema.Attribute{
			"id": computed("AMI ID."), "name": computed("AMI name."),
			"requirements": computedList("Node labels the AMI can serve.", map[string]schema.Attribute{
				"key": computed("Label key."), "operator": computed("Operator."),
				"values": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Values."},
			}),
		}),
		"instance_profile": computed("Instance profile nodes are launched with."),
		"conditions": conditionsAttribute(v1.ConditionReady, v1.ConditionSubnetsReady, v1.ConditionSecurityGroupsReady,
			v1.ConditionAMIsReady, v1.ConditionInstanceProfileReady),
	}
}

// The object types of the attributes whose values the provider builds (kwok, defaults,
// status), derived from their schemas.
var (
	kwokType            = kwokAttribute().GetType().(types.ObjectType)
	metadataOptionsType = attributesType(metadataOptionsAttributes())
	nodeClassStatusType = attributesType(nodeClassStatusAttributes())
	subnetStatusType    = elementType(nodeClassStatusType.AttrTypes["subnets"])
	securityGroupType   = elementType(nodeClassStatusType.AttrTypes["security_groups"])
	amiStatusType       = elementType(nodeClassStatusType.AttrTypes["amis"])
	amiRequirementType  = elementType(amiStatusType.AttrTypes["requirements"])
)

// nodeClassDescription introduces the resource in its documentation.
const nodeClassDescription = "A `tenon.dev/v1` NodeClass: how a cloud launches nodes. Exactly one of `aws` (EC2) or `kwok` " +
	"(simulated nodes for local clusters and tests). Node pools reference it by name. The agent resolves subnets, " +
	"security groups and AMIs into `status`."
