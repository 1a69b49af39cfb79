# EC2 nodes: AL2023, subnets and security groups found by tag, a 100 GiB gp3
# root volume and IMDSv2 only.
resource "tenon_node_class" "default" {
  name = "default"
  aws = {
    ami_family                    = "AL2023"
    role                          = "KarpenterNodeRole-prod"
    subnet_selector_terms         = [{ tags = { "tenon.dev/discovery" = "prod" } }]
    security_group_selector_terms = [{ tags = { "tenon.dev/discovery" = "prod" } }]
    tags                          = { team = "platform" }
    block_device_mappings = [{
      device_name = "/dev/xvda"
      root_volume = true
      ebs         = { volume_size = "100Gi", volume_type = "gp3", encrypted = true }
    }]
    kubelet = { max_pods = 110 }
    # Capacity reservations (and capacity blocks) tagged for this cluster:
    # pools that allow the capacity type "reserved" fill them first.
    capacity_reservation_selector_terms = [{ tags = { "tenon.dev/discovery" = "prod" } }]
  }
}

# Simulated nodes for a local cluster with KWOK.
resource "tenon_node_class" "local" {
  name = "local"
  kwok = {}
}
