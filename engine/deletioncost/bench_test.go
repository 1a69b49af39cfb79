package deletioncost_test

import (
	"fmt"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/deletioncost"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// BenchmarkCompute ranks 2,000 nodes holding 20,000 pods of 200 ReplicaSets, every value already
// written once (the agent's steady state: each consolidation tick computes, and writes nothing).
func BenchmarkCompute(b *testing.B) {
	pool := statetest.Pool("default", statetest.WithConsolidation())
	var nodes []*state.Node
	var pods []*state.Pod
	for i := range 2000 {
		name := fmt.Sprintf("n%04d", i)
		nodes = append(nodes, statetest.Node(pool, name, "m5.xlarge", "us-east-1a"))
		for j := range 10 {
			pods = append(pods, statetest.Pod(fmt.Sprintf("%s-p%d", name, j), "100m", "128Mi", statetest.BoundTo(name),
				statetest.OwnedBy("ReplicaSet", fmt.Sprintf("rs%d", (i*10+j)%200))))
		}
	}
	snap := statetest.Snapshot([]*state.Pool{pool}, nodes, pods)
	leaving := []string{"n0001", "n0500", "n1999"}
	first := deletioncost.Compute(snap, leaving)
	byKey := map[string]*state.Pod{}
	for _, p := range pods {
		byKey[p.Key()] = p
	}
	for _, w := range first.Writes {
		p := byKey[w.Key()]
		p.Annotations = map[string]string{}
		for k, v := range w.Annotations() {
			p.Annotations[k] = *v
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if p := deletioncost.Compute(snap, leaving); len(p.Writes) != 0 {
			b.Fatalf("%d writes in the steady state", len(p.Writes))
		}
	}
	b.ReportMetric(float64(len(first.Writes)), "first-writes")
}
