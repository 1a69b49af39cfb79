package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeClass says how a cloud launches nodes: exactly one cloud block, aws for EC2 or kwok for
// simulated nodes. NodePools reference it by name.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=nodeclasses,scope=Cluster,categories=tenon,shortName=nc
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description="Whether nodes can be launched with this class"
// +kubebuilder:printcolumn:name="AMIFamily",type="string",JSONPath=".spec.aws.amiFamily",description="The AWS AMI family"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="Role",type="string",JSONPath=".spec.aws.role",priority=1,description="The AWS IAM role of the nodes"
// +kubebuilder:printcolumn:name="InstanceProfile",type="string",JSONPath=".status.instanceProfile",priority=1,description="The AWS instance profile of the nodes"
type NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the cloud configuration.
	// +required
	Spec NodeClassSpec `json:"spec"`
	// Status is what the agent resolved from the spec.
	// +optional
	Status NodeClassStatus `json:"status,omitempty,omitzero"`
}

// NodeClassSpec holds exactly one cloud block.
//
// +kubebuilder:validation:XValidation:rule="has(self.aws) || has(self.kwok)",message="set one cloud block: aws for EC2 or kwok for simulated nodes"
// +kubebuilder:validation:XValidation:rule="!has(self.aws) || !has(self.kwok)",message="aws and kwok are exclusive; keep one cloud block",fieldPath=".kwok"
// +kubebuilder:validation:XValidation:rule="has(self.aws) == has(oldSelf.aws)",message="the cloud block cannot change between aws and kwok; create a new NodeClass instead"
type NodeClassSpec struct {
	// AWS launches EC2 instances.
	// +optional
	AWS *AWSNodeClassSpec `json:"aws,omitempty"`
	// KWOK launches simulated nodes (Node objects that KWOK keeps Ready), for local clusters
	// and tests. It has no settings: write kwok: {}.
	// +optional
	KWOK *KWOKNodeClassSpec `json:"kwok,omitempty"`
}

// KWOKNodeClassSpec configures the KWOK simulated provider. It has no fields yet.
type KWOKNodeClassSpec struct{}

// NodeClassStatus is what the agent resolved from a NodeClass.
type NodeClassStatus struct {
	// Subnets are the AWS subnets the selector resolved to.
	// +optional
	Subnets []Subnet `json:"subnets,omitempty"`
	// SecurityGroups are the AWS security groups the selector resolved to.
	// +optional
	SecurityGroups []SecurityGroup `json:"securityGroups,omitempty"`
	// AMIs are the AWS AMIs the family or selector resolved to, with the requirements (such as
	// architecture) each one satisfies.
	// +optional
	AMIs []AMI `json:"amis,omitempty"`
	// InstanceProfile is the AWS instance profile nodes are launched with: the one named in the
	// spec, or the one the agent manages for the role.
	// +optional
	InstanceProfile string `json:"instanceProfile,omitempty"`
	// CapacityReservations are the active capacity reservations the selector resolved to, with
	// their instance type, zone and the instances still available in each.
	// +optional
	CapacityReservations []CapacityReservation `json:"capacityReservations,omitempty"`
	// Conditions are the class's conditions: Ready, SubnetsReady, SecurityGroupsReady,
	// AMIsReady, InstanceProfileReady.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// CapacityReservation is a resolved EC2 capacity reservation.
type CapacityReservation struct {
	// ID is the capacity reservation ID.
	// +required
	ID string `json:"id"`
	// InstanceType is the instance type the reservation holds.
	// +required
	InstanceType string `json:"instanceType"`
	// Zone is the availability zone of the reservation.
	// +required
	Zone string `json:"zone"`
	// OwnerID is the account that owns the reservation.
	// +optional
	OwnerID string `json:"ownerID,omitempty"`
	// InstanceMatchCriteria is open or targeted.
	// +optional
	InstanceMatchCriteria string `json:"instanceMatchCriteria,omitempty"`
	// ReservationType is default (an On-Demand Capacity Reservation) or capacity-block.
	// +optional
	ReservationType string `json:"reservationType,omitempty"`
	// AvailableInstanceCount is how many more instances the reservation can take.
	// +optional
	AvailableInstanceCount int32 `json:"availableInstanceCount,omitempty"`
	// EndTime is when the reservation ends; absent for one without an end date.
	// +optional
	EndTime *metav1.Time `json:"endTime,omitempty"`
}

// Subnet is a resolved AWS subnet.
type Subnet struct {
	// ID is the subnet ID.
	// +required
	ID string `json:"id"`
	// Zone is the availability zone name, such as eu-west-1a.
	// +required
	Zone string `json:"zone"`
	// ZoneID is the availability zone ID, such as euw1-az1.
	// +optional
	ZoneID string `json:"zoneID,omitempty"`
}

// SecurityGroup is a resolved AWS security group.
type SecurityGroup struct {
	// ID is the security group ID.
	// +required
	ID string `json:"id"`
	// Name is the security group name.
	// +optional
	Name string `json:"name,omitempty"`
}

// AMI is a resolved AWS AMI.
type AMI struct {
	// ID is the AMI ID.
	// +required
	ID string `json:"id"`
	// Name is the AMI name.
	// +optional
	Name string `json:"name,omitempty"`
	// Requirements are the node labels the AMI can serve, such as kubernetes.io/arch In [arm64].
	// +optional
	Requirements []corev1.NodeSelectorRequirement `json:"requirements,omitempty"`
}
