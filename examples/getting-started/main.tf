# Tenon on the local cluster (make dev-cluster): a KWOK NodeClass, a NodePool
# of on-demand amd64 nodes capped at 16 CPU, and a plan-time cost preview.
# docs/guides/getting-started.md walks through it.
terraform {
  required_providers {
    tenon = { source = "tenonhq/tenon" }
  }
}

# No config_path: the provider uses $KUBECONFIG, as kubectl does.
provider "tenon" {
  kubernetes {}
}

# Nodes are Node objects the agent creates and KWOK keeps Ready.
resource "tenon_node_class" "local" {
  name = "local"
  kwok = {}
}

resource "tenon_nodepool" "general" {
  name = "general"
  template = {
    node_class = tenon_node_class.local.name
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand"] },
      { key = "tenon.dev/instance-category", operator = "In", values = ["c", "m"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
    ]
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "30s"
  }
  limits = { cpu = "16", memory = "64Gi" }
}

# What would five pods of 1 CPU cost on this pool? Read from the cluster once
# the pool exists, so the first plan shows "(known after apply)".
data "tenon_simulation" "inflate" {
  workloads = [{
    name     = "inflate"
    replicas = 5
    requests = { cpu = "1", memory = "128Mi" }
  }]
  node_pools = [tenon_nodepool.general.name]
}

output "preview_cost_per_hour" {
  value = data.tenon_simulation.inflate.cost_per_hour
}

output "preview_nodes" {
  value = [for n in data.tenon_simulation.inflate.nodes : "${n.instance_type} (${n.capacity_type}, ${n.zone}): ${length(n.pods)} pods"]
}
