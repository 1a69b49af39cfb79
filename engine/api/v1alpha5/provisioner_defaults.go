package v1alpha5

import v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"

// Defaults, the same as the CRD's (the defaulting twin test compares them).
const (
	// DefaultProviderRefAPIVersion is the apiVersion of a providerRef that does not set one.
	DefaultProviderRefAPIVersion = Group + "/" + v1.Version
	// DefaultProviderRefKind is the kind of a providerRef that does not set one.
	DefaultProviderRefKind = v1.NodeClassKind
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
