# Write Tenon's objects to the cluster of a kubeconfig (KUBE_CONFIG_PATH and
# KUBECONFIG work too when config_path is not set).
provider "tenon" {
  kubernetes {
    config_path    = "~/.kube/config"
    config_context = "prod"
  }
}

# Or connect to an EKS cluster created in the same configuration, with a token
# from the AWS CLI. The provider connects only when a resource needs the
# cluster, so values known only after apply are fine.
provider "tenon" {
  alias = "eks"
  kubernetes {
    host                   = "https://0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com"
    cluster_ca_certificate = file("${path.module}/ca.pem")
    exec {
      api_version = "client.authentication.k8s.io/v1beta1"
      command     = "aws"
      args        = ["eks", "get-token", "--cluster-name", "prod"]
    }
  }
}
