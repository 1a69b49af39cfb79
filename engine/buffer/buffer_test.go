package buffer_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

func int32p(n int32) *int32 { return &n }

// withBuffer gives the pool a buffer of pods placeholders (nil: none) and percent (0: none) of
// cpu and memory each.
func withBuffer(pods *int32, percent int32, cpu, memory string) statetest.PoolOption {
	return func(p *state.Pool) {
		b := &v1.CapacityBuffer{Pods: pods, Resources: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
		}}
		if percent > 0 {
			b.Percent = int32p(percent)
		}
		p.Buffer = b
	}
}

// m5 narrows a pool to m5.xlarge (4 vCPU, about 14.8 GiB allocatable) so the tests' arithmetic is
// about one type.
var m5 = statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.xlarge"))

func TestSize(t *testing.T) {
	cases := []struct {
		name string
		pool *state.Pool
		pods []*state.Pod
		want int
	}{
		{name: "no buffer", pool: statetest.Pool("p", m5), want: 0},
		{name: "a count", pool: statetest.Pool("p", m5, withBuffer(int32p(3), 0, "1", "1Gi")), want: 3},
		{name: "zero pods", pool: statetest.Pool("p", m5, withBuffer(int32p(0), 0, "1", "1Gi")), want: 0},
		{name: "percent of an empty pool", pool: statetest.Pool("p", m5, withBuffer(nil, 20, "1", "1Gi")), want: 0},
		// 5 cpu in use, 20% is 1 cpu: one 1-cpu placeholder; memory 5Gi × 20% = 1Gi: one.
		{name: "percent rounds up", pool: statetest.Pool("p", m5, withBuffer(nil, 20, "1", "1Gi")),
			pods: statetest.Pods(5, "web", "1", "1Gi", statetest.BoundTo("n1")), want: 1},
		// 5.5 cpu in use, 20% is 1.1 cpu: two placeholders.
		{name: "percent rounds up past a whole pod", pool: statetest.Pool("p", m5, withBuffer(nil, 20, "1", "1Gi")),
			pods: append(statetest.Pods(5, "web", "1", "1Gi", statetest.BoundTo("n1")), statetest.Pod("x", "500m", "1Gi", statetest.BoundTo("n1"))), want: 2},
		// memory is the larger need: 10Gi × 50% = 5Gi in 1Gi placeholders.
		{name: "the largest resource decides", pool: statetest.Pool("p", m5, withBuffer(nil, 50, "1", "1Gi")),
			pods: statetest.Pods(2, "mem", "500m", "5Gi", statetest.BoundTo("n1")), want: 5},
		{name: "pods cap percent", pool: statetest.Pool("p", m5, withBuffer(int32p(2), 50, "1", "1Gi")),
			pods: statetest.Pods(2, "mem", "500m", "5Gi", statetest.BoundTo("n1")), want: 2},
		// 1000% of 2000 cpu is 20000 one-cpu placeholders: capped at 10000.
		{name: "percent is capped at 10000 placeholders", pool: statetest.Pool("p", m5, withBuffer(nil, 1000, "1", "1Mi")),
			pods: []*state.Pod{statetest.Pod("huge", "2000", "1Gi", statetest.BoundTo("n1"))}, want: v1.MaxBufferPods},
		{name: "pending pods and other pools do not count", pool: statetest.Pool("p", m5, withBuffer(nil, 100, "1", "1Gi")),
			pods: append(statetest.Pods(3, "pending", "1", "1Gi"), statetest.Pods(3, "elsewhere", "1", "1Gi", statetest.BoundTo("other-1"))...), want: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			other := statetest.Pool("other", m5)
			nodes := []*state.Node{statetest.Node(tc.pool, "n1", "m5.xlarge", "us-east-1a"), statetest.Node(other, "other-1", "m5.xlarge", "us-east-1a")}
			snap := statetest.Snapshot(statetest.Pools(tc.pool, other), nodes, tc.pods)
			if got := buffer.Size(snap, tc.pool); got != tc.want {
				t.Fatalf("Size = %d, want %d", got, tc.want)
			}
			holders := buffer.Pods(snap)
			if len(holders) != tc.want {
				t.Fatalf("Pods made %d placeholders, want %d", len(holders), tc.want)
			}
			for _, h := range holders {
				if !h.Placeholder || !buffer.IsPlaceholder(h.Key()) || h.Owner.Kind != buffer.OwnerKind || h.NodeSelector[scheduling.LabelNodePool] != "p" {
					t.Fatalf("placeholder %+v is not marked as one of pool p's", h)
				}
			}
		})
	}
}

