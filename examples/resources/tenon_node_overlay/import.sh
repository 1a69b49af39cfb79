# A NodeOverlay is imported by its name.
terraform import tenon_node_overlay.savings_plan savings-plan-m6i
