package scheduling

// TopologyDomain is a node's domain for a topology key: its name for
// hostname, else its label ("" when it has none).
func TopologyDomain(key, nodeName string, nodeLabels map[string]string) string {
	if key == LabelHostname {
		return nodeName
	}
	return nodeLabels[key]
}
