output "node_class" {
  description = "The NodeClass the pools launch with."
  value       = tenon_node_class.default.name
}

output "node_pools" {
  description = "The NodePools."
  value       = [tenon_nodepool.general.name, tenon_nodepool.system.name, tenon_nodepool.gpu.name]
}
