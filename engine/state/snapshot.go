package state

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/overlay"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Snapshot is the cluster as the engine sees it at one instant.
type Snapshot struct {
	// Pools are the node pools, normalised from NodePools and Provisioners,
	// highest weight first, then by name.
	Pools []*Pool
	// Nodes are the existing nodes and the in-flight claims (launched or
	// launching, not yet registered), sorted by name.
	Nodes []*Node
	// Pods are every pod that counts: bound (NodeName set) and pending,
	// sorted by namespace/name. Daemonset pods bound to nodes are included
	// with DaemonSet set.
	Pods []*Pod
	// DaemonSets are the daemonsets whose pods will land on new nodes.
	DaemonSets []*DaemonSet
	// PDBs are the pod disruption budgets.
	PDBs []*PDB
	// RepairPolicies are the node conditions the cloud calls unhealthy, for
	// the pools that repair nodes (Pool.Repair); nil means
	// ReadyRepairPolicies.
	RepairPolicies []RepairPolicy
	// Overlays say what became of each NodeOverlay (applied, in conflict,
	// selecting nothing), sorted by name; the pools' InstanceTypes already
	// carry the applied ones.
	Overlays []overlay.Status
}

// Pool is a NodePool or a Provisioner reduced to what the engine needs.
type Pool struct {
	Name string
	// Kind is "NodePool" or "Provisioner", for messages.
	Kind string
	// Weight orders pools: higher first. 0 when unset.
	Weight int32
	// NodeClass names the NodeClass the pool's nodes are launched with.
	NodeClass string
	// Class is that NodeClass with its defaults applied (for a Provisioner
	// with an inline provider, the class it converts to); nil when it does
	// not exist. Read-only.
	Class *v1.NodeClass
	// Labels are put on every node of the pool (template labels plus
	// tenon.dev/nodepool).
	Labels map[string]string
	// Annotations are put on every node of the pool.
	Annotations map[string]string
	// Requirements are the template requirements intersected with Labels.
	Requirements scheduling.Requirements
	// Taints are put on every node; pods must tolerate them.
	Taints []corev1.Taint
	// StartupTaints are put on new nodes until a daemon removes them; they
	// are ignored when planning where pods go.
	StartupTaints []corev1.Taint
	// Limits caps the total capacity of the pool's nodes, including
	// in-flight claims, and (ResourceNodes) their number. Empty means no
	// limit.
	Limits corev1.ResourceList
	// InstanceTypes are what the cloud offers for this pool's node class,
	// not yet filtered by Requirements.
	InstanceTypes []*catalog.InstanceType
	// ExpireAfter is how long a node may live; nil means never.
	ExpireAfter *time.Duration
	// TerminationGracePeriod bounds draining; nil means wait for PDBs forever.
	TerminationGracePeriod *time.Duration
	// Disruption is the pool's consolidation policy and budgets.
	Disruption Disruption
	// TemplateHash identifies the pool template (and node class) nodes are
	// launched from; a node whose hash differs has drifted.
	TemplateHash string
	// DisruptBarePods is set when the pool's NodePool carries the annotation
	// tenon.dev/disrupt-bare-pods: "true": pods without a controller then
	// do not block voluntary disruption of its nodes (they are evicted and
	// not recreated).
	DisruptBarePods bool
	// IgnoreKarpenterAnnotations is set when the pool's NodePool has
	// disruption.karpenterAnnotations Ignore: only tenon.dev/do-not-disrupt
	// then protects its nodes, not Karpenter's annotations
	// (v1.AnnotationKarpenterDoNotDisrupt and the v1alpha5 ones).
	IgnoreKarpenterAnnotations bool
	// Replicas is set for a static pool (NodePool spec.replicas): it keeps
	// exactly this many nodes (engine/static), packing launches none of its
	// nodes for pending pods, and consolidation leaves them alone. nil for a
	// pool that follows its pods.
	Replicas *int64
	// Repair is the pool's node repair (disruption.repair); nil when off.
	Repair *Repair
	// Buffer is the pool's capacity buffer (NodePool spec.buffer), the
	// spare room engine/buffer plans as placeholder pods; nil when none.
	// Read-only.
	Buffer *v1.CapacityBuffer
}

