// Package cloud is the contract between the agent and the clouds it launches
// nodes in (DESIGN §8): the CloudProvider interface, the typed errors the agent
// acts on, and the interruption events a cloud may raise. Implementations live
// in the sub-packages aws, kwok and fake.
//
// A NodeClaim is the agent's durable record of one node it asked for. The agent
// persists it before calling Create, so Create must be idempotent for a claim:
// calling it twice for the same claim (after a crash, or a retried request)
// must never launch two instances.
package cloud

import (
	"context"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// CloudProvider launches, finds and removes the instances behind NodeClaims.
//
// Every method is safe for concurrent use and honours ctx.
type CloudProvider interface {
	// Name is the provider's short name ("aws", "kwok", "fake"), used in
	// provider IDs, logs and metrics.
	Name() string

	// Create launches one instance for claim, choosing among the instance
	// types, zones and capacity types its requirements allow (the
	// node.kubernetes.io/instance-type requirement lists the options cheapest
	// first). It returns a copy of claim whose status carries the provider ID,
	// instance type, zone, capacity type, image, capacity and allocatable.
	//
	// Errors: an *InsufficientCapacityError when no allowed offering has
	// capacity (the offerings tried are marked unavailable for a while, so a
	// retry picks others); a *NodeClassNotReadyError when the claim's
	// NodeClass cannot launch yet. Create is idempotent per claim.
	Create(ctx context.Context, claim *v1.NodeClaim) (*v1.NodeClaim, error)

	// Delete terminates the instance behind claim, found by its provider ID
	// or, when the claim has none yet (it was deleted while its launch was in
	// flight), by the claim's name. It returns a *NotFoundError when the
	// instance is already gone or was never made, which callers treat as
	// success.
	Delete(ctx context.Context, claim *v1.NodeClaim) error

	// Get returns the instance with providerID as a claim whose status is
	// filled, or a *NotFoundError.
	Get(ctx context.Context, providerID string) (*v1.NodeClaim, error)

	// List returns every instance this provider launched for the cluster,
	// including ones no claim tracks any more (the agent garbage-collects
	// those after a grace period).
	List(ctx context.Context) ([]*v1.NodeClaim, error)

	// InstanceTypes returns the instance types, with their offerings and
	// prices, that pool's NodeClass can launch; they are not yet filtered by
	// the pool's requirements.
	InstanceTypes(ctx context.Context, pool *state.Pool) ([]*catalog.InstanceType, error)

	// IsDrifted reports why the instance behind claim no longer matches what
	// its NodeClass resolves to now (image, subnets, security groups), or ""
	// when it does not.
	IsDrifted(ctx context.Context, claim *v1.NodeClaim) (DriftReason, error)
	// RepairPolicies lists the node conditions this cloud calls unhealthy
	// and how long each is tolerated before node repair replaces the node
	// (in pools with disruption.repair on): at least Ready False and
	// Unknown (state.ReadyRepairPolicies), plus the conditions its node
	// health agents set.
	RepairPolicies() []state.RepairPolicy
}

// DriftReason says why an instance drifted from its NodeClass, for conditions
// and events; "" means not drifted.
type DriftReason string

// Drift reasons the providers report.
const (
	DriftImage         DriftReason = "ImageDrift"
	DriftSubnet        DriftReason = "SubnetDrift"
	DriftSecurityGroup DriftReason = "SecurityGroupDrift"
	DriftNodeClass     DriftReason = "NodeClassDrift"
	// DriftCapacityBlockExpiring: the node runs in an EC2 capacity block
	// that ends soon; it is replaced before the cloud reclaims it.
	DriftCapacityBlockExpiring DriftReason = "CapacityBlockExpiring"
)

// InterruptionKind is what a cloud said is about to happen to an instance.
type InterruptionKind string

// Interruption kinds. Spot interruptions, scheduled changes and state changes
// make the agent cordon and drain the node and launch a replacement;
// rebalance recommendations are only recorded as events.
const (
	SpotInterruption        InterruptionKind = "SpotInterruption"
	RebalanceRecommendation InterruptionKind = "RebalanceRecommendation"
	ScheduledChange         InterruptionKind = "ScheduledChange"
	StateChange             InterruptionKind = "StateChange"
)

// Interruption is one event about one instance.
type Interruption struct {
	// Kind is what is about to happen.
	Kind InterruptionKind
	// ProviderID identifies the instance, as in NodeClaim status.
	ProviderID string
	// Time is when the cloud raised the event.
	Time time.Time
	// Deadline is when the instance will be gone; zero when unknown.
	Deadline time.Time
	// Detail is a human-readable summary for events and logs (for state
	// changes, the new state).
	Detail string
	// Handle identifies the event to its source, for Done (an SQS receipt
	// handle, for example).
	Handle string
}

// InterruptionSource delivers interruption events. Events are removed from
// the source only after Done, so an agent that crashes mid-way sees them again.
type InterruptionSource interface {
	// Receive waits for the next events, up to the source's own long-poll
	// time, and returns them (possibly none). Malformed messages are logged
	// and removed by the source itself, never returned.
	Receive(ctx context.Context) ([]Interruption, error)
	// Done removes a handled event from the source.
	Done(ctx context.Context, ev Interruption) error
}
