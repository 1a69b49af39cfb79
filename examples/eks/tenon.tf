# The Tenon parts (agent, NodeClass, pools) are a child module that needs
# only the tenon provider, so they validate offline (see tenon/); this file
# wires it to the cluster, the node role and the interruption queue.
module "tenon" {
  source = "./tenon"

  cluster_name         = module.eks.cluster_name
  region               = var.region
  cluster_endpoint     = module.eks.cluster_endpoint
  cluster_service_cidr = module.eks.cluster_service_cidr
  interruption_queue   = aws_sqs_queue.interruption.name
  node_role_name       = aws_iam_role.node.name
  agent_image          = var.agent_image

  # The agent needs its credentials before it starts, and nodes need their
  # access entry before they join.
  depends_on = [aws_eks_pod_identity_association.agent, aws_iam_role_policy.agent, aws_eks_access_entry.node]
}
