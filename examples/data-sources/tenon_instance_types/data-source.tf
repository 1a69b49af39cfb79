# Graviton instance types with 4 to 16 vCPUs, and their prices in us-east-1.
data "tenon_instance_types" "graviton" {
  requirements = [
    { key = "kubernetes.io/arch", operator = "In", values = ["arm64"] },
    { key = "tenon.dev/instance-cpu", operator = "Gte", values = ["4"] },
    { key = "tenon.dev/instance-cpu", operator = "Lte", values = ["16"] },
  ]
}

output "cheapest_graviton" {
  value = [for t in data.tenon_instance_types.graviton.instance_types : "${t.name}: ${t.cheapest_price_per_hour} USD/h"]
}
