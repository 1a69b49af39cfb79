variable "cluster_name" {
  description = "The EKS cluster name: the agent's --cluster-name, and the value of the tenon.dev/discovery tag the NodeClass selects subnets and security groups by."
  type        = string
}

variable "region" {
  description = "The AWS region of the cluster."
  type        = string
}

variable "cluster_endpoint" {
  description = "The API server URL new nodes join (the EKS endpoint)."
  type        = string
}

variable "cluster_service_cidr" {
  description = "The cluster's service CIDR, for the nodes' bootstrap (cluster DNS)."
  type        = string
}

variable "interruption_queue" {
  description = "The SQS queue EventBridge sends interruption events to."
  type        = string
}

variable "node_role_name" {
  description = "The nodes' IAM role; the agent creates and manages an instance profile for it."
  type        = string
}

variable "agent_image" {
  description = "The agent's container image (the tenon binary); null installs the agent of the provider's own version."
  type        = string
  default     = null
}
