# The agent: CRDs, namespace, ServiceAccount (bound to the agent's IAM role by
# Pod Identity in the root module), RBAC, a 2-replica Deployment and its PDB.
resource "tenon_agent" "this" {
  cloud        = "aws"
  cluster_name = var.cluster_name
  namespace    = "tenon-system"
  image        = var.agent_image
  replicas     = 2
  settings = {
    region             = var.region
    interruption_queue = var.interruption_queue
  }
  # The endpoint nodes join (inside the cluster the agent itself talks to
  # the kubernetes Service, which nodes cannot reach before they join). The
  # CA comes from the agent's ServiceAccount and the Kubernetes version from
  # the API server. The service CIDR is the cluster's, for the nodes' DNS.
  args = ["--cluster-endpoint=${var.cluster_endpoint}", "--cluster-cidr=${var.cluster_service_cidr}"]
}

# How nodes are launched: AL2023 (the NVIDIA variant for GPU types is picked
# automatically), in the subnets and security group tagged for discovery,
# with an instance profile the agent creates for the node role, IMDSv2
# only, a 50 GiB root volume.
resource "tenon_node_class" "default" {
  name = "default"
  aws = {
    ami_family                    = "AL2023"
    role                          = var.node_role_name
    subnet_selector_terms         = [{ tags = { "tenon.dev/discovery" = var.cluster_name } }]
    security_group_selector_terms = [{ tags = { "tenon.dev/discovery" = var.cluster_name } }]
    tags                          = { "team" = "platform", "cost-center" = "k8s" }
    metadata_options              = { http_tokens = "required", http_put_response_hop_limit = 1 }
    block_device_mappings = [{
      device_name = "/dev/xvda"
      root_volume = true
      ebs         = { volume_size = "50Gi", volume_type = "gp3", encrypted = true }
    }]
  }

  depends_on = [tenon_agent.this]
}

# General workloads: spot first, on-demand when spot has no capacity, across
# c/m/r families of both architectures so spot has many pools to choose from.
resource "tenon_nodepool" "general" {
  name = "general"
  template = {
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] },
      { key = "tenon.dev/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "tenon.dev/instance-generation", operator = "Gt", values = ["4"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64", "arm64"] },
      { key = "node.kubernetes.io/instance-type", operator = "Exists", min_values = 10 },
    ]
    expire_after = "720h"
    node_class   = tenon_node_class.default.name
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "1m"
    budgets              = [{ nodes = "10%" }]
  }
  limits = { cpu = "500", memory = "2000Gi" }
  weight = 10
}

# Cluster add-ons that must not run on spot: on-demand only, tainted so that
# only pods tolerating CriticalAddonsOnly land there.
resource "tenon_nodepool" "system" {
  name = "system"
  template = {
    metadata = { labels = { "example.com/pool" = "system" } }
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand"] },
      { key = "tenon.dev/instance-family", operator = "In", values = ["m6i", "m7i", "m6g", "m7g"] },
      { key = "tenon.dev/instance-cpu", operator = "Lt", values = ["9"] },
    ]
    taints     = [{ key = "CriticalAddonsOnly", value = "true", effect = "NoSchedule" }]
    node_class = tenon_node_class.default.name
  }
  disruption = {
    consolidation_policy = "WhenEmpty"
    consolidate_after    = "10m"
    budgets              = [{ nodes = "1" }]
  }
  limits = { cpu = "64" }
  weight = 50
}

# GPU jobs: NVIDIA instances, tainted for pods that request GPUs, capped so a
# runaway job cannot buy a fleet.
resource "tenon_nodepool" "gpu" {
  name = "gpu"
  template = {
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand", "spot"] },
      { key = "tenon.dev/instance-gpu-manufacturer", operator = "In", values = ["nvidia"] },
      { key = "tenon.dev/instance-gpu-count", operator = "Gt", values = ["0"] },
      { key = "tenon.dev/instance-family", operator = "In", values = ["g5", "g6", "g6e"] },
    ]
    taints     = [{ key = "nvidia.com/gpu", value = "true", effect = "NoSchedule" }]
    node_class = tenon_node_class.default.name
  }
  disruption = {
    consolidation_policy = "WhenEmpty"
    consolidate_after    = "5m"
  }
  limits = { "nvidia.com/gpu" = "16" }
}
