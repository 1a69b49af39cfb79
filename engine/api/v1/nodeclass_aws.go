package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// AMI families.
const (
	// AMIFamilyAL2023 is Amazon Linux 2023, bootstrapped with nodeadm. The default.
	AMIFamilyAL2023 = "AL2023"
	// AMIFamilyBottlerocket is Bottlerocket, configured with TOML user data.
	AMIFamilyBottlerocket = "Bottlerocket"
	// AMIFamilyCustom is an AMI of your own, selected by amiSelectorTerms; the agent adds no
	// bootstrap user data.
	AMIFamilyCustom = "Custom"
)

// AWSNodeClassSpec says how to launch EC2 instances: which AMI, in which subnets, with which
// security groups, IAM identity, tags, disks, metadata options, user data and kubelet settings.
//
// +kubebuilder:validation:XValidation:rule="has(self.role) || has(self.instanceProfile)",message="set role (the agent manages an instance profile for it) or instanceProfile (an existing profile)"
// +kubebuilder:validation:XValidation:rule="!has(self.role) || !has(self.instanceProfile)",message="role and instanceProfile are exclusive; keep one",fieldPath=".instanceProfile"
// +kubebuilder:validation:XValidation:rule="!has(self.amiFamily) || self.amiFamily != 'Custom' || has(self.amiSelectorTerms)",message="amiFamily Custom requires amiSelectorTerms; add terms selecting your AMIs, or use amiFamily AL2023 or Bottlerocket",fieldPath=".amiSelectorTerms"
type AWSNodeClassSpec struct {
	// AMIFamily is the operating system family of the nodes: AL2023 (the default), Bottlerocket,
	// or Custom. It decides the bootstrap user data; without amiSelectorTerms the agent uses the
	// family's latest EKS-optimized AMI from its public SSM parameter.
	// +kubebuilder:default=AL2023
	// +kubebuilder:validation:Enum=AL2023;Bottlerocket;Custom
	// +optional
	AMIFamily string `json:"amiFamily,omitempty"`
	// AMISelectorTerms select the AMIs instead of the family's default. Terms are ORed; the fields
	// of one term are ANDed. Required when amiFamily is Custom.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=30
	// +optional
	AMISelectorTerms []AMISelectorTerm `json:"amiSelectorTerms,omitempty"`
	// SubnetSelectorTerms select the subnets nodes are launched in. Terms are ORed. Absent means
	// the subnets tagged kubernetes.io/cluster/<cluster-name>.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=30
	// +optional
	SubnetSelectorTerms []SubnetSelectorTerm `json:"subnetSelectorTerms,omitempty"`
	// SecurityGroupSelectorTerms select the security groups of the nodes. Terms are ORed. Absent
	// means the security groups tagged kubernetes.io/cluster/<cluster-name>.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=30
	// +optional
	SecurityGroupSelectorTerms []SecurityGroupSelectorTerm `json:"securityGroupSelectorTerms,omitempty"`
	// Role is the IAM role of the nodes; the agent creates and manages an instance profile for it.
	// Exclusive with instanceProfile.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Role string `json:"role,omitempty"`
	// InstanceProfile is an existing IAM instance profile for the nodes. Exclusive with role.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +optional
	InstanceProfile string `json:"instanceProfile,omitempty"`
	// Tags are put on the instances, volumes and launch templates. The agent sets
	// tenon.dev/cluster, tenon.dev/nodepool, tenon.dev/nodeclaim and kubernetes.io/cluster/*
	// itself; they cannot be set here.
	// +optional
	Tags Tags `json:"tags,omitempty"`
	// BlockDeviceMappings are the disks of the nodes. Absent means the family's default root volume.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:XValidation:rule="self.filter(x, has(x.rootVolume) && x.rootVolume).size() <= 1",message="only one block device mapping can be the root volume; set rootVolume on one of them"
	// +optional
	BlockDeviceMappings []BlockDeviceMapping `json:"blockDeviceMappings,omitempty"`
	// MetadataOptions configure the instance metadata service (IMDS) of the nodes. The default
	// requires IMDSv2 tokens with a hop limit of 1, so pods cannot reach the node's credentials.
	// +kubebuilder:default={httpEndpoint: "enabled", httpProtocolIPv6: "disabled", httpPutResponseHopLimit: 1, httpTokens: "required"}
	// +optional
	MetadataOptions *MetadataOptions `json:"metadataOptions,omitempty"`
	// UserData is merged with the bootstrap user data of the AMI family (nodeadm YAML or MIME
	// for AL2023, TOML for Bottlerocket); with Custom it is used as is.
	// +kubebuilder:validation:MaxLength=16384
	// +optional
	UserData *string `json:"userData,omitempty"`
	// Kubelet overrides kubelet settings of the nodes.
	// +optional
	Kubelet *KubeletConfiguration `json:"kubelet,omitempty"`
	// CapacityReservationSelectorTerms select the EC2 On-Demand Capacity Reservations and
	// capacity blocks (for ML) nodes may launch into. Terms are ORed; the fields of one term are
	// ANDed. A pool whose requirements allow the capacity type reserved launches into them first,
	// at near-zero marginal cost, until their available count is used up; see
	// docs/guides/reserved-capacity.md.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=30
	// +optional
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms,omitempty"`
}

