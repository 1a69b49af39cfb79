package v1

// Tags are AWS tags put on the instances, volumes and launch templates of the nodes. The agent
// sets tenon.dev/cluster, tenon.dev/nodepool, tenon.dev/nodeclaim and kubernetes.io/cluster/*
// itself; they cannot be set here. A NodeClass's aws.tags and a v1alpha5 Provisioner's inline
// provider.tags are this type, so the CRDs check them alike.
//
// +kubebuilder:validation:MaxProperties=40
// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) > 0 && size(k) <= 128)",message="tag keys must be 1 to 128 characters"
// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 256)",message="tag values must be at most 256 characters"
// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('kubernetes.io/cluster/'))",message="tag keys starting with kubernetes.io/cluster/ are set by the agent; remove the tag"
// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['tenon.dev/cluster', 'tenon.dev/nodepool', 'tenon.dev/nodeclaim']))",message="tags tenon.dev/cluster, tenon.dev/nodepool and tenon.dev/nodeclaim are set by the agent; remove the tag"
type Tags map[string]string

// The markers of SelectorTags stand apart from its doc comment because gofmt would rewrite the
// rule's '' (CEL's empty string) in a doc comment into a typographic quote.
//
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=20
// +kubebuilder:validation:XValidation:rule="self.all(k, k != '' && self[k] != '')",message="tag keys and values must not be empty; use '*' to match any value"

// SelectorTags select the AWS resources (subnets, security groups, AMIs) carrying all of them. A
// value of "*" matches any value. The selector terms of a NodeClass and the selectors of a
// v1alpha5 Provisioner's inline provider are this type, so the CRDs check them alike.
type SelectorTags map[string]string
