# Converted from Karpenter by `tenon convert`.
# Every input field was mapped.
#
# Ignored (1): status, server and Helm metadata, and settings moved elsewhere:
#   examples/convert/karpenter-v1beta1.yaml: NodePool general: spec.template.spec.kubelet: moved to NodeClass general's aws.kubelet, where Tenon keeps kubelet settings

# From examples/convert/karpenter-v1beta1.yaml: NodePool general
resource "tenon_nodepool" "general" {
  name = "general"
  template = {
    metadata = {
      labels = {
        workload = "general"
      }
    }
    requirements = [
      {
        key      = "tenon.dev/capacity-type"
        operator = "In"
        values   = ["spot", "on-demand"]
      },
      {
        key        = "tenon.dev/instance-family"
        operator   = "In"
        values     = ["m6i", "m6a", "m7i", "m7a", "c6i", "c7i"]
        min_values = 3
      },
      {
        key      = "tenon.dev/instance-cpu"
        operator = "Lt"
        values   = ["33"]
      },
    ]
    node_class   = tenon_node_class.general.name
    expire_after = "336h"
  }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "0s"
    budgets = [
      {
        nodes = "20%"
      },
      {
        nodes    = "0"
        schedule = "0 9 * * mon-fri"
        duration = "8h"
      },
    ]
  }
  limits = {
    cpu    = "2k"
    memory = "4000Gi"
  }
  weight = 50
}

import {
  to = tenon_nodepool.general
  id = "general"
}

# From examples/convert/karpenter-v1beta1.yaml: EC2NodeClass general
resource "tenon_node_class" "general" {
  name = "general"
  aws = {
    ami_family = "AL2023"
    ami_selector_terms = [
      {
        name  = "amazon-eks-node-al2023-x86_64-standard-1.30-*"
        owner = "amazon"
      },
    ]
    subnet_selector_terms = [
      {
        tags = {
          "karpenter.sh/discovery" = "prod"
        }
      },
      {
        id = "subnet-0a1b2c3d4e5f60718"
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
    tags = {
      cost-center = "1234"
    }
    block_device_mappings = [
      {
        device_name = "/dev/xvda"
        ebs = {
          encrypted   = true
          iops        = 3000
          throughput  = 125
          volume_size = "80Gi"
          volume_type = "gp3"
        }
        root_volume = true
      },
    ]
    user_data = <<EOT
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    config:
      shutdownGracePeriod: 30s
EOT
    kubelet = {
      max_pods                        = 58
      image_gc_high_threshold_percent = 85
      image_gc_low_threshold_percent  = 80
    }
  }
}

import {
  to = tenon_node_class.general
  id = "general"
}
