# A Provisioner is imported by its name.
terraform import tenon_provisioner.default default
