package consolidation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// withBuffer keeps room for pods placeholders of cpu and memory in the pool.
func withBuffer(pods int32, cpu, mem string) poolOpt {
	return func(p *state.Pool) {
		p.Buffer = &v1.CapacityBuffer{Pods: &pods, Resources: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		}}
	}
}

func TestBufferKeepsRoom(t *testing.T) {
	cases := []struct {
		name    string
		opts    []poolOpt
		removed int
	}{
		// Without a buffer the empty node goes, and the half-used one's pod moves to the busy
		// one's free room: 3 cpu of pods on one m5.xlarge (3.92 cpu allocatable).
		{name: "no buffer", removed: 2},
		// Three 1-cpu placeholders and 3 cpu of pods need two nodes: one stays beside the busy
		// one, empty of real pods.
		{name: "the buffer keeps a node", opts: []poolOpt{withBuffer(3, "1", "1Gi")}, removed: 1},
		// Four do not fit on two nodes beside the pods (each holds three whole cpus): all stay.
		{name: "the buffer keeps two nodes", opts: []poolOpt{withBuffer(4, "1", "1Gi")}, removed: 0},
		// A buffer that fits in the room left on the busy node holds nothing back.
		{name: "a small buffer moves", opts: []poolOpt{withBuffer(1, "250m", "256Mi")}, removed: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := testPool("p", append(tc.opts, withReq(scheduling.In(scheduling.LabelInstanceType, "m5.xlarge")))...)
			nodes := []*state.Node{
				testNode(p, "busy", "m5.xlarge", "us-east-1a", od),
				testNode(p, "empty", "m5.xlarge", "us-east-1a", od),
				testNode(p, "half", "m5.xlarge", "us-east-1a", od),
			}
			pods := []*state.Pod{
				testPod("web-1", "1", "2Gi", "busy"), testPod("web-2", "1", "2Gi", "busy"),
				testPod("api-1", "1", "1Gi", "half"),
			}
			snap := snapshot([]*state.Pool{p}, nodes, pods)
			res, err := Plan(context.Background(), snap, t0, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Removed(); len(got) != tc.removed {
				t.Fatalf("removed %v, want %d nodes; kept %+v", got, tc.removed, res.Kept)
			}
			for _, c := range res.Commands {
				for _, m := range c.Moves {
					if buffer.IsPlaceholder(m.Pod) {
						t.Fatalf("command %v evicts placeholder %s: placeholders exist only in the plan", c.Nodes, m.Pod)
					}
				}
			}
			if v := Validate(snap, res); len(v) > 0 {
				t.Fatalf("plan breaks rules: %v", v)
			}
			checkBufferKept(t, tc.name, snap, res)
		})
	}
}

// checkBufferKept checks that the plan leaves room for at least as many placeholders as the
// cluster held before it.
func checkBufferKept(t *testing.T, scenario string, snap *state.Snapshot, res *Result) {
	t.Helper()
	_, before, err := buffer.Bind(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Apply(snap, res)
	if err != nil {
		t.Fatalf("%s: %v", scenario, err)
	}
	_, kept, err := buffer.Bind(context.Background(), after)
	if err != nil {
		t.Fatal(err)
	}
	if kept < before {
		t.Fatalf("%s: room for %d placeholders before the plan (%v), %d after", scenario, before, res.Removed(), kept)
	}
}

// TestBufferPlanProperties plans over random clusters whose pools keep buffers: after the plan
// the cluster holds at least as many placeholders as before (consolidation never shrinks the
// room), the plan is valid, and no command evicts a placeholder. Expiration is off: it removes
// nodes whatever their pods, the buffer's room with them (provisioning refills it).
func TestBufferPlanProperties(t *testing.T) {
	n := 100
	if testing.Short() || raceEnabled {
		n = 30
	}
	shapes := [][2]string{{"250m", "256Mi"}, {"500m", "1Gi"}, {"1", "2Gi"}, {"2", "4Gi"}}
	held := 0
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 23))
		snap := randomSnapshot(r)
		for _, p := range snap.Pools {
			p.ExpireAfter = nil
			s := shapes[r.IntN(len(shapes))]
			withBuffer(int32(1+r.IntN(8)), s[0], s[1])(p)
		}
		now := t0.Add(time.Duration(r.IntN(48)) * time.Hour)
		res, err := Plan(context.Background(), snap, now, DefaultOptions())
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if v := Validate(snap, res); len(v) > 0 {
			t.Fatalf("scenario %d: plan breaks rules: %v", i, v)
		}
		for _, c := range res.Commands {
			for _, m := range c.Moves {
				if buffer.IsPlaceholder(m.Pod) {
					t.Fatalf("scenario %d: command %v evicts placeholder %s", i, c.Nodes, m.Pod)
				}
			}
		}
		checkBufferKept(t, fmt.Sprintf("scenario %d", i), snap, res)
		if _, bound, _ := buffer.Bind(context.Background(), snap); bound > 0 {
			held++
		}
	}
	// The property is empty if no drawn cluster had room for a placeholder.
	if held < n/2 {
		t.Fatalf("only %d of %d clusters held any placeholder", held, n)
	}
}
