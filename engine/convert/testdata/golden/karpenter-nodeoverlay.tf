# Converted from Karpenter by `tenon convert`.
# Every input field was mapped.

# From examples/convert/karpenter-nodeoverlay.yaml: NodeOverlay savings-plan
resource "tenon_node_overlay" "savings-plan" {
  name = "savings-plan"
  requirements = [
    {
      key      = "tenon.dev/instance-family"
      operator = "In"
      values   = ["m6i", "m7i"]
    },
    {
      key      = "tenon.dev/nodepool"
      operator = "In"
      values   = ["general"]
    },
    {
      key      = "tenon.dev/capacity-type"
      operator = "In"
      values   = ["on-demand", "reserved"]
    },
    {
      key      = "tenon.dev/instance-cpu"
      operator = "Lte"
      values   = ["16"]
    },
  ]
  price_adjustment = "-25%"
  weight           = 10
}

import {
  to = tenon_node_overlay.savings-plan
  id = "savings-plan"
}

# From examples/convert/karpenter-nodeoverlay.yaml: NodeOverlay hugepages
resource "tenon_node_overlay" "hugepages" {
  name = "hugepages"
  requirements = [
    {
      key      = "node.kubernetes.io/instance-type"
      operator = "In"
      values   = ["r6i.2xlarge"]
    },
  ]
  capacity = {
    hugepages-2Mi = "1Gi"
  }
}

import {
  to = tenon_node_overlay.hugepages
  id = "hugepages"
}
