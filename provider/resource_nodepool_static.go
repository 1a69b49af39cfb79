package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// replicasAttribute is tenon_nodepool's replicas: a static pool. Adding or
// removing it replaces the NodePool, as the API forbids it in place.
func replicasAttribute() schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true,
		PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.Int64Request, resp *int64planmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !req.State.Raw.IsNull() && req.StateValue.IsNull() != req.PlanValue.IsNull()
		}, "Adding or removing replicas replaces the NodePool.", "Adding or removing `replicas` replaces the NodePool.")},
		MarkdownDescription: "Makes the pool static: the agent keeps exactly this many nodes (0 to 10000), launching the cheapest " +
			"instance type the requirements allow and replacing lost ones, whatever the pending pods. Pods may run on them, but " +
			"the agent launches no other node in the pool for pending pods; consolidation leaves them alone (`consolidation_policy` " +
			"and `consolidate_after` are ignored), drift and expiry replace them, and lowering it removes the emptiest nodes " +
			"first within the budgets and PodDisruptionBudgets. Only the `nodes` limit applies, `weight` is not allowed, and " +
			"adding or removing it replaces the NodePool."}
}
