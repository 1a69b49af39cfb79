# What would a web app and a batch job cost on the general pool? The plan shows
# it before anything is applied.
data "tenon_simulation" "preview" {
  workloads = [
    {
      name            = "web"
      replicas        = 6
      requests        = { cpu = "500m", memory = "1Gi" }
      topology_spread = [{ topology_key = "topology.kubernetes.io/zone" }]
    },
    {
      name          = "batch"
      replicas      = 10
      requests      = { cpu = "2", memory = "4Gi" }
      node_selector = { "kubernetes.io/arch" = "amd64" }
    },
  ]
  # Pools inline, as the YAML `tenon simulate -f` reads; or
  # node_pools = [tenon_nodepool.general.name] to read them from the cluster.
  manifests = [yamlencode(local.general_pool), yamlencode(local.kwok_class)]
}

locals {
  general_pool = {
    apiVersion = "tenon.dev/v1"
    kind       = "NodePool"
    metadata   = { name = "general" }
    spec = {
      template = {
        spec = {
          nodeClassRef = { name = "default" }
          requirements = [{ key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] }]
        }
      }
    }
  }
  kwok_class = {
    apiVersion = "tenon.dev/v1"
    kind       = "NodeClass"
    metadata   = { name = "default" }
    spec       = { kwok = {} }
  }
}

output "monthly_cost" {
  value = data.tenon_simulation.preview.cost_per_month
}

output "nodes" {
  value = [for n in data.tenon_simulation.preview.nodes : "${n.instance_type} (${n.capacity_type}, ${n.zone}): ${length(n.pods)} pods"]
}
