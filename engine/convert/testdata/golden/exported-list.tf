# Converted from Karpenter by `tenon convert`.
#
# NOT MAPPED (2): these input fields have no Tenon equivalent and are not in this file:
#   examples/convert/exported-list.yaml: NodePool default: spec.template.spec.requirements[1]: requirement on karpenter.sh/nodepool: the agent sets tenon.dev/nodepool to the pool's name itself; remove it
#   examples/convert/exported-list.yaml: EC2NodeClass default: spec.amiSelectorTerms[0].alias: alias al2023@v20240807 pins an AMI version; Tenon uses the family's latest EKS-optimized AMI, or pin one with an amiSelectorTerms id or ssmParameter
#
# Ignored (11): status, server and Helm metadata, and settings moved elsewhere:
#   examples/convert/exported-list.yaml: NodePool default: metadata.uid: set by the API server
#   examples/convert/exported-list.yaml: NodePool default: metadata.resourceVersion: set by the API server
#   examples/convert/exported-list.yaml: NodePool default: metadata.generation: set by the API server
#   examples/convert/exported-list.yaml: NodePool default: metadata.creationTimestamp: set by the API server
#   examples/convert/exported-list.yaml: NodePool default: metadata.annotations[karpenter.sh/nodepool-hash]: record keeping of kubectl, Helm or Karpenter
#   examples/convert/exported-list.yaml: NodePool default: metadata.annotations[karpenter.sh/nodepool-hash-version]: record keeping of kubectl, Helm or Karpenter
#   examples/convert/exported-list.yaml: NodePool default: metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]: record keeping of kubectl, Helm or Karpenter
#   examples/convert/exported-list.yaml: NodePool default: status: written by Karpenter; the agent writes its own
#   examples/convert/exported-list.yaml: EC2NodeClass default: metadata.uid: set by the API server
#   examples/convert/exported-list.yaml: EC2NodeClass default: metadata.finalizers: set by Karpenter
#   examples/convert/exported-list.yaml: EC2NodeClass default: status: written by Karpenter; the agent resolves its own

# From examples/convert/exported-list.yaml: NodePool default
resource "tenon_nodepool" "default" {
  name = "default"
  template = {
    metadata = {
      annotations = {
        "tenon.dev/do-not-disrupt" = "true"
      }
    }
    requirements = [
      {
        key      = "tenon.dev/capacity-type"
        operator = "In"
        values   = ["spot", "on-demand", "reserved"]
      },
    ]
    node_class   = tenon_node_class.default.name
    expire_after = "720h"
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "0s"
    budgets = [
      {
        nodes = "10%"
      },
    ]
  }
}

import {
  to = tenon_nodepool.default
  id = "default"
}

# From examples/convert/exported-list.yaml: EC2NodeClass default
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
    metadata_options = {
      http_endpoint               = "enabled"
      http_protocol_ipv6          = "disabled"
      http_put_response_hop_limit = 1
      http_tokens                 = "required"
    }
    capacity_reservation_selector_terms = [
      {
        tags = {
          "karpenter.sh/discovery" = "prod"
        }
      },
      {
        id = "cr-0a1b2c3d4e5f60718"
      },
    ]
  }
}

import {
  to = tenon_node_class.default
  id = "default"
}
