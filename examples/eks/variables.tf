variable "region" {
  description = "The AWS region of the cluster."
  type        = string
  default     = "eu-west-1"
}

variable "cluster_name" {
  description = "The EKS cluster name; also the value of the tenon.dev/discovery tag on its subnets and node security group."
  type        = string
  default     = "tenon-demo"
}

variable "kubernetes_version" {
  description = "The Kubernetes minor version; it also names the public SSM parameters of the nodes' AMIs."
  type        = string
  default     = "1.33"
}

variable "agent_image" {
  description = "The agent's container image (the tenon binary); null installs the agent of the provider's own version."
  type        = string
  default     = null
}
