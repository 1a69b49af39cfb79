# The agent on EKS: two replicas, IAM through IRSA, spot interruptions from SQS. Without
# `image`, the agent is the image of the provider's own version (ghcr.io/tenonhq/tenon:vX.Y.Z).
resource "tenon_agent" "this" {
  cloud        = "aws"
  cluster_name = "prod"
  service_account_annotations = {
    "eks.amazonaws.com/role-arn" = "arn:aws:iam::123456789012:role/tenon-agent"
  }
  settings = {
    interruption_queue = "tenon-prod"
    log_level          = "info"
    # pod_deletion_cost = true would have scale-downs delete the replicas on the nodes
    # consolidation removes; off by default, as in Karpenter.
  }
  timeouts = { create = "10m", update = "10m" }
}

# On a local KWOK cluster (make dev-cluster), where no image is pulled: KWOK
# reports the agent's pod Running, and `make demo` runs the agent itself as a
# local process with the Deployment's arguments.
resource "tenon_agent" "local" {
  namespace    = "tenon-local"
  cloud        = "kwok"
  cluster_name = "local"
  replicas     = 1
  settings     = { kwok_launch_delay = "5s" }
}
