# Only the tenon provider: its configuration (the cluster's endpoint and
# credentials) comes from the root module. Keeping the AWS resources out
# lets this module validate offline, with the provider installed through
# dev_overrides (examples/eks/eks_test.go).
terraform {
  required_version = ">= 1.6"

  required_providers {
    tenon = {
      source = "tenonhq/tenon"
    }
  }
}
