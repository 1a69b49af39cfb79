# Converted from Karpenter by `tenon convert`.
#
# NOT MAPPED (1): these input fields have no Tenon equivalent and are not in this file:
#   examples/convert/karpenter-v1.yaml: EC2NodeClass gpu: spec.instanceStorePolicy: Tenon does not assemble instance-store volumes (RAID0); mount them with user data

# From examples/convert/karpenter-v1.yaml: NodePool spot
resource "tenon_nodepool" "spot" {
  name = "spot"
  template = {
    requirements = [
      {
        key      = "tenon.dev/capacity-type"
        operator = "In"
        values   = ["spot"]
      },
      {
        key      = "tenon.dev/instance-category"
        operator = "In"
        values   = ["c", "m", "r"]
      },
      {
        key      = "tenon.dev/instance-generation"
        operator = "Gt"
        values   = ["5"]
      },
      {
        key        = "node.kubernetes.io/instance-type"
        operator   = "Exists"
        min_values = 10
      },
    ]
    node_class               = tenon_node_class.default.name
    expire_after             = "720h"
    termination_grace_period = "48h"
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "1m"
    budgets = [
      {
        nodes   = "10%"
        reasons = ["Empty", "Drifted"]
      },
    ]
  }
  limits = {
    cpu = "500"
  }
  weight = 100
}

import {
  to = tenon_nodepool.spot
  id = "spot"
}

# From examples/convert/karpenter-v1.yaml: NodePool on-demand
resource "tenon_nodepool" "on-demand" {
  name = "on-demand"
  template = {
    requirements = [
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
    ]
    node_class = tenon_node_class.default.name
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "5m"
  }
  limits = {
    cpu = "200"
  }
  weight = 10
}

import {
  to = tenon_nodepool.on-demand
  id = "on-demand"
}

# From examples/convert/karpenter-v1.yaml: NodePool gpu
resource "tenon_nodepool" "gpu" {
  name = "gpu"
  template = {
    metadata = {
      labels = {
        "example.com/accelerator" = "nvidia"
      }
    }
    requirements = [
      {
        key      = "tenon.dev/instance-gpu-name"
        operator = "In"
        values   = ["t4", "a10g"]
      },
      {
        key      = "tenon.dev/instance-gpu-count"
        operator = "Gte"
        values   = ["1"]
      },
      {
        key      = "tenon.dev/capacity-type"
        operator = "In"
        values   = ["on-demand"]
      },
    ]
    taints = [
      {
        key    = "nvidia.com/gpu"
        value  = "true"
        effect = "NoSchedule"
      },
    ]
    node_class   = tenon_node_class.gpu.name
    expire_after = "Never"
  }
  disruption = {
    consolidation_policy = "WhenEmpty"
    consolidate_after    = "10m"
  }
  limits = {
    "nvidia.com/gpu" = "16"
  }
}

import {
  to = tenon_nodepool.gpu
  id = "gpu"
}

# From examples/convert/karpenter-v1.yaml: EC2NodeClass default
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
      {
        name = "eks-cluster-sg-prod"
      },
    ]
    role = "KarpenterNodeRole-prod"
    tags = {
      team = "platform"
    }
    metadata_options = {
      http_put_response_hop_limit = 1
      http_tokens                 = "required"
    }
    kubelet = {
      max_pods = 110
      kube_reserved = {
        cpu    = "200m"
        memory = "512Mi"
      }
      eviction_soft = {
        "memory.available" = "500Mi"
      }
      eviction_soft_grace_period = {
        "memory.available" = "1m"
      }
    }
  }
}

import {
  to = tenon_node_class.default
  id = "default"
}

# From examples/convert/karpenter-v1.yaml: EC2NodeClass gpu
resource "tenon_node_class" "gpu" {
  name = "gpu"
  aws = {
    ami_family = "Bottlerocket"
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
    block_device_mappings = [
      {
        device_name = "/dev/xvdb"
        ebs = {
          volume_size = "200Gi"
          volume_type = "gp3"
        }
      },
    ]
  }
}

import {
  to = tenon_node_class.gpu
  id = "gpu"
}
