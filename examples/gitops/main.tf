# Tenon policy delivered through Git: every resource below becomes one YAML file under
# var.git_path, listed in a kustomization.yaml, committed and pushed to var.git_branch.
# ArgoCD (argocd-application.yaml), Flux (flux-kustomization.yaml) or the agent's own pull mode
# (tenon agent --policy-git-url ...) applies that folder to the cluster.

terraform {
  required_providers {
    tenon = {
      source = "tenonhq/tenon"
    }
  }
}

variable "git_url" {
  description = "Repository the policy is committed to."
  type        = string
  default     = "https://github.com/example-org/platform-policy.git"
}

variable "git_branch" {
  type    = string
  default = "main"
}

variable "git_path" {
  description = "Folder of the repository ArgoCD or Flux applies."
  type        = string
  default     = "clusters/prod/tenon"
}

variable "git_token" {
  description = "HTTPS access token allowed to push to git_branch; null for anonymous access (local git daemon)."
  type        = string
  default     = null
  sensitive   = true
}

provider "tenon" {
  git {
    url          = var.git_url
    branch       = var.git_branch
    path         = var.git_path
    author_name  = "Terraform"
    author_email = "terraform@example.com"
    auth {
      token = var.git_token
    }
  }
}

resource "tenon_node_class" "kwok" {
  name = "kwok"
  kwok = {}
}

resource "tenon_nodepool" "general" {
  name = "general"
  template = {
    node_class = tenon_node_class.kwok.name
    requirements = [
      { key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
    ]
  }
  limits = { cpu = "64", memory = "256Gi" }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "30s"
  }
}
