package consolidation

import (
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

var testCatalog = sync.OnceValue(func() *catalog.Catalog {
	c, err := catalog.New()
	if err != nil {
		panic(err)
	}
	return c
})

// t0 is the tests' clock: nodes are created a day before it.
var t0 = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

type poolOpt func(*state.Pool)

// testPool is a NodePool allowing amd64 on-demand in three zones that
// consolidates underutilized nodes at once, with a 100% budget.
func testPool(name string, opts ...poolOpt) *state.Pool {
	zero := time.Duration(0)
	p := &state.Pool{
		Name: name, Kind: state.PoolKindNodePool,
		Labels: map[string]string{scheduling.LabelNodePool: name},
		Requirements: scheduling.NewRequirements(
			scheduling.In(scheduling.LabelNodePool, name),
			scheduling.In(scheduling.LabelArch, scheduling.ArchAMD64),
			scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeOnDemand),
			scheduling.In(scheduling.LabelTopologyZone, "us-east-1a", "us-east-1b", "us-east-1c"),
		),
		InstanceTypes: testCatalog().InstanceTypes(),
		Disruption: state.Disruption{
			ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: &zero,
			Budgets: []state.Budget{{Nodes: "100%"}},
		},
		TemplateHash: "hash-1",
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withSpot() poolOpt {
	return func(p *state.Pool) {
		p.Requirements[scheduling.LabelCapacityType] = scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot)
	}
}

func withReq(r scheduling.Requirement) poolOpt {
	return func(p *state.Pool) { p.Requirements[r.Key] = r }
}

func withBudgets(b ...state.Budget) poolOpt {
	return func(p *state.Pool) { p.Disruption.Budgets = b }
}

func withConsolidateAfter(d time.Duration) poolOpt {
	return func(p *state.Pool) { p.Disruption.ConsolidateAfter = &d }
}

// testNode is a node of pool p launched as typ in zone, created a day
// before t0.
func testNode(p *state.Pool, name, typ, zone, capacityType string) *state.Node {
	it, ok := testCatalog().Get(typ)
	if !ok {
		panic("no instance type " + typ)
	}
	price := 0.0
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			price = o.PricePerHour
		}
	}
	if price == 0 {
		panic(fmt.Sprintf("no %s offering of %s in %s", capacityType, typ, zone))
	}
	return &state.Node{
		Name: name, Pool: p.Name, InstanceType: typ, Zone: zone, CapacityType: capacityType,
		Labels: packing.NodeLabels(p, it, zone, capacityType, name), Allocatable: it.Allocatable,
		PricePerHour: price, Initialized: true, CreatedAt: t0.Add(-24 * time.Hour), TemplateHash: p.TemplateHash,
	}
}

type podOpt func(*state.Pod)

// testPod is a pod of a ReplicaSet bound to node, started an hour before
// t0.
func testPod(name, cpu, mem, node string, opts ...podOpt) *state.Pod {
	p := &state.Pod{
		Namespace: "default", Name: name, NodeName: node,
		Labels: map[string]string{"app": strings.SplitN(name, "-", 2)[0]},
		Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		},
		Owner:     state.Owner{Kind: "ReplicaSet", Name: "rs"},
		StartTime: t0.Add(-time.Hour),
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func annotated(k, v string) podOpt {
	return func(p *state.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

func priority(n int32) podOpt { return func(p *state.Pod) { p.Priority = n } }

func snapshot(pools []*state.Pool, nodes []*state.Node, pods []*state.Pod) *state.Snapshot {
	return &state.Snapshot{Pools: pools, Nodes: nodes, Pods: pods}
}

func keptReason(res *Result, node string) string {
	for _, k := range res.Kept {
		if k.Node == node {
			return k.Reason
		}
	}
	return ""
}
