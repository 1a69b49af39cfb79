# Karpenter's v1alpha5 Provisioner shape, with the inline AWS provider block
# (named aws, since Terraform reserves provider).
resource "tenon_provisioner" "default" {
  name   = "default"
  labels = { team = "platform" }
  requirements = [
    { key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] },
    { key = "tenon.dev/instance-generation", operator = "Gt", values = ["4"] },
  ]
  limits                    = { cpu = "1000" }
  ttl_seconds_until_expired = 2592000
  consolidation             = { enabled = true }
  aws = {
    instance_profile        = "KarpenterNodeInstanceProfile-prod"
    subnet_selector         = { "karpenter.sh/discovery" = "prod" }
    security_group_selector = { "karpenter.sh/discovery" = "prod" }
  }
}
