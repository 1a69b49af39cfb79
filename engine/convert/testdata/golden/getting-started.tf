# Converted from Karpenter by `tenon convert`.
# Every input field was mapped.

# From examples/convert/getting-started.yaml: NodePool default
resource "tenon_nodepool" "default" {
  name = "default"
  template = {
    requirements = [
      {
        key      = "kubernetes.io/arch"
        operator = "In"
        values   = ["amd64"]
      },
      {
        key      = "kubernetes.io/os"
        operator = "In"
        values   = ["linux"]
      },
      {
        key      = "tenon.dev/capacity-type"
        operator = "In"
        values   = ["on-demand"]
      },
      {
        key      = "tenon.dev/instance-category"
        operator = "In"
        values   = ["c", "m", "r"]
      },
      {
        key      = "tenon.dev/instance-generation"
        operator = "Gt"
        values   = ["2"]
      },
    ]
    node_class   = tenon_node_class.default.name
    expire_after = "720h"
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "1m"
  }
  limits = {
    cpu = "1k"
  }
}

import {
  to = tenon_nodepool.default
  id = "default"
}

# From examples/convert/getting-started.yaml: EC2NodeClass default
resource "tenon_node_class" "default" {
  name = "default"
  aws = {
    ami_family = "AL2023"
    subnet_selector_terms = [
      {
        tags = {
          "karpenter.sh/discovery" = "prod"
        }
      },
    ]
    security_group_selector_terms = [
      {
        tags = {
          "karpenter.sh/discovery" = "prod"
        }
      },
    ]
    role = "KarpenterNodeRole-prod"
  }
}

import {
  to = tenon_node_class.default
  id = "default"
}
