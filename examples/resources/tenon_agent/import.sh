# An installed agent is imported by its namespace.
terraform import tenon_agent.this tenon-system
