package v1alpha5

import v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"

// AMI families an inline provider may name: the NodeClass's.
const (
	// AMIFamilyAL2023 is Amazon Linux 2023, the NodeClass default.
	AMIFamilyAL2023 = v1.AMIFamilyAL2023
	// AMIFamilyBottlerocket is Bottlerocket.
	AMIFamilyBottlerocket = v1.AMIFamilyBottlerocket
	// AMIFamilyCustom is an AMI of your own, selected by amiSelector.
	AMIFamilyCustom = v1.AMIFamilyCustom
)

// Provider is the inline AWS configuration of a provisioner's nodes, Karpenter's v1alpha5
// provider block with types instead of free-form JSON. It converts to the aws block of a
// NodeClass named after the provisioner. Selecting subnets, security groups or AMIs by ID
// (Karpenter's aws-ids and aws:: keys) needs a NodeClass and providerRef.
//
// +kubebuilder:validation:XValidation:rule="!has(self.amiFamily) || self.amiFamily != 'Custom' || has(self.amiSelector)",message="amiFamily Custom requires amiSelector; add tags selecting your AMIs, or use amiFamily AL2023 or Bottlerocket",fieldPath=".amiSelector"
type Provider struct {
	// AMIFamily is the operating system family of the nodes: AL2023 (the NodeClass default),
	// Bottlerocket, or Custom (requires amiSelector).
	// +kubebuilder:validation:Enum=AL2023;Bottlerocket;Custom
	// +optional
	AMIFamily string `json:"amiFamily,omitempty"`
	// AMISelector selects the AMIs carrying all these tags instead of the family's default. A
	// value of "*" matches any value.
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('aws::') && k != 'aws-ids')",message="aws-ids and aws:: keys select AMIs by ID, name or owner, which an inline provider cannot express; use a NodeClass with amiSelectorTerms and providerRef"
	// +optional
	AMISelector v1.SelectorTags `json:"amiSelector,omitempty"`
	// InstanceProfile is the IAM instance profile of the nodes.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +required
	InstanceProfile string `json:"instanceProfile,omitempty"`
	// SubnetSelector selects the subnets carrying all these tags. A value of "*" matches any
	// value. Absent means the subnets tagged kubernetes.io/cluster/<cluster-name>.
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('aws::') && k != 'aws-ids')",message="aws-ids and aws:: keys select subnets by ID, which an inline provider cannot express; use a NodeClass with subnetSelectorTerms and providerRef"
	// +optional
	SubnetSelector v1.SelectorTags `json:"subnetSelector,omitempty"`
	// SecurityGroupSelector selects the security groups carrying all these tags. A value of "*"
	// matches any value. Absent means the security groups tagged
	// kubernetes.io/cluster/<cluster-name>.
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('aws::') && k != 'aws-ids')",message="aws-ids and aws:: keys select security groups by ID or name, which an inline provider cannot express; use a NodeClass with securityGroupSelectorTerms and providerRef"
	// +optional
	SecurityGroupSelector v1.SelectorTags `json:"securityGroupSelector,omitempty"`
	// Tags are put on the instances, volumes and launch templates. The agent sets
	// tenon.dev/cluster, tenon.dev/nodepool, tenon.dev/nodeclaim and kubernetes.io/cluster/*
	// itself; they cannot be set here.
	// +optional
	Tags v1.Tags `json:"tags,omitempty"`
}