// Instance match criteria of a capacity reservation.
const (
	// InstanceMatchCriteriaOpen reservations take any matching instance, targeted or not.
	InstanceMatchCriteriaOpen = "open"
	// InstanceMatchCriteriaTargeted reservations take only instances launched into them by ID.
	InstanceMatchCriteriaTargeted = "targeted"
)

// Capacity reservation types, the values of the tenon.dev/capacity-reservation-type label.
const (
	// CapacityReservationTypeDefault is an On-Demand Capacity Reservation.
	CapacityReservationTypeDefault = "default"
	// CapacityReservationTypeCapacityBlock is a capacity block for ML: it ends at a set time,
	// and EC2 terminates its instances then.
	CapacityReservationTypeCapacityBlock = "capacity-block"
)

// CapacityReservationSelectorTerm selects capacity reservations by ID, or by tags, owner and
// instance match criteria.
//
// +kubebuilder:validation:XValidation:rule="has(self.tags) || has(self.id) || has(self.instanceMatchCriteria)",message="a capacity reservation selector term needs id, tags or instanceMatchCriteria; add one"
// +kubebuilder:validation:XValidation:rule="!has(self.id) || !(has(self.tags) || has(self.ownerID) || has(self.instanceMatchCriteria))",message="id selects one capacity reservation on its own; remove tags, ownerID and instanceMatchCriteria from this term",fieldPath=".id"
type CapacityReservationSelectorTerm struct {
	// ID is a capacity reservation ID such as cr-0123456789abcdef0.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^cr-[0-9a-z]+$')",message="id must be a capacity reservation ID such as cr-0123456789abcdef0"
	// +optional
	ID string `json:"id,omitempty"`
	// Tags select the reservations carrying all of them. A value of "*" matches any value.
	// +optional
	Tags SelectorTags `json:"tags,omitempty"`
	// OwnerID is the 12-digit account that owns the reservations (one shared with this account
	// through AWS RAM). Absent means any owner.
	// +kubebuilder:validation:MaxLength=12
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{12}$')",message="ownerID must be a 12-digit AWS account ID such as 123456789012"
	// +optional
	OwnerID string `json:"ownerID,omitempty"`
	// InstanceMatchCriteria selects reservations that take any matching instance (open) or only
	// instances launched into them by ID (targeted). Absent means both.
	// +kubebuilder:validation:Enum=open;targeted
	// +optional
	InstanceMatchCriteria string `json:"instanceMatchCriteria,omitempty"`
}

// SubnetSelectorTerm selects subnets by tags or by ID.
//
// +kubebuilder:validation:XValidation:rule="has(self.tags) || has(self.id)",message="a subnet selector term needs tags or id; add one"
// +kubebuilder:validation:XValidation:rule="!has(self.tags) || !has(self.id)",message="id selects one subnet on its own; use tags or id in a term, not both (terms are ORed)",fieldPath=".id"
type SubnetSelectorTerm struct {
	// Tags select the subnets carrying all of them. A value of "*" matches any value.
	// +optional
	Tags SelectorTags `json:"tags,omitempty"`
	// ID is a subnet ID such as subnet-0123456789abcdef0.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^subnet-[0-9a-z]+$')",message="id must be a subnet ID such as subnet-0123456789abcdef0"
	// +optional
	ID string `json:"id,omitempty"`
}

// SecurityGroupSelectorTerm selects security groups by tags, ID or name.
//
// +kubebuilder:validation:XValidation:rule="[has(self.tags), has(self.id), has(self.name)].exists_one(x, x)",message="a security group selector term needs exactly one of tags, id or name; put each in its own term (terms are ORed)"
type SecurityGroupSelectorTerm struct {
	// Tags select the security groups carrying all of them. A value of "*" matches any value.
	// +optional
	Tags SelectorTags `json:"tags,omitempty"`
	// ID is a security group ID such as sg-0123456789abcdef0.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^sg-[0-9a-z]+$')",message="id must be a security group ID such as sg-0123456789abcdef0"
	// +optional
	ID string `json:"id,omitempty"`
	// Name is a security group name (the group's name, not its Name tag).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name string `json:"name,omitempty"`
}

