// Package v1 holds the tenon.dev/v1 API: NodePool (the capacity policy), NodeClass (how a cloud
// launches nodes) and NodeClaim (the agent's durable record of one node it asked for).
//
// Field names follow Karpenter's v1 API so its users feel at home and conversion is mechanical.
// Every rule that can be checked without cluster state lives twice: as kubebuilder markers (OpenAPI
// schema and CEL) in the generated CRDs, so the API server enforces it, and as Validate methods
// returning field errors with exact paths, so the Terraform provider reports it at plan time. The
// twin tests run both over the same inputs.
//
// +kubebuilder:object:generate=true
// +groupName=tenon.dev
package v1
