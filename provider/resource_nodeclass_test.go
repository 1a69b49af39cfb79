package provider

import "testing"

func nodeClassHCL(body string) string {
	return "resource \"tenon_node_class\" \"test\" {\n  name = \"nc\"\n" + body + "\n}\n"
}

func awsHCL(inner string) string {
	return nodeClassHCL("  aws = {\n    role = \"nodes\"\n" + inner + "\n  }")
}

func TestNodeClassValidationAtPlan(t *testing.T) {
	cases := []validationCase{
		{"no cloud block", nodeClassHCL(""), ""},
		{"two cloud blocks", nodeClassHCL("  kwok = {}\n  aws = { role = \"nodes\" }"), "kwok"},
		{"no identity", nodeClassHCL("  aws = { ami_family = \"AL2023\" }"), "aws"},
		{"role and instance profile", awsHCL(`    instance_profile = "p"`), "aws.instance_profile"},
		{"ami family", awsHCL(`    ami_family = "Windows"`), "aws.ami_family"},
		{"custom without selectors", awsHCL(`    ami_family = "Custom"`), "aws.ami_selector_terms"},
		{"subnet id", awsHCL(`    subnet_selector_terms = [{ id = "vpc-1" }]`), "aws.subnet_selector_terms[0].id"},
		{"restricted tag", awsHCL(`    tags = { "tenon.dev/cluster" = "x" }`), `aws.tags["tenon.dev/cluster"]`},
		{"http tokens", awsHCL(`    metadata_options = { http_tokens = "maybe" }`), "aws.metadata_options.http_tokens"},
		{"hop limit", awsHCL(`    metadata_options = { http_put_response_hop_limit = 100 }`), "aws.metadata_options.http_put_response_hop_limit"},
		{"volume type", awsHCL(`    block_device_mappings = [{ device_name = "/dev/xvda", ebs = { volume_size = "20Gi", volume_type = "ssd" } }]`),
			"aws.block_device_mappings[0].ebs.volume_type"},
		{"volume size", awsHCL(`    block_device_mappings = [{ device_name = "/dev/xvda", ebs = { volume_size = "big" } }]`),
			"aws.block_device_mappings[0].ebs.volume_size"},
		{"two root volumes", awsHCL(`    block_device_mappings = [
      { device_name = "/dev/xvda", root_volume = true },
      { device_name = "/dev/xvdb", root_volume = true },
    ]`), "aws.block_device_mappings[1].root_volume"},
		{"max pods", awsHCL(`    kubelet = { max_pods = 0 }`), "aws.kubelet.max_pods"},
		{"image gc thresholds", awsHCL(`    kubelet = {
      image_gc_high_threshold_percent = 50
      image_gc_low_threshold_percent  = 60
    }`), "aws.kubelet.image_gc_low_threshold_percent"},
		{"ebs without size or snapshot", awsHCL(`    block_device_mappings = [{ device_name = "/dev/xvda", ebs = { encrypted = true } }]`), "aws.block_device_mappings[0].ebs"},
		{"empty security group term", awsHCL(`    security_group_selector_terms = [{}]`), "aws.security_group_selector_terms[0]"},
		{"empty reservation term", awsHCL(`    capacity_reservation_selector_terms = [{}]`), "aws.capacity_reservation_selector_terms[0]"},
		{"reservation id", awsHCL(`    capacity_reservation_selector_terms = [{ id = "odcr-1" }]`), "aws.capacity_reservation_selector_terms[0].id"},
		{"reservation owner", awsHCL(`    capacity_reservation_selector_terms = [{ tags = { team = "ml" }, owner_id = "12" }]`), "aws.capacity_reservation_selector_terms[0].owner_id"},
		{"ami id", awsHCL(`    ami_selector_terms = [{ id = "image-1" }]`), "aws.ami_selector_terms[0].id"},
		{"reserved resource", awsHCL(`    kubelet = { system_reserved = { gpu = "1" } }`), `aws.kubelet.system_reserved["gpu"]`},
		{"soft eviction without grace", awsHCL(`    kubelet = { eviction_soft = { "memory.available" = "10%" } }`), "aws.kubelet.eviction_soft_grace_period"},
	}
	runValidationCases(t, "Invalid NodeClass", cases)
}
