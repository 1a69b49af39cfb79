package buffer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestSolveProperties solves random clusters with buffers: the real pods are placed exactly as
// packing.Solve places them alone, the cost is that plan's plus each buffer's, every placeholder
// is accounted for (on existing room, on new room or unplaced), and with the result applied
// (Planned) Bind finds room for every placeholder the plan placed, without a launch.
func TestSolveProperties(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	types := []string{"m5.large", "m5.xlarge", "c5.xlarge", "r5.large"}
	shapes := [][2]string{{"250m", "256Mi"}, {"500m", "1Gi"}, {"1", "2Gi"}, {"2", "4Gi"}}
	withRoom := 0
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 2))
		var pools []*state.Pool
		for j := range 1 + r.IntN(2) {
			s := shapes[r.IntN(len(shapes))]
			var opts []statetest.PoolOption
			opts = append(opts, statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, types...)))
			if r.IntN(2) == 0 {
				opts = append(opts, withBuffer(int32p(int32(r.IntN(9))), 0, s[0], s[1]))
			} else {
				opts = append(opts, withBuffer(int32p(int32(1+r.IntN(9))), int32(10+r.IntN(90)), s[0], s[1]))
			}
			if r.IntN(4) == 0 {
				opts = append(opts, statetest.WithLimit(corev1.ResourceCPU, fmt.Sprint(4+r.IntN(12))))
			}
			pools = append(pools, statetest.Pool(fmt.Sprintf("pool%d", j), opts...))
		}
		var nodes []*state.Node
		var pods []*state.Pod
		for j := range r.IntN(4) {
			p := pools[r.IntN(len(pools))]
			name := fmt.Sprintf("node-%d", j)
			nodes = append(nodes, statetest.Node(p, name, types[r.IntN(len(types))], statetest.Zones[r.IntN(3)]))
			pods = append(pods, statetest.Pods(r.IntN(3), name+"-bound", "500m", "512Mi", statetest.BoundTo(name), statetest.OwnedBy("ReplicaSet", "rs"))...)
		}
		pending := statetest.Pods(r.IntN(12), "web", []string{"250m", "500m", "1"}[r.IntN(3)], "1Gi", statetest.OwnedBy("ReplicaSet", "web"))
		snap := statetest.Snapshot(pools, nodes, append(pods, pending...))
		res, err := buffer.Solve(context.Background(), snap, pending)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		alone, err := packing.Solve(context.Background(), snap, pending)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkPriced(t, res, alone) })
		placed := 0
		for _, s := range res.Buffers {
			if s.Existing+s.New+s.Unplaced != s.Pods {
				t.Fatalf("scenario %d: buffer %+v does not account for its pods", i, s)
			}
			placed += s.Existing + s.New
		}
		if placed == 0 {
			continue
		}
		withRoom++
		after := buffer.Planned(snap, res.Result)
		// Planned binds the pods res placed, the placeholders among them: take those out, as the
		// cluster would have only the real pods and the room.
		real := after.Pods[:0:0]
		for _, p := range after.Pods {
			if !p.Placeholder {
				real = append(real, p)
			}
		}
		after.Pods = real
		if _, bound, err := buffer.Bind(context.Background(), after); err != nil || bound < placed {
			t.Fatalf("scenario %d: the plan placed %d placeholders, the cluster it launches holds %d (%v)", i, placed, bound, err)
		}
	}
	if withRoom < n/3 {
		t.Fatalf("only %d of %d scenarios placed a placeholder", withRoom, n)
	}
}
