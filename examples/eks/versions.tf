terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 6.0"
    }
    tenon = {
      source = "tenonhq/tenon"
    }
  }
}

provider "aws" {
  region = var.region
}

# The tenon provider writes the agent and the policy objects into the new
# cluster, with a token from the AWS CLI. It connects only when a tenon_*
# resource needs the cluster, so values known only after apply are fine.
provider "tenon" {
  kubernetes {
    host                   = module.eks.cluster_endpoint
    cluster_ca_certificate = base64decode(module.eks.cluster_certificate_authority_data)
    exec {
      api_version = "client.authentication.k8s.io/v1beta1"
      command     = "aws"
      args        = ["eks", "get-token", "--cluster-name", module.eks.cluster_name, "--region", var.region]
    }
  }
}
