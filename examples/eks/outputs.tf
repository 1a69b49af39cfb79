output "cluster_name" {
  description = "The EKS cluster's name."
  value       = module.eks.cluster_name
}

output "configure_kubectl" {
  description = "The command that points kubectl at the cluster."
  value       = "aws eks update-kubeconfig --region ${var.region} --name ${module.eks.cluster_name}"
}

output "interruption_queue" {
  description = "The SQS queue of interruption events."
  value       = aws_sqs_queue.interruption.name
}

output "node_role" {
  description = "The nodes' IAM role name (the agent manages its instance profile)."
  value       = aws_iam_role.node.name
}
