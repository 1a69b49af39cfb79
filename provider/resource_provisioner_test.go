package provider

import "testing"

func provisionerHCL(body string) string {
	return "resource \"tenon_provisioner\" \"test\" {\n  name = \"prov\"\n" + body + "\n}\n"
}

func withRef(body string) string {
	return provisionerHCL("  provider_ref = \"default\"\n" + body)
}

func TestProvisionerValidationAtPlan(t *testing.T) {
	cases := []validationCase{
		{"no provider", provisionerHCL(""), ""},
		{"aws and provider_ref", withRef(`  aws = { instance_profile = "p" }`), "provider_ref"},
		{"provider_ref name", provisionerHCL(`  provider_ref = "Bad Name"`), "provider_ref"},
		{"ami family", provisionerHCL(`  aws = { instance_profile = "p", ami_family = "Ubuntu" }`), "aws.ami_family"},
		{"custom without selector", provisionerHCL(`  aws = { instance_profile = "p", ami_family = "Custom" }`), "aws.ami_selector"},
		{"subnet selector by id", provisionerHCL(`  aws = {
    instance_profile = "p"
    subnet_selector  = { "aws-ids" = "subnet-1" }
  }`), `aws.subnet_selector["aws-ids"]`},
		{"restricted tag", provisionerHCL(`  aws = {
    instance_profile = "p"
    tags             = { "tenon.dev/nodepool" = "x" }
  }`), `aws.tags["tenon.dev/nodepool"]`},
		{"restricted label", withRef(`  labels = { "karpenter.sh/capacity-type" = "spot" }`), `labels["karpenter.sh/capacity-type"]`},
		{"Gte is not v1alpha5", withRef(`  requirements = [{ key = "tenon.dev/instance-cpu", operator = "Gte", values = ["4"] }]`), "requirements[0].operator"},
		{"duplicate taint", withRef(`  taints = [
    { key = "example.com/t", effect = "NoSchedule" },
    { key = "example.com/t", value = "x", effect = "NoSchedule" },
  ]`), "taints[1]"},
		{"ttl with consolidation", withRef(`  ttl_seconds_after_empty = 30
  consolidation           = { enabled = true }`), "ttl_seconds_after_empty"},
		{"negative expiry", withRef(`  ttl_seconds_until_expired = -1`), "ttl_seconds_until_expired"},
		{"weight", withRef(`  weight = 101`), "weight"},
		{"consolidation min_savings_per_hour", withRef(`  consolidation = { min_savings_per_hour = "-1" }`), "consolidation.min_savings_per_hour"},
		{"consolidation min_savings_percent", withRef(`  consolidation = { min_savings_percent = -5 }`), "consolidation.min_savings_percent"},
		{"consolidation min_savings_per_pod", withRef(`  consolidation = { min_savings_per_pod = "$0.01" }`), "consolidation.min_savings_per_pod"},
		{"limits quantity", withRef(`  limits = { memory = "a lot" }`), `limits["memory"]`},
		{"kubelet pods per core", withRef(`  kubelet_configuration = { pods_per_core = -1 }`), "kubelet_configuration.pods_per_core"},
	}
	runValidationCases(t, "Invalid Provisioner", cases)
}
