package consolidation

import (
	"fmt"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// t0 is the tests' clock: nodes are created a day before it.
var t0 = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

// The package's tests name the shared builders of statetest by these
// short names.
type (
	poolOpt = statetest.PoolOption
	podOpt  = statetest.PodOption
)

var (
	withSpot             = statetest.WithSpot
	withReq              = statetest.WithRequirement
	withBudgets          = statetest.WithBudgets
	withConsolidateAfter = statetest.WithConsolidateAfter
	annotated            = statetest.WithAnnotation
	priority             = statetest.WithPriority
)

// testPool is a NodePool allowing amd64 on-demand in three zones that
// consolidates underutilized nodes at once, with a 100% budget.
func testPool(name string, opts ...poolOpt) *state.Pool {
	base := []poolOpt{statetest.WithConsolidation(), statetest.WithTemplateHash("hash-1")}
	return statetest.Pool(name, append(base, opts...)...)
}

// testNode is a node of pool p launched as typ in zone, created a day
// before t0.
func testNode(p *state.Pool, name, typ, zone, capacityType string) *state.Node {
	n := statetest.Node(p, name, typ, zone, statetest.WithCapacityType(capacityType), statetest.CreatedAt(t0.Add(-24*time.Hour)))
	if n.PricePerHour == 0 {
		panic(fmt.Sprintf("no %s offering of %s in %s", capacityType, typ, zone))
	}
	return n
}

// testPod is a pod of a ReplicaSet bound to node, started an hour before
// t0, labelled app=<name up to its first dash>.
func testPod(name, cpu, mem, node string, opts ...podOpt) *state.Pod {
	base := []podOpt{
		statetest.WithLabel("app", strings.SplitN(name, "-", 2)[0]), statetest.BoundTo(node),
		statetest.OwnedBy("ReplicaSet", "rs"), statetest.StartedAt(t0.Add(-time.Hour)),
	}
	return statetest.Pod(name, cpu, mem, append(base, opts...)...)
}

func snapshot(pools []*state.Pool, nodes []*state.Node, pods []*state.Pod) *state.Snapshot {
	return statetest.Snapshot(pools, nodes, pods)
}

func keptReason(res *Result, node string) string {
	for _, k := range res.Kept {
		if k.Node == node {
			return k.Reason
		}
	}
	return ""
}
