package provider

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// NewNodePoolResource returns tenon_nodepool: a tenon.dev/v1 NodePool.
func NewNodePoolResource() resource.Resource {
	return newObjectResource("_nodepool", nodePoolKind, nodePoolDescription, nodePoolAttributes)
}

// nodePoolAttributes are the resource's own attributes (the id and name every object has
// are added by objectResource.schema).
func nodePoolAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"template": schema.SingleNestedAttribute{
			Required:            true,
			MarkdownDescription: "The nodes this pool may launch. Each node is further constrained by the pods it is launched for.",
			Attributes:          nodePoolTemplateAttributes(),
		},
		"disruption": schema.SingleNestedAttribute{
			Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultDisruption()),
			MarkdownDescription: "When the agent may remove or replace the pool's nodes. Absent means consolidate empty or " +
				"underutilized nodes at once (`0s`), at most 10% of the nodes at a time.",
			Attributes: disruptionAttributes(),
		},
		"limits": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
			MarkdownDescription: "Caps the total resources of the pool's nodes, such as `{ cpu = \"1000\", memory = \"1000Gi\" }`; the agent launches nothing that would exceed them."},
		"weight": schema.Int64Attribute{Optional: true,
			MarkdownDescription: "Rank against other pools, 1 to 100: the agent tries higher weights first. Pools without a weight come last."},
		"replicas": replicasAttribute(),
		"buffer":   bufferAttribute(),
		"status": schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "What the agent observed about the pool.",
			Attributes:          nodePoolStatusAttributes(),
		},
	}
}

func nodePoolTemplateAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"metadata": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "Labels and annotations every node of the pool gets.",
			Attributes: map[string]schema.Attribute{
				"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
					MarkdownDescription: "Labels put on every node; pods can select them. Keys in the karpenter.sh and " +
						"tenon.dev domains are restricted to the well-known labels (kubernetes.io and k8s.io keys are open, as in Karpenter v1; " +
						"the agent puts them on the node when it registers); `kubernetes.io/hostname` is set by the kubelet and `tenon.dev/nodepool` by the agent."},
				"annotations": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyMap(),
					MarkdownDescription: "Annotations put on every node."},
			},
		},
		"requirements":   requirementsAttribute(true, operatorsDoc(v1.RequirementOperators())),
		"taints":         taintsAttribute("Taints put on every node of the pool; only pods that tolerate them run there."),
		"startup_taints": taintsAttribute("Taints put on every node at launch and removed by something on the node once it is ready. Pods need not tolerate them."),
		"expire_after": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(string(v1.DefaultExpireAfter)),
			MarkdownDescription: "How long a node may live before the agent replaces it, such as `720h` (the default) or `1h30m`; `Never` keeps nodes."},
		"termination_grace_period": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Longest the agent waits for a node to drain, such as `30m`; after that it deletes the remaining pods. Absent means wait as long as it takes."},
		"node_class": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the `tenon_node_class` the nodes are launched with."},
	}
}

func disruptionAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"consolidation_policy": schema.StringAttribute{Optional: true, Computed: true,
			Default: stringdefault.StaticString(string(v1.ConsolidationPolicyWhenEmptyOrUnderutilized)),
			MarkdownDescription: "Which nodes consolidation may remove or replace: " + codeList(v1.ConsolidationPolicies(),
				map[v1.ConsolidationPolicy]string{v1.ConsolidationPolicyWhenEmptyOrUnderutilized: "the default",
					v1.ConsolidationPolicyBalanced: "as `WhenEmptyOrUnderutilized`, but a move must also save a share of the pool's cost at least half the share of the pool's disruption it causes, as Karpenter's Balanced"}) + "."},
		"consolidate_after": schema.StringAttribute{Required: true,
			MarkdownDescription: "How long a node must have had no pod scheduled or removed before consolidation considers it, such as `30s`; `0s` considers nodes at once and `Never` turns consolidation off."},
		"budgets": schema.ListNestedAttribute{Optional: true, Computed: true, Default: listdefault.StaticValue(defaultBudgets()),
			Validators:          nonEmptyList(),
			MarkdownDescription: "Caps on how many nodes may be disrupted at once; the most restrictive active one wins. Absent means one budget of `10%`.",
			NestedObject:        schema.NestedAttributeObject{Attributes: budgetAttributes()},
		},
	}
	maps.Copy(attrs, minSavingsAttributes())
	attrs["karpenter_annotations"] = schema.StringAttribute{Optional: true,
		MarkdownDescription: "Whether Karpenter's disruption annotations protect the pool's nodes as `tenon.dev/do-not-disrupt` does, so workloads written for Karpenter keep their protection: " +
			codeList(v1.KarpenterAnnotationsValues(), map[v1.KarpenterAnnotations]string{
				v1.KarpenterAnnotationsHonor:  "the default when absent: `karpenter.sh/do-not-disrupt` on pods and nodes and `karpenter.sh/do-not-evict` on pods count as Tenon's annotation, `karpenter.sh/do-not-consolidate` on nodes keeps them from consolidation (not from drift or expiry)",
				v1.KarpenterAnnotationsIgnore: "only `tenon.dev/do-not-disrupt` counts",
			}) + "."}
	attrs["repair"] = schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "Node repair: replace the pool's nodes that stay unhealthy (`Ready` `False` or `Unknown`, or a condition the cloud lists, " +
			"on AWS the EKS node monitoring agent's `AcceleratedHardwareReady`, `StorageReady`, `NetworkingReady`, `KernelReady` and `ContainerRuntimeReady` `False`) " +
			"past a toleration: the replacement is launched first, then the node is drained (honouring PodDisruptionBudgets) and deleted, " +
			"within the budgets for the reason `Unhealthy`. `" + v1.AnnotationDoNotRepair + "` or `" + v1.AnnotationDoNotDisrupt + "` on a node keeps it. Absent means off.",
		Attributes: repairAttributes()}
	return attrs
}

func repairAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"enabled": schema.BoolAttribute{Required: true, MarkdownDescription: "Turn node repair on for the pool."},
		"toleration": schema.StringAttribute{Optional: true,
			MarkdownDescription: "How long a node must have been unhealthy before it is repaired, for every condition, such as `10m`. " +
				"Absent means the cloud's toleration for each condition: `30m`, and `10m` for `AcceleratedHardwareReady`."},
		"max_unhealthy": schema.StringAttribute{Optional: true,
			MarkdownDescription: "How many of the pool's nodes may be unhealthy before repair stops for the pool (a failure that many nodes share is not fixed by replacing them): " +
				"a count such as `3` or a percentage such as `50%`, rounded up. Absent means `" + v1.DefaultRepairMaxUnhealthy + "`, Karpenter's fixed threshold; `100%` never stops."},
	}
}

// minSavingsAttributes are the consolidation savings thresholds, in tenon_nodepool's
// disruption and tenon_provisioner's consolidation.
func minSavingsAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"min_savings_per_hour": schema.StringAttribute{Optional: true,
			MarkdownDescription: fmt.Sprintf("Least a consolidation command must save, in USD per hour, so tiny gains do not churn pods: a decimal string such as `\"0.05\"`. "+
				"Absent means `%s`. A command removing nodes of several pools must save the largest of their amounts.", strconv.FormatFloat(v1.DefaultMinSavingsPerHour, 'f', -1, 64))},
		"min_savings_percent": schema.Int64Attribute{Optional: true,
			MarkdownDescription: fmt.Sprintf("Least a consolidation command must save, as a percentage (0 to 100) of the price of the nodes it removes. Absent means `%d`. "+
				"Each node removed asks its own pool's percentage of its own price.", v1.DefaultMinSavingsPercent)},
		"min_savings_per_pod": schema.StringAttribute{Optional: true,
			MarkdownDescription: fmt.Sprintf("Least a consolidation command that launches replacement nodes must save per pod it evicts, in USD per hour: a decimal string such as `\"0.01\"`. "+
				"Absent means `%s`. Each evicted pod asks its node's pool's amount; deleting a node without replacement is not held to it.", strconv.FormatFloat(v1.DefaultMinSavingsPerPod, 'f', -1, 64))},
	}
}

func budgetAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"nodes": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(v1.DefaultBudgetNodes),
			MarkdownDescription: "How many nodes may be disrupted at once: a count such as `5` or a percentage such as `10%` (the default)."},
		"schedule": schema.StringAttribute{Optional: true,
			MarkdownDescription: "When the budget's window opens, in cron syntax such as `0 9 * * mon-fri` or `@daily`. Requires `duration`."},
		"duration": schema.StringAttribute{Optional: true,
			MarkdownDescription: "How long the window stays open after each schedule hit, such as `8h` or `1h30m`. Requires `schedule`."},
		"reasons": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyList(),
			MarkdownDescription: "Limit the budget to some disruption reasons: " + codeList(v1.DisruptionReasons(), nil) + ". Absent means all."},
	}
}

func nodePoolStatusAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"nodes":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of nodes the pool has."},
		"resources": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Sum of the capacity of the pool's nodes."},
		"cost_per_hour": schema.StringAttribute{Computed: true, MarkdownDescription: "What the pool's nodes and in-flight claims cost per hour, in USD (a decimal string such as `0.3060`), " +
			"from the cloud provider's prices; empty until the agent reports it."},
		"conditions": conditionsAttribute(v1.ConditionReady, v1.ConditionNodeClassReady, v1.ConditionValidationSucceeded),
	}
}

// The object types of the nested attributes whose values the provider builds (defaults,
// status), derived from their schemas.
var (
	budgetType         = attributesType(budgetAttributes())
	disruptionType     = attributesType(disruptionAttributes())
	nodePoolStatusType = attributesType(nodePoolStatusAttributes())
)

// nodePoolDescription introduces the resource in its documentation.
const nodePoolDescription = "A `tenon.dev/v1` NodePool: which nodes the agent may launch for pending pods (`template`), " +
	"when it may remove or replace them (`disruption`), how much it may launch in total (`limits`) and how it ranks " +
	"against other pools (`weight`); or, with `replicas`, a static pool that keeps that many nodes. Every field is checked at plan time with the same rules as the API server's."
