package v1

// ConditionReady is the condition every tenon.dev/v1 kind reports: true when the object is ready
// for use; on a NodePool when its NodeClass is ready and its spec passed validation.
const ConditionReady = "Ready"

// NodePool condition types (besides ConditionReady).
const (
	// ConditionNodeClassReady mirrors on a NodePool the readiness of the NodeClass it references.
	ConditionNodeClassReady = "NodeClassReady"
	// ConditionValidationSucceeded is false on a NodePool the agent found invalid at run time.
	ConditionValidationSucceeded = "ValidationSucceeded"
)

// NodeClass condition types (besides ConditionReady).
const (
	// ConditionSubnetsReady is true when the AWS subnet selector resolved to at least one subnet.
	ConditionSubnetsReady = "SubnetsReady"
	// ConditionSecurityGroupsReady is true when the AWS security group selector resolved to at least one group.
	ConditionSecurityGroupsReady = "SecurityGroupsReady"
	// ConditionAMIsReady is true when the AMI family or selector resolved to at least one AMI.
	ConditionAMIsReady = "AMIsReady"
	// ConditionInstanceProfileReady is true when the instance profile exists (or was created for the role).
	ConditionInstanceProfileReady = "InstanceProfileReady"
)

// NodeClaim condition types (besides ConditionReady). A claim goes Launched, then Registered,
// then Initialized; the disruption conditions are set while it lives.
const (
	// ConditionLaunched is true once the cloud provider created the instance.
	ConditionLaunched = "Launched"
	// ConditionRegistered is true once the instance's node joined the cluster.
	ConditionRegistered = "Registered"
	// ConditionInitialized is true once the node is Ready and its startup taints are gone.
	ConditionInitialized = "Initialized"
	// ConditionDrifted is true when the node no longer matches its NodePool or NodeClass.
	ConditionDrifted = "Drifted"
	// ConditionExpired is true when the node outlived its expireAfter.
	ConditionExpired = "Expired"
	// ConditionEmpty is true when the node runs no workload pods.
	ConditionEmpty = "Empty"
	// ConditionConsolidatable is true when consolidation may consider the node (consolidateAfter passed).
	ConditionConsolidatable = "Consolidatable"
	// ConditionDisrupting is true while the agent is disrupting the node.
	ConditionDisrupting = "Disrupting"
	// ConditionUnconsolidatable is true while consolidation keeps a node it considered; its
	// reason names the rule that held it back when one did (DoNotDisrupt, DisruptionBudget, PendingPods; Kept otherwise)
	// and its message is consolidation's own explanation, as `tenon simulate --consolidate`
	// prints it. The condition goes when a command takes the node.
	ConditionUnconsolidatable = "Unconsolidatable"
)
