# A NodeClass is imported by its name.
terraform import tenon_node_class.default default
