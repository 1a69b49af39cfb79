package simulate

import (
	"context"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// LiveOptions name the running cluster `tenon simulate --kubeconfig` and `tenon explain`
// read, and the catalog they price it with.
type LiveOptions struct {
	// Kubeconfig is the kubeconfig file; "" follows kubectl's rules ($KUBECONFIG, then
	// ~/.kube/config).
	Kubeconfig string
	// Context is the kubeconfig context; "" is the file's current context.
	Context string
	// Region and Zones select the embedded catalog's offerings, as the agent's --region and
	// --zones do; "" and nil are the agent's defaults.
	Region string
	Zones  []string
}

// LiveCluster is a running cluster as the agent sees it at one instant: the objects its view
// admits (engine/agent's viewBuilder, the code the agent decides on), and what it leaves out.
type LiveCluster struct {
	// Objects are the objects the agent's Snapshot is built from: bound and unschedulable
	// pods, nodes, daemonsets, PDBs, the valid NodeClaims and NodeClasses, and the valid
	// NodePools and Provisioners whose NodeClass can launch.
	Objects state.Objects
	// Region and Zones are the catalog's.
	Region string
	Zones  []string
	// Now is when the cluster was read (UTC, whole seconds): consolidation plans at it.
	Now time.Time
	// LeftOut maps each policy object the agent leaves out ("NodePool/name") to why.
	LeftOut map[string]string
	// Waiting are the "namespace/name" of pods not bound yet that kube-scheduler has not
	// marked unschedulable: the agent acts on them once it does.
	Waiting []string
	// Cluster names the cluster in reports: the context's name.
	Cluster string
}

// ClusterReader reads a running cluster. engine/agent.ReadCluster is the one `tenon` uses;
// this package talks to no API server itself (DESIGN §3).
type ClusterReader func(ctx context.Context, o LiveOptions) (*LiveCluster, error)

// UsageError is a problem with the flags that name the cluster (--kubeconfig, --context): the
// commands exit ExitBadInput for it, and ExitCheckFails for a cluster they cannot read.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }
