# The cluster, with a small managed node group for the agent itself and the
# cluster add-ons (Tenon cannot run on the nodes it launches before it runs).
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"

  name               = var.cluster_name
  kubernetes_version = var.kubernetes_version

  endpoint_public_access                   = true
  enable_cluster_creator_admin_permissions = true

  vpc_id     = module.vpc.vpc_id
  subnet_ids = module.vpc.private_subnets

  addons = {
    coredns                = {}
    kube-proxy             = {}
    eks-pod-identity-agent = { before_compute = true }
    vpc-cni                = { before_compute = true }
  }

  eks_managed_node_groups = {
    tenon = {
      ami_type       = "AL2023_x86_64_STANDARD"
      instance_types = ["m5.large"]
      min_size       = 2
      max_size       = 3
      desired_size   = 2
      labels         = { "tenon.dev/agent" = "true" }
    }
  }

  # Tenon's default security group selector finds the node security group
  # by this tag.
  node_security_group_tags = {
    "tenon.dev/discovery" = var.cluster_name
  }
}
