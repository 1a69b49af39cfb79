# A NodePool is imported by its name.
terraform import tenon_nodepool.general general
