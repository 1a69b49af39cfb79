package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The List types: what the API server answers a list or watch of each kind with. controller-gen
// and the scheme need each as a Go type of its own; addKnownTypes registers them beside their
// kinds.

// NodePoolList is a list of NodePools.
//
// +kubebuilder:object:root=true
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the NodePools.
	Items []NodePool `json:"items"`
}

// NodeClassList is a list of NodeClasses.
//
// +kubebuilder:object:root=true
type NodeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the NodeClasses.
	Items []NodeClass `json:"items"`
}

// NodeClaimList is a list of NodeClaims.
//
// +kubebuilder:object:root=true
type NodeClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the NodeClaims.
	Items []NodeClaim `json:"items"`
}
