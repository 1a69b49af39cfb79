package v1alpha5

// Defaults, the same as the CRD's (the defaulting twin test compares them).
const (
	// DefaultProviderRefAPIVersion is the apiVersion of a providerRef that does not set one.
	DefaultProviderRefAPIVersion = Group + "/v1"
	// DefaultProviderRefKind is the kind of a providerRef that does not set one.
	DefaultProviderRefKind = "NodeClass"
)

// SetDefaults fills the fields the API server would default, exactly as the CRD does.
func (in *Provisioner) SetDefaults() {
	if ref := in.Spec.ProviderRef; ref != nil {
		if ref.APIVersion == "" {
			ref.APIVersion = DefaultProviderRefAPIVersion
		}
		if ref.Kind == "" {
			ref.Kind = DefaultProviderRefKind
		}
	}
}