// AMISelectorTerm selects AMIs by tags, ID, name (with owner) or SSM parameter.
//
// +kubebuilder:validation:XValidation:rule="has(self.tags) || has(self.id) || has(self.name) || has(self.ssmParameter)",message="an AMI selector term needs tags, id, name or ssmParameter; add one"
// +kubebuilder:validation:XValidation:rule="!has(self.id) || !(has(self.tags) || has(self.name) || has(self.owner) || has(self.ssmParameter))",message="id selects one AMI on its own; remove tags, name, owner and ssmParameter from this term",fieldPath=".id"
// +kubebuilder:validation:XValidation:rule="!has(self.ssmParameter) || has(self.id) || !(has(self.tags) || has(self.name) || has(self.owner))",message="ssmParameter selects one AMI on its own; remove tags, name and owner from this term",fieldPath=".ssmParameter"
type AMISelectorTerm struct {
	// Tags select the AMIs carrying all of them. A value of "*" matches any value.
	// +optional
	Tags SelectorTags `json:"tags,omitempty"`
	// ID is an AMI ID such as ami-0123456789abcdef0.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^ami-[0-9a-z]+$')",message="id must be an AMI ID such as ami-0123456789abcdef0"
	// +optional
	ID string `json:"id,omitempty"`
	// Name is an AMI name, with * as a wildcard.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +optional
	Name string `json:"name,omitempty"`
	// Owner is the AMI owner: an account ID, self, amazon or aws-marketplace. Absent means self
	// and amazon.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Owner string `json:"owner,omitempty"`
	// SSMParameter is the name or ARN of an SSM parameter holding an AMI ID.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	SSMParameter string `json:"ssmParameter,omitempty"`
}

// BlockDeviceMapping is one disk of the nodes.
type BlockDeviceMapping struct {
	// DeviceName is the device name, such as /dev/xvda.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	DeviceName string `json:"deviceName"`
	// EBS configures an EBS volume for the device.
	// +optional
	EBS *BlockDevice `json:"ebs,omitempty"`
	// RootVolume marks the device the kubelet's root directory lives on. At most one device may
	// set it.
	// +optional
	RootVolume bool `json:"rootVolume,omitempty"`
}

// BlockDevice is an EBS volume.
//
// +kubebuilder:validation:XValidation:rule="has(self.snapshotID) || has(self.volumeSize)",message="ebs needs volumeSize (such as 100Gi) or snapshotID; add one"
type BlockDevice struct {
	// DeleteOnTermination deletes the volume with the instance. Absent means true.
	// +optional
	DeleteOnTermination *bool `json:"deleteOnTermination,omitempty"`
	// Encrypted encrypts the volume.
	// +optional
	Encrypted *bool `json:"encrypted,omitempty"`
	// IOPS is the provisioned IOPS of io1, io2 and gp3 volumes.
	// +kubebuilder:validation:Minimum=0
	// +optional
	IOPS *int64 `json:"iops,omitempty"`
	// KMSKeyID is the KMS key (ID, alias or ARN) encrypting the volume.
	// +optional
	KMSKeyID *string `json:"kmsKeyID,omitempty"`
	// SnapshotID is the EBS snapshot the volume is created from.
	// +optional
	SnapshotID *string `json:"snapshotID,omitempty"`
	// Throughput is the provisioned throughput of gp3 volumes, in MiB/s.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Throughput *int64 `json:"throughput,omitempty"`
	// VolumeSize is the size of the volume, such as 100Gi.
	// +optional
	VolumeSize *resource.Quantity `json:"volumeSize,omitempty"`
	// VolumeType is the EBS volume type.
	// +kubebuilder:validation:Enum=standard;io1;io2;gp2;sc1;st1;gp3
	// +optional
	VolumeType *string `json:"volumeType,omitempty"`
}

// MetadataOptions configure the instance metadata service of the nodes.
type MetadataOptions struct {
	// HTTPEndpoint turns the metadata service on (enabled, the default) or off (disabled).
	// +kubebuilder:default=enabled
	// +kubebuilder:validation:Enum=enabled;disabled
	// +optional
	HTTPEndpoint *string `json:"httpEndpoint,omitempty"`
	// HTTPProtocolIPv6 turns the metadata service's IPv6 endpoint on (enabled) or off (disabled,
	// the default).
	// +kubebuilder:default=disabled
	// +kubebuilder:validation:Enum=enabled;disabled
	// +optional
	HTTPProtocolIPv6 *string `json:"httpProtocolIPv6,omitempty"`
	// HTTPPutResponseHopLimit is how many network hops a metadata response may travel, 1 to 64;
	// the default 1 keeps it from reaching pods.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	HTTPPutResponseHopLimit *int64 `json:"httpPutResponseHopLimit,omitempty"`
	// HTTPTokens is required (the default: IMDSv2 only) or optional (IMDSv1 allowed).
	// +kubebuilder:default=required
	// +kubebuilder:validation:Enum=required;optional
	// +optional
	HTTPTokens *string `json:"httpTokens,omitempty"`
}
