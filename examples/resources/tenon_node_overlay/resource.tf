# A negotiated discount: m6i nodes of the general pool cost 40 % less than list price, so
# packing and consolidation prefer them where they fit.
resource "tenon_node_overlay" "savings_plan" {
  name = "savings-plan-m6i"
  requirements = [
    { key = "tenon.dev/nodepool", operator = "In", values = ["general"] },
    { key = "tenon.dev/instance-family", operator = "In", values = ["m6i"] },
  ]
  price_adjustment = "-40%"
  weight           = 10
}

# Hugepages: r6i nodes pre-allocate 2 GiB of 2 MiB pages at boot, so pods requesting
# hugepages-2Mi are packed there (and that memory is not counted for other pods).
resource "tenon_node_overlay" "hugepages" {
  name = "hugepages-r6i"
  requirements = [
    { key = "tenon.dev/instance-family", operator = "In", values = ["r6i"] },
  ]
  capacity = { "hugepages-2Mi" = "2Gi" }
}

# A flat licence fee on every spot node, below the discount in weight.
resource "tenon_node_overlay" "licence" {
  name = "licence-fee"
  requirements = [
    { key = "tenon.dev/capacity-type", operator = "In", values = ["spot"] },
  ]
  price_adjustment = "+0.005"
  weight           = 1
}
