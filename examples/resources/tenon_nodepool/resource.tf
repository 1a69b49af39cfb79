# A general-purpose pool: spot first, on-demand as fallback, at least five
# instance types so spot capacity has somewhere to go.
resource "tenon_nodepool" "general" {
  name = "general"
  template = {
    metadata = { labels = { "example.com/team" = "platform" } }
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] },
      { key = "tenon.dev/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "node.kubernetes.io/instance-type", operator = "Exists", min_values = 5 },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64", "arm64"] },
    ]
    expire_after = "720h"
    node_class   = tenon_node_class.default.name
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "30s"
    budgets = [
      { nodes = "10%" },
      # No underutilization replacements during business hours.
      { nodes = "0", schedule = "0 9 * * mon-fri", duration = "8h", reasons = ["Underutilized"] },
      # Node repair replaces one unhealthy node at a time.
      { nodes = "1", reasons = ["Unhealthy"] },
    ]
    # Replace nodes NotReady (or reporting a node monitoring agent failure)
    # for 15 minutes; stop if more than a fifth of the pool is unhealthy.
    repair = { enabled = true, toleration = "15m", max_unhealthy = "20%" }
  }
  limits = { cpu = "1000", memory = "4000Gi" }
  weight = 10
}

# A static pool: three on-demand nodes kept up whatever the pods (capacity
# already paid for, or a warm baseline). Pods land on them first; the agent
# launches no other node in this pool and never consolidates these. Only the
# nodes limit applies: one above the replicas lets drift replace a node
# before removing it.
resource "tenon_nodepool" "baseline" {
  name     = "baseline"
  replicas = 3
  template = {
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand"] },
      { key = "tenon.dev/instance-family", operator = "In", values = ["m7i", "m6i"] },
      { key = "tenon.dev/instance-cpu", operator = "In", values = ["8"] },
    ]
    node_class = tenon_node_class.default.name
  }
  disruption = {
    consolidate_after = "0s"
    budgets           = [{ nodes = "1" }]
  }
  limits = { nodes = "4" }
}

# A pool that keeps room for four more web pods (1 vCPU, 2 GiB) than it runs,
# so a burst of up to four schedules at once instead of waiting for a launch.
# The room is planned as placeholder pods after the real pods; real pods take
# it at once and the agent launches for the buffer again. Consolidation keeps
# it, limits cap it, and `tenon simulate` prices it.
resource "tenon_nodepool" "web" {
  name = "web"
  template = {
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand"] },
    ]
    node_class = tenon_node_class.default.name
  }
  buffer = {
    pods      = 4
    resources = { cpu = "1", memory = "2Gi" }
    # percent = 20  # or room for 20% of what the pool's pods request (pods then caps it)
  }
  disruption = { consolidate_after = "30s" }
  limits     = { cpu = "200" }
}

resource "tenon_node_class" "default" {
  name = "default"
  aws = {
    role                          = "KarpenterNodeRole-prod"
    subnet_selector_terms         = [{ tags = { "tenon.dev/discovery" = "prod" } }]
    security_group_selector_terms = [{ tags = { "tenon.dev/discovery" = "prod" } }]
  }
}
