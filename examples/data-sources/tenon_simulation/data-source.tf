# What would a web app and a batch job cost on the general pool? The plan shows
# it before anything is applied. Ordinary pods get ordinary nodes: GPU,
# accelerator (Inferentia, Trainium, FPGA) and bare-metal types, often the
# cheapest per CPU on spot, are kept for pods that request their devices and
# for pools that name them (e.g. instance-category In [g]).
#
# The plan shows:
#   "t3a.medium (spot, us-east-1b): 2 pods",
#   "t3a.medium (spot, us-east-1c): 2 pods",
#   "r7i.8xlarge (spot, us-east-1a): 12 pods",
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