// Static reports whether the pool keeps a fixed number of nodes (Replicas).
func (p *Pool) Static() bool { return p.Replicas != nil }

// AnnotationDisruptBarePods on a NodePool ("true") lets consolidation and
// drift disrupt nodes that run pods without a controller.
const AnnotationDisruptBarePods = "tenon.dev/disrupt-bare-pods"

// Disruption is when and how much a pool's nodes may be disrupted.
type Disruption struct {
	// ConsolidationPolicy is WhenEmpty or WhenEmptyOrUnderutilized.
	ConsolidationPolicy string
	// ConsolidateAfter is how long a node must be stable before it is
	// consolidated; nil means never.
	ConsolidateAfter *time.Duration
	// Budgets limit how many nodes may be disrupted at once.
	Budgets []Budget
	// MinSavingsPerHour ($/h), MinSavingsPercent (0-100) and
	// MinSavingsPerPod ($/h per evicted pod) are the pool's consolidation
	// savings thresholds; nil leaves the planner's default
	// (consolidation.Options).
	MinSavingsPerHour *float64
	MinSavingsPercent *float64
	MinSavingsPerPod  *float64
}

// Budget limits disruptions, optionally only in a cron window and for some
// reasons.
type Budget struct {
	// Nodes is a count ("5") or a percentage of the pool's nodes ("10%").
	Nodes string
	// Schedule is a cron expression (UTC) opening the window; "" means
	// always active.
	Schedule string
	// Duration is how long the window stays open after Schedule fires.
	Duration *time.Duration
	// Reasons the budget applies to (Empty, Underutilized, Drifted); empty
	// means all.
	Reasons []string
}

// Node is an existing node or an in-flight claim.
type Node struct {
	Name string
	// Pool is the tenon.dev/nodepool the node belongs to; "" for nodes Tenon
	// does not manage (they still host pods and count for topology).
	Pool         string
	InstanceType string
	Zone         string
	CapacityType string
	Labels       map[string]string
	Annotations  map[string]string
	Taints       []corev1.Taint
	// Allocatable is what pods may request on the node.
	Allocatable corev1.ResourceList
	// PricePerHour is the catalog price of the node's offering; 0 when
	// unknown (unmanaged nodes).
	PricePerHour float64
	// Claim is the NodeClaim behind the node, if Tenon launched it.
	Claim string
	// InFlight is set for a claim whose node has not registered yet: it can
	// receive pods in a plan and counts toward limits.
	InFlight bool
	// Initialized is set once the node is Ready and its startup taints are
	// gone.
	Initialized bool
	// NotReady is set for a node whose Ready condition is not True (false
	// for in-flight claims and nodes that report no conditions). The
	// taints Kubernetes puts on such a node lift once it is Ready, so
	// they do not keep pods off it even after it was initialized.
	NotReady bool
	// Unschedulable is set for cordoned nodes.
	Unschedulable bool
	// MarkedForDeletion is set when the node is being drained.
	MarkedForDeletion bool
	// CreatedAt is when the node (or claim) was created.
	CreatedAt time.Time
	// TemplateHash is the pool template hash the node was launched with.
	TemplateHash string
	// LastPodEventTime is when a pod was last bound to or removed from the
	// node, from its NodeClaim's status; zero when unknown. The agent keeps
	// it current on the claim (so the clock survives restarts) and in the
	// Snapshot it plans on.
	LastPodEventTime time.Time
	// Nominated is set when pods not bound yet are expected on the node:
	// the agent nominated them to it, or a solve of the pending pods places
	// them there. Disruption leaves such a node alone, since removing it
	// would only launch another for the same pods. Files never set it.
	Nominated bool
	// ReservedSlot is set on the nodes packing.Solve adds for the instances
	// capacity reservations can still take (engine/packing, reserved.go):
	// room that costs nothing until pods are put on it, and that counts
	// toward the pool's limits only then. Snapshots never carry it outside
	// a solve.
	ReservedSlot bool
	// Conditions are the node's status conditions (none for an in-flight
	// claim), which node repair matches against RepairPolicies.
	Conditions []Condition
	// Held, set by the agent, says why no voluntary disruption may take
	// the node now: a disruption command is in flight on it, or it is a
	// replacement such a command launched a short while ago (consolidating
	// it again would be a chain of replace-then-replace-again). "" for
	// none; files never set it.
	Held string
}

