# Converted from Karpenter by `tenon convert`.
#
# NOT MAPPED (4): these input fields have no Tenon equivalent and are not in this file:
#   examples/convert/karpenter-v1alpha5.yaml: Provisioner default: spec.kubeletConfiguration.containerRuntime: Tenon's AMI families all run containerd; the setting has no effect
#   examples/convert/karpenter-v1alpha5.yaml: AWSNodeTemplate default: spec.detailedMonitoring: Tenon launches instances with basic CloudWatch monitoring
#   examples/convert/karpenter-v1alpha5.yaml: Provisioner batch: spec.provider.amiFamily: amiFamily AL2: Amazon Linux 2 reached end of support for EKS; Tenon bootstraps AL2023, Bottlerocket or Custom and uses AL2023, its default; check any user data written for AL2
#   examples/convert/karpenter-v1alpha5.yaml: Provisioner batch: spec.provider.securityGroupSelector[aws-ids]: selecting by ID, name or owner needs a NodeClass: move the provider to an AWSNodeTemplate (converted to a NodeClass with securityGroupSelectorTerms) and use providerRef
#
# Ignored (3): status, server and Helm metadata, and settings moved elsewhere:
#   examples/convert/karpenter-v1alpha5.yaml: Provisioner default: metadata.labels[app.kubernetes.io/managed-by]: Helm's record keeping
#   examples/convert/karpenter-v1alpha5.yaml: Provisioner default: metadata.annotations[meta.helm.sh/release-name]: record keeping of kubectl, Helm or Karpenter
#   examples/convert/karpenter-v1alpha5.yaml: Provisioner default: metadata.annotations[meta.helm.sh/release-namespace]: record keeping of kubectl, Helm or Karpenter

# From examples/convert/karpenter-v1alpha5.yaml: Provisioner default
resource "tenon_provisioner" "default" {
  name = "default"
  annotations = {
    "example.com/owner" = "platform"
  }
  labels = {
    team = "platform"
  }
  requirements = [
    {
      key      = "tenon.dev/capacity-type"
      operator = "In"
      values   = ["spot", "on-demand"]
    },
    {
      key      = "tenon.dev/instance-category"
      operator = "In"
      values   = ["c", "m", "r"]
    },
    {
      key      = "tenon.dev/instance-generation"
      operator = "Gt"
      values   = ["4"]
    },
    {
      key      = "kubernetes.io/arch"
      operator = "In"
      values   = ["amd64", "arm64"]
    },
  ]
  kubelet_configuration = {
    max_pods = 110
    system_reserved = {
      cpu    = "100m"
      memory = "100Mi"
    }
    eviction_hard = {
      "memory.available" = "5%"
    }
  }
  provider_ref              = tenon_node_class.default.name
  ttl_seconds_until_expired = 2592000
  limits = {
    cpu    = "1k"
    memory = "1000Gi"
  }
  weight = 10
  consolidation = {
    enabled = true
  }
}

import {
  to = tenon_provisioner.default
  id = "default"
}

# From examples/convert/karpenter-v1alpha5.yaml: AWSNodeTemplate default
resource "tenon_node_class" "default" {
  name = "default"
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
    instance_profile = "KarpenterNodeInstanceProfile-prod"
    tags = {
      team = "platform"
    }
    block_device_mappings = [
      {
        device_name = "/dev/xvdb"
        ebs = {
          delete_on_termination = true
          encrypted             = true
          volume_size           = "100Gi"
          volume_type           = "gp3"
        }
      },
    ]
    metadata_options = {
      http_endpoint               = "enabled"
      http_protocol_ipv6          = "disabled"
      http_put_response_hop_limit = 2
      http_tokens                 = "required"
    }
  }
}

import {
  to = tenon_node_class.default
  id = "default"
}

# From examples/convert/karpenter-v1alpha5.yaml: Provisioner batch
resource "tenon_provisioner" "batch" {
  name = "batch"
  taints = [
    {
      key    = "example.com/batch"
      value  = "true"
      effect = "NoSchedule"
    },
  ]
  startup_taints = [
    {
      key    = "example.com/agent-not-ready"
      effect = "NoExecute"
    },
  ]
  requirements = [
    {
      key      = "tenon.dev/capacity-type"
      operator = "In"
      values   = ["spot"]
    },
    {
      key      = "node.kubernetes.io/instance-type"
      operator = "In"
      values   = ["c6i.large", "c6i.xlarge", "c6a.large", "c6a.xlarge"]
    },
  ]
  aws = {
    instance_profile = "KarpenterNodeInstanceProfile-prod"
    subnet_selector = {
      "karpenter.sh/discovery" = "prod"
    }
    tags = {
      workload = "batch"
    }
  }
  ttl_seconds_after_empty = 30
}

import {
  to = tenon_provisioner.batch
  id = "batch"
}