func TestIsPlaceholder(t *testing.T) {
	for key, want := range map[string]bool{"tenon:buffer/p-1": true, "tenon:buffer": false, "default/p-1": false, "tenon:bufferx/p-1": false} {
		if got := buffer.IsPlaceholder(key); got != want {
			t.Errorf("IsPlaceholder(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestSolve(t *testing.T) {
	type want struct {
		claims, bufferClaims, existing, newRoom, unplaced int
		reason                                            string
	}
	cases := []struct {
		name    string
		pool    *state.Pool
		nodes   func(p *state.Pool) []*state.Node
		pods    []*state.Pod
		want    want
		realsOn string // the node every real pod must be placed on, when set
	}{
		{name: "an empty cluster launches the buffer", pool: statetest.Pool("p", m5, withBuffer(int32p(3), 0, "1", "1Gi")),
			want: want{claims: 1, bufferClaims: 1, newRoom: 3}},
		{name: "free room holds the buffer without a launch", pool: statetest.Pool("p", m5, withBuffer(int32p(3), 0, "1", "1Gi")),
			nodes: oneNode, want: want{existing: 3}},
		{name: "real pods take the free room first, the buffer launches", pool: statetest.Pool("p", m5, withBuffer(int32p(3), 0, "1", "1Gi")),
			nodes: oneNode, pods: statetest.Pods(3, "web", "1", "1Gi"), realsOn: "p-node",
			want: want{claims: 1, bufferClaims: 1, newRoom: 3}},
		{name: "the buffer fills what real pods leave on their claim", pool: statetest.Pool("p", m5, withBuffer(int32p(2), 0, "500m", "512Mi")),
			pods: statetest.Pods(5, "web", "500m", "1Gi"), want: want{claims: 1, newRoom: 2}},
		{name: "limits cap the buffer", pool: statetest.Pool("p", m5, withBuffer(int32p(8), 0, "1", "1Gi"), statetest.WithLimit(corev1.ResourceCPU, "4")),
			want: want{claims: 1, bufferClaims: 1, newRoom: 3, unplaced: 5, reason: "limit"}},
		{name: "a tainted pool's placeholders tolerate its taints", pool: statetest.Pool("p", m5, withBuffer(int32p(1), 0, "1", "1Gi"), statetest.WithTaint("team", "a", corev1.TaintEffectNoSchedule)),
			want: want{claims: 1, bufferClaims: 1, newRoom: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var nodes []*state.Node
			if tc.nodes != nil {
				nodes = tc.nodes(tc.pool)
			}
			snap := statetest.Snapshot(statetest.Pools(tc.pool), nodes, tc.pods)
			res, err := buffer.Solve(context.Background(), snap, tc.pods)
			if err != nil {
				t.Fatal(err)
			}
			alone, err := packing.Solve(context.Background(), snap, tc.pods)
			if err != nil {
				t.Fatal(err)
			}
			st := res.Buffers[0]
			got := want{claims: len(res.Claims), bufferClaims: len(res.BufferClaims), existing: st.Existing, newRoom: st.New, unplaced: st.Unplaced}
			if got.claims != tc.want.claims || got.bufferClaims != tc.want.bufferClaims || got.existing != tc.want.existing ||
				got.newRoom != tc.want.newRoom || got.unplaced != tc.want.unplaced || !strings.Contains(st.Reason, tc.want.reason) {
				t.Fatalf("got %+v (reason %q), want %+v", got, st.Reason, tc.want)
			}
			checkPriced(t, res, alone)
			for _, pl := range res.Placements {
				if tc.realsOn != "" && !buffer.IsPlaceholder(pl.Pod) && pl.Node != tc.realsOn {
					t.Fatalf("real pod %s placed on %s, want %s (real pods come first)", pl.Pod, pl.Node, tc.realsOn)
				}
			}
		})
	}
}

func oneNode(p *state.Pool) []*state.Node {
	return []*state.Node{statetest.Node(p, "p-node", "m5.xlarge", "us-east-1a")}
}

// checkPriced checks that res is alone (packing.Solve of the real pods) plus the buffers: the
// same real placements, and a cost that is alone's plus each buffer's.
func checkPriced(t *testing.T, res *buffer.Result, alone *packing.Result) {
	t.Helper()
	want := map[string]string{}
	for _, pl := range alone.Placements {
		want[pl.Pod] = pl.Node
	}
	real := 0
	for _, pl := range res.Placements {
		if buffer.IsPlaceholder(pl.Pod) {
			continue
		}
		real++
		if want[pl.Pod] != pl.Node {
			t.Fatalf("real pod %s on %s with buffers, %s without: a buffer moved a real pod", pl.Pod, pl.Node, want[pl.Pod])
		}
	}
	if real != len(alone.Placements) || len(res.Unschedulable) != len(alone.Unschedulable) {
		t.Fatalf("%d real pods placed and %d unschedulable with buffers, %d and %d without", real, len(res.Unschedulable), len(alone.Placements), len(alone.Unschedulable))
	}
	sum := alone.CostPerHour
	for _, s := range res.Buffers {
		sum += s.CostPerHour
	}
	var claims float64
	for _, cl := range res.Claims {
		claims += cl.Chosen().PricePerHour
	}
	if d := res.CostPerHour - sum; d > 1e-9 || d < -1e-9 || claims-res.CostPerHour > 1e-9 || res.CostPerHour-claims > 1e-9 {
		t.Fatalf("cost %.6f, claims %.6f, real pods alone plus buffers %.6f", res.CostPerHour, claims, sum)
	}
}

func TestSolveBufferInAZone(t *testing.T) {
	pool := statetest.Pool("p", m5, withBuffer(int32p(2), 0, "1", "1Gi"))
	pool.Buffer.Requirements = []v1.NodeSelectorRequirementWithMinValues{{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1c"}}}
	// Free room in us-east-1a does not hold a buffer asked in us-east-1c.
	snap := statetest.Snapshot(statetest.Pools(pool), oneNode(pool), nil)
	res, err := buffer.Solve(context.Background(), snap, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BufferClaims) != 1 || res.BufferClaims[0].Chosen().Zone != "us-east-1c" || res.Buffers[0].New != 2 {
		t.Fatalf("want one claim in us-east-1c holding 2 placeholders, got %+v, %+v", res.BufferClaims, res.Buffers)
	}
}

func TestBind(t *testing.T) {
	pool := statetest.Pool("p", m5, withBuffer(int32p(6), 0, "1", "1Gi"))
	full := statetest.Node(pool, "full", "m5.xlarge", "us-east-1a")
	free := statetest.Node(pool, "free", "m5.xlarge", "us-east-1b")
	pods := statetest.Pods(3, "web", "1", "1Gi", statetest.BoundTo("full"), statetest.OwnedBy("ReplicaSet", "web"))
	snap := statetest.Snapshot(statetest.Pools(pool), []*state.Node{full, free}, pods)
	bound, n, err := buffer.Bind(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	// m5.xlarge has about 3.9 allocatable cpu: 3 placeholders on free, none on full (3 cpu used):
	// the buffer is 3 short, which Bind leaves to provisioning.
	on := map[string]int{}
	for _, p := range bound.Pods {
		if p.Placeholder {
			on[p.NodeName]++
		}
	}
	if n != 3 || on["free"] != 3 || on["full"] != 0 {
		t.Fatalf("bound %d placeholders: %v; want 3 on free", n, on)
	}
	if len(snap.Pods) != 3 {
		t.Fatalf("Bind changed its snapshot: %d pods", len(snap.Pods))
	}
	none := statetest.Snapshot(statetest.Pools(statetest.Pool("q", m5)), []*state.Node{full}, pods)
	if same, n, _ := buffer.Bind(context.Background(), none); same != none || n != 0 {
		t.Fatalf("a cluster without buffers is returned as is")
	}
}