// Pod is a pod reduced to what scheduling needs.
type Pod struct {
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	// NodeName is the node the pod is bound to; "" when pending.
	NodeName string
	// Requests are the pod's effective requests: the larger of the init
	// containers' peak and the containers plus sidecars, plus overhead.
	Requests corev1.ResourceList
	// NodeSelector, Affinity, Tolerations and TopologySpread are as in the
	// pod spec.
	NodeSelector   map[string]string
	Affinity       *corev1.Affinity
	Tolerations    []corev1.Toleration
	TopologySpread []corev1.TopologySpreadConstraint
	// HostPorts are the host ports the pod's containers bind.
	HostPorts []HostPort
	// Priority is the pod's priority (0 when unset).
	Priority int32
	// CreatedAt is the pod's creation time; zero when unknown (a pod
	// written in a file). With Priority it is kube-scheduler's queue
	// order, which decides which of two competing pods binds first.
	CreatedAt time.Time
	// Owner is the pod's controller; zero for bare pods.
	Owner Owner
	// DaemonSet is set for pods owned by a DaemonSet.
	DaemonSet bool
	// StartTime is when the pod started; zero when pending.
	StartTime time.Time
	// Placeholder is set for a pod engine/buffer made up to hold a pool's
	// capacity buffer: it never exists in the API server, so nothing may
	// evict, nominate or bind it, and it costs nothing to move.
	Placeholder bool
	// Terminating is set for a pod being deleted (metadata.deletionTimestamp):
	// it still holds its node's resources, but kube-scheduler's topology
	// spread no longer counts it.
	Terminating bool
}

// Key returns "namespace/name".
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// Workload reports whether the pod is workload of the node it is bound to:
// bound, and not a daemonset pod (those go with the node). A node with no
// workload pods is empty, for consolidation's emptiness and the agent's
// Empty condition alike.
func (p *Pod) Workload() bool { return p.NodeName != "" && !p.DaemonSet }

// Owner is a pod's controlling owner.
type Owner struct {
	Kind string
	Name string
}

// HostPort is one host port a pod binds.
type HostPort struct {
	Protocol corev1.Protocol
	IP       string
	Port     int32
}

// DaemonSet is a daemonset reduced to the pod it runs on each eligible node.
type DaemonSet struct {
	Namespace string
	Name      string
	// Pod is the template pod (requests, selectors, affinity, tolerations)
	// used to decide whether the daemonset runs on a candidate node and
	// what it costs there.
	Pod *Pod
}

// PDB is a pod disruption budget.
type PDB struct {
	Namespace      string
	Name           string
	Selector       labels.Selector
	MinAvailable   *intstr.IntOrString
	MaxUnavailable *intstr.IntOrString
	// DisruptionsAllowed is the status figure when known; -1 when the PDB
	// comes from a file and must be computed from the pods.
	DisruptionsAllowed int32
}

// PendingPods returns the pods not bound to a node, in Snapshot order.
func (s *Snapshot) PendingPods() []*Pod {
	var out []*Pod
	for _, p := range s.Pods {
		if p.NodeName == "" && !p.DaemonSet {
			out = append(out, p)
		}
	}
	return out
}
