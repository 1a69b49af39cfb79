// Package v1alpha5 holds the tenon.dev/v1alpha5 API: the Provisioner, the shape Karpenter's
// v1alpha5 users know from tutorials and their own clusters. Field names are Karpenter's, so
// `tenon convert` maps a karpenter.sh/v1alpha5 Provisioner to this one mechanically.
//
// A Provisioner is one NodePool and, when its provider is inline, one NodeClass: ToNodePool and
// FromNodePool translate between them without losing anything, and the agent runs a Provisioner
// exactly as it runs the NodePool it maps to. As in package v1, every rule checkable without
// cluster state lives twice, as kubebuilder markers (OpenAPI schema and CEL) in the generated
// CRD and as Validate returning field errors with exact paths; the twin tests run both.
//
// +kubebuilder:object:generate=true
// +groupName=tenon.dev
package v1alpha5
