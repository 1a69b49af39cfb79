package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// NewProvisionerResource returns tenon_provisioner: a tenon.dev/v1alpha5 Provisioner, Karpenter's v1alpha5 shape, which the agent runs as a NodePool (and NodeClass).
func NewProvisionerResource() resource.Resource {
	return newObjectResource("_provisioner", provisionerKind, provisionerDescription, provisionerAttributes)
}

// provisionerAttributes are the resource's own attributes (the id and name every object has
// are added by objectResource.schema).
func provisionerAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"labels":         optStringMap("Labels put on every node; pods can select them. Keys in the karpenter.sh and tenon.dev domains are restricted to the well-known labels (kubernetes.io and k8s.io keys are open, as in Karpenter v1); `kubernetes.io/hostname` is set by the kubelet."),
		"annotations":    optStringMap("Annotations put on every node."),
		"taints":         taintsAttribute("Taints put on every node; only pods that tolerate them run there."),
		"startup_taints": taintsAttribute("Taints put on every node at launch and removed by something on the node once it is ready. Pods need not tolerate them."),
		"requirements":   requirementsAttribute(false, operatorsDoc(v1alpha5.RequirementOperators())),
		"limits":         optStringMap("Caps the total resources of the provisioner's nodes, such as `{ cpu = \"1000\" }` (the API's `limits.resources`)."),
		"ttl_seconds_after_empty": schema.Int64Attribute{Optional: true,
			MarkdownDescription: "Seconds a node may stay empty (DaemonSet pods aside) before the agent removes it. Exclusive with `consolidation.enabled`."},
		"ttl_seconds_until_expired": schema.Int64Attribute{Optional: true,
			MarkdownDescription: "Seconds a node may live, from its launch, before the agent replaces it. Absent means nodes do not expire."},
		"consolidation": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "Consolidation removes or replaces nodes whose pods fit elsewhere or on a cheaper node.",
			Attributes:          consolidationAttributes()},
		"weight":                schema.Int64Attribute{Optional: true, MarkdownDescription: "Rank against other pools, 1 to 100: higher weights are tried first."},
		"kubelet_configuration": kubeletAttribute("Kubelet settings of the nodes (a NodeClass's `aws.kubelet`)."),
		"aws":                   inlineProviderAttribute(),
		"provider_ref": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Name of the `tenon_node_class` the nodes are launched with (the API's `providerRef.name`; its apiVersion and kind are always `" +
				v1alpha5.DefaultProviderRefAPIVersion + "` and `" + v1alpha5.DefaultProviderRefKind + "`). Exclusive with `aws`; one of them is required."},
		"status": schema.SingleNestedAttribute{Computed: true, MarkdownDescription: "What the agent observed about the provisioner.",
			Attributes: provisionerStatusAttributes()},
	}
}

// inlineProviderAttribute is the API's spec.provider, which Terraform reserves as a name.
func inlineProviderAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "Inline AWS configuration of the nodes, the API's `provider` (a name Terraform reserves); it becomes a NodeClass named after the " +
			"provisioner. Exclusive with `provider_ref`; one of them is required.",
		Attributes: map[string]schema.Attribute{
			"ami_family": optString(codeList(v1alpha5.AMIFamilies(), map[string]string{
				v1alpha5.AMIFamilyAL2023: "the NodeClass default", v1alpha5.AMIFamilyCustom: "requires `ami_selector`"}) + "."),
			"ami_selector":            optStringMap("Select the AMIs carrying all these tags instead of the family's default; `*` matches any value."),
			"instance_profile":        schema.StringAttribute{Required: true, MarkdownDescription: "IAM instance profile of the nodes."},
			"subnet_selector":         optStringMap("Select the subnets carrying all these tags. Absent means the subnets tagged `kubernetes.io/cluster/<cluster-name>`."),
			"security_group_selector": optStringMap("Select the security groups carrying all these tags. Absent means the groups tagged `kubernetes.io/cluster/<cluster-name>`."),
			"tags":                    optStringMap("Tags put on instances, volumes and launch templates; the agent's own tags cannot be set here."),
		}}
}

func provisionerStatusAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"last_scale_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When the agent last launched or removed one of its nodes (RFC 3339)."},
		"resources":       schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Sum of the capacity of its nodes."},
		"cost_per_hour": schema.StringAttribute{Computed: true, MarkdownDescription: "What its nodes and in-flight claims cost per hour, in USD (a decimal string such as `0.3060`), " +
			"from the cloud provider's prices; empty until the agent reports it."},
		"conditions": conditionsAttribute(v1.ConditionReady, v1.ConditionNodeClassReady, v1.ConditionValidationSucceeded),
	}
}

// provisionerStatusType is the status attribute's object type, derived from its schema.
var provisionerStatusType = attributesType(provisionerStatusAttributes())

// provisionerDescription introduces the resource in its documentation.
const provisionerDescription = "A `tenon.dev/v1alpha5` Provisioner, Karpenter's v1alpha5 capacity policy, for teams moving from it: " +
	"the nodes the agent may launch (`labels`, `taints`, `requirements`, `aws` or `provider_ref`), when it removes them " +
	"(`ttl_seconds_after_empty`, `ttl_seconds_until_expired`, `consolidation`), how much it may launch (`limits`) and how it " +
	"ranks (`weight`). The agent runs it exactly like a `tenon_nodepool`. Every field is checked at plan time."

// consolidationAttributes are tenon_provisioner's consolidation block: the switch and the
// savings thresholds a NodePool has in its disruption block.
func consolidationAttributes() map[string]schema.Attribute {
	attrs := minSavingsAttributes()
	attrs["enabled"] = schema.BoolAttribute{Optional: true, MarkdownDescription: "Turn consolidation on. Exclusive with `ttl_seconds_after_empty`."}
	return attrs
}
