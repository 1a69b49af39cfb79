package consolidation

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// burstPool is the pool of issue 18's benchmark: on-demand, categories c,
// m and r of generation 3 and later, every size, consolidating 30 s after
// the last pod event, with budget (a count or a percentage of its nodes).
func burstPool(budget string) *state.Pool {
	return testPool("default",
		withReq(scheduling.In(scheduling.LabelInstanceCategory, "c", "m", "r")),
		withReq(scheduling.Gt(scheduling.LabelInstanceGeneration, 2)),
		withConsolidateAfter(30*time.Second),
		withBudgets(state.Budget{Nodes: budget}))
}

// burstScaleDown is the cluster of issue 18's scale-down: n pods of cpu
// {250m, 500m, 1, 2} × memory {512Mi, 1Gi, 2Gi, 4Gi} (one ReplicaSet each)
// arrive in batches that are each packed on their own onto new nodes, as
// a live agent packs a burst; then 70% of each ReplicaSet's pods, drawn
// at random (seeded), are deleted.
func burstScaleDown(tb testing.TB, pool *state.Pool, n, batches int, seed uint64) *state.Snapshot {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	cpus, mems := []string{"250m", "500m", "1", "2"}, []string{"512Mi", "1Gi", "2Gi", "4Gi"}
	var pods []*state.Pod
	for i := range n {
		c, m := cpus[i%4], mems[i/4%4]
		app := strings.ToLower(fmt.Sprintf("app-%s-%s", c, m))
		pods = append(pods, &state.Pod{
			Namespace: "default", Name: fmt.Sprintf("%s-%04d", app, i), Labels: map[string]string{"app": app},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c), corev1.ResourceMemory: resource.MustParse(m)},
			Owner:    state.Owner{Kind: "ReplicaSet", Name: app},
		})
	}
	r.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	cluster := &state.Snapshot{Pools: []*state.Pool{pool}}
	for b := range batches {
		batch := pods[b*n/batches : (b+1)*n/batches]
		alone := &state.Snapshot{Pools: cluster.Pools, Pods: batch}
		res, err := packing.Solve(context.Background(), alone, batch, packing.WithoutSecondFill(), packing.WithoutSwap())
		if err != nil || len(res.Unschedulable) > 0 {
			tb.Fatalf("packing batch %d: %v %v", b, err, res.Unschedulable)
		}
		moves := map[string]string{}
		for _, pl := range res.Placements {
			moves[pl.Pod] = fmt.Sprintf("b%d-%s", b, pl.Node)
		}
		for _, cl := range res.Claims {
			cl.Name = fmt.Sprintf("b%d-%s", b, cl.Name)
		}
		with := *cluster
		with.Pods = append(slices.Clone(cluster.Pods), batch...)
		if cluster, err = applyChanges(&with, nil, moves, res.Claims, t0.Add(-24*time.Hour)); err != nil {
			tb.Fatal(err)
		}
	}
	out := *cluster
	out.Pods = nil
	for _, p := range cluster.Pods {
		if p.DaemonSet || r.Float64() < 0.3 {
			out.Pods = append(out.Pods, p)
		}
	}
	return &out
}

// stepByStep are the options of consolidation before the look-ahead: one
// step planned at a time.
func stepByStep() Options {
	o := DefaultOptions()
	o.Lookahead = 0
	return o
}

// movedTwice counts the pods an until-stable run evicts from a node they
// were moved to by an earlier plan.
func movedTwice(tb testing.TB, snap *state.Snapshot, opts Options, maxRounds int) int {
	tb.Helper()
	cur, now, twice := snap, t0, 0
	moved := map[string]bool{}
	for range maxRounds {
		res, err := Plan(context.Background(), cur, now, opts)
		if err != nil {
			tb.Fatal(err)
		}
		if len(res.Commands) == 0 {
			break
		}
		for _, c := range res.Commands {
			for _, m := range c.Moves {
				if moved[m.Pod] {
					twice++
				}
				moved[m.Pod] = true
			}
		}
		if cur, err = Apply(cur, res); err != nil {
			tb.Fatal(err)
		}
		now = now.Add(roundInterval(cur))
	}
	return twice
}

// TestWalkToTheEndState (issue 18: consolidation that walks to its end
// state): on scale-downs of burst-packed clusters where planning one step
// at a time moves pods onto nodes a later plan replaces (so they are
// evicted twice), the look-ahead sends them where they stay: fewer
// evictions and fewer pods moved twice. Each case ends no worse as the
// walk prices an end (cost plus minSavingsPerPod per pod evicted: on
// 10%-7 it moves 5 pods fewer, none twice, for $0.0095/h more), and over
// the cases the walk evicts fewer pods and moves fewer twice. Seven
// clusters: on many a step-by-step plan moves no pod twice, so the walk
// can only tie (when packing started to search sub-pools for batches
// under 100 pods, the first three all tied).
func TestWalkToTheEndState(t *testing.T) {
	var evicted, baseEvicted, twice, baseTwice int
	perPod := DefaultOptions().MinSavingsPerPod
	for _, tc := range []struct {
		budget        string
		pods, batches int
		seed          uint64
	}{
		{budget: "100%", pods: 500, batches: 7, seed: 3},
		{budget: "100%", pods: 500, batches: 7, seed: 5},
		{budget: "10%", pods: 500, batches: 7, seed: 5},
		{budget: "100%", pods: 500, batches: 7, seed: 7},
		{budget: "100%", pods: 500, batches: 7, seed: 11},
		{budget: "10%", pods: 500, batches: 7, seed: 3},
		{budget: "10%", pods: 500, batches: 7, seed: 7},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.budget, tc.seed), func(t *testing.T) {
			snap := burstScaleDown(t, burstPool(tc.budget), tc.pods, tc.batches, tc.seed)
			base := untilStableEvery(t, snap, stepByStep(), 30)
			walked := untilStableEvery(t, snap, DefaultOptions(), 30)
			w, b := movedTwice(t, snap, DefaultOptions(), 30), movedTwice(t, snap, stepByStep(), 30)
			t.Logf("%d nodes; step by step: %d evictions (%d moved twice), $%.3f/h, %d rounds; walked: %d evictions (%d moved twice), $%.3f/h, %d rounds",
				len(snap.Nodes), base.evicted, b, base.cost, base.rounds, walked.evicted, w, walked.cost, walked.rounds)
			if walked.cost+perPod*float64(walked.evicted) > base.cost+perPod*float64(base.evicted)+1e-6 {
				t.Errorf("walked: %d evictions at $%.4f/h; want no worse, at $%.3f a pod, than step by step's %d at $%.4f/h",
					walked.evicted, walked.cost, perPod, base.evicted, base.cost)
			}
			evicted, baseEvicted, twice, baseTwice = evicted+walked.evicted, baseEvicted+base.evicted, twice+w, baseTwice+b
		})
	}
	// Over the cases, the walk must do better, not only as well.
	if evicted >= baseEvicted || twice >= baseTwice {
		t.Errorf("over every case: walked %d evictions (%d moved twice), step by step %d (%d); want fewer of both", evicted, twice, baseEvicted, baseTwice)
	}
}

// untilStableEvery is untilStable with the clock moving past the pool's
// consolidateAfter between plans, as `tenon simulate --until-stable` does.
func untilStableEvery(tb testing.TB, snap *state.Snapshot, opts Options, maxRounds int) stableRun {
	tb.Helper()
	var out stableRun
	cur, now := snap, t0
	for out.rounds < maxRounds {
		res, err := Plan(context.Background(), cur, now, opts)
		if err != nil {
			tb.Fatal(err)
		}
		out.rounds++
		if len(res.Commands) == 0 {
			break
		}
		out.evicted += res.PodsEvicted
		if cur, err = Apply(cur, res); err != nil {
			tb.Fatal(err)
		}
		now = now.Add(roundInterval(cur))
	}
	for _, n := range cur.Nodes {
		out.cost += n.PricePerHour
	}
	out.final = cur
	return out
}

// TestWalkNeverEvictsMoreAtNoLowerCost is the look-ahead's property: on
// random burst-packed clusters scaled down (pods, batches, budget and seed
// drawn at random), the run to stable it chooses never evicts more pods
// than planning step by step unless it ends cheaper.
func TestWalkNeverEvictsMoreAtNoLowerCost(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	cases := 8
	if testing.Short() {
		cases = 3
	}
	for i := range cases {
		budget := []string{"100%", "10%", "3"}[r.IntN(3)]
		pods, batches, seed := 150+r.IntN(350), 2+r.IntN(7), r.Uint64()
		snap := burstScaleDown(t, burstPool(budget), pods, batches, seed)
		base := untilStableEvery(t, snap, stepByStep(), 30)
		walked := untilStableEvery(t, snap, DefaultOptions(), 30)
		t.Logf("case %d (%d pods in %d batches, budget %s, seed %d, %d nodes): step by step %d evictions $%.3f/h; walked %d evictions $%.3f/h",
			i, pods, batches, budget, seed, len(snap.Nodes), base.evicted, base.cost, walked.evicted, walked.cost)
		if walked.cost >= base.cost-1e-6 && walked.evicted > base.evicted {
			t.Errorf("case %d: walked evicts %d pods for $%.4f/h; step by step %d for $%.4f/h", i, walked.evicted, walked.cost, base.evicted, base.cost)
		}
		if errs := Validate(snap, mustPlan(t, snap, DefaultOptions())); len(errs) > 0 {
			t.Errorf("case %d: the first plan is invalid: %v", i, errs[0])
		}
	}
}

func mustPlan(tb testing.TB, snap *state.Snapshot, opts Options) *Result {
	tb.Helper()
	res, err := Plan(context.Background(), snap, t0, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

var (
	burstOut    = flag.String("burst-out", "", "TestWriteBurstScenario writes issue 18's burst-packed scale-down here as a tenon simulate scenario")
	burstSeed   = flag.Uint64("burst-seed", 1, "TestWriteBurstScenario: the seed of the arrival order and of the pods deleted")
	burstBudget = flag.String("burst-budget", "10%", "TestWriteBurstScenario: the pool's disruption budget (nodes)")
)

// TestWriteBurstScenario writes the cluster TestWalkToTheEndState plans on
// (500 pods packed in 7 batches, then 70% deleted) as a scenario file, so
// the walk can be measured end to end:
//
//	go test ./engine/consolidation -run TestWriteBurstScenario -args -burst-out=/tmp/burst.yaml -burst-seed=1
//	tenon simulate -f /tmp/burst.yaml --until-stable --max-rounds 30
//
// Without -burst-out it writes nothing and only checks the file's start.
func TestWriteBurstScenario(t *testing.T) {
	snap := burstScaleDown(t, burstPool(*burstBudget), 500, 7, *burstSeed)
	var b strings.Builder
	fmt.Fprintf(&b, `# Generated by TestWriteBurstScenario in engine/consolidation (seed %d): 500 pods of cpu {250m, 500m,
# 1, 2} x memory {512Mi, 1Gi, 2Gi, 4Gi} packed in 7 batches, each onto its own nodes, then 70%% deleted.
apiVersion: tenon.dev/v1alpha1
kind: Scenario
metadata: {name: burst-scale-down-%d}
spec: {region: us-east-1, zones: [us-east-1a, us-east-1b, us-east-1c], catalog: embedded, now: %q}
---
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: tenon.dev, kind: NodeClass, name: default}
      requirements:
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: tenon.dev/instance-category, operator: In, values: [c, m, r]}
        - {key: tenon.dev/instance-generation, operator: Gt, values: ["2"]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 30s
    budgets: [{nodes: %q}]
`, *burstSeed, *burstSeed, t0.Format(time.RFC3339), *burstBudget)
	for _, node := range snap.Nodes {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  creationTimestamp: %q\n  labels: {tenon.dev/nodepool: %s, node.kubernetes.io/instance-type: %s, topology.kubernetes.io/zone: %s, tenon.dev/capacity-type: %s, kubernetes.io/arch: amd64}\n",
			node.Name, node.CreatedAt.UTC().Format(time.RFC3339), node.Pool, node.InstanceType, node.Zone, node.CapacityType)
	}
	for _, p := range snap.Pods {
		cpu, mem := p.Requests[corev1.ResourceCPU], p.Requests[corev1.ResourceMemory]
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  labels: {app: %s}\n  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: %s, uid: 00000000-0000-4000-8000-000000000001, controller: true}]\nspec:\n  nodeName: %s\n  containers: [{name: app, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: %s, memory: %s}}}]\n",
			p.Name, p.Labels["app"], p.Owner.Name, p.NodeName, cpu.String(), mem.String())
	}
	if *burstOut == "" {
		if !strings.Contains(b.String(), scheduling.LabelInstanceType+": ") || !strings.Contains(b.String(), "nodeName: b0-") {
			t.Errorf("scenario lacks node labels or bound pods:\n%s", b.String()[:2000])
		}
		return
	}
	if err := os.WriteFile(*burstOut, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d nodes, %d pods", *burstOut, len(snap.Nodes), len(snap.Pods))
}

// TestLeavingIsWhereTheWalkEnds: a plan's Leaving holds the nodes its
// commands remove and, on burst-packed scale-downs where one plan cannot
// reach the end (a budget of 10 %), the nodes later plans are expected to
// remove too: the nodes the agent steers new pods away from. Without the
// look-ahead it is the commands' nodes only.
func TestLeavingIsWhereTheWalkEnds(t *testing.T) {
	further := 0
	for _, seed := range []uint64{1, 3, 5} {
		snap := burstScaleDown(t, burstPool("10%"), 500, 7, seed)
		names := map[string]bool{}
		for _, n := range snap.Nodes {
			names[n.Name] = true
		}
		res := mustPlan(t, snap, DefaultOptions())
		if !slices.IsSorted(res.Leaving) {
			t.Errorf("seed %d: Leaving %v is not sorted", seed, res.Leaving)
		}
		for _, c := range res.Commands {
			for _, n := range c.Nodes {
				if !slices.Contains(res.Leaving, n) {
					t.Errorf("seed %d: command node %s is not in Leaving %v", seed, n, res.Leaving)
				}
			}
		}
		for _, n := range res.Leaving {
			if !names[n] {
				t.Errorf("seed %d: Leaving names %s, which is not a node of the snapshot", seed, n)
			}
		}
		if len(res.Leaving) > len(res.removed) {
			further++
		}
		step := mustPlan(t, snap, stepByStep())
		if !slices.Equal(step.Leaving, step.removed) {
			t.Errorf("seed %d: without look-ahead Leaving is %v; want the commands' nodes %v", seed, step.Leaving, step.removed)
		}
	}
	if further == 0 {
		t.Error("no case's Leaving reaches past its first plan's commands; want the walk's end")
	}
}

// TestSurvivors: a node stays only when the same name is there launched
// at the same time as the same type; a replacement that took the name of
// a removed node is not it.
func TestSurvivors(t *testing.T) {
	day := t0.Add(-24 * time.Hour)
	node := func(name, typ string, at time.Time) *state.Node {
		return &state.Node{Name: name, InstanceType: typ, CreatedAt: at}
	}
	for _, tc := range []struct {
		name          string
		before, after []*state.Node
		want          []string
	}{
		{"kept", []*state.Node{node("a", "m5.large", day)}, []*state.Node{node("a", "m5.large", day)}, []string{"a"}},
		{"removed", []*state.Node{node("a", "m5.large", day)}, nil, nil},
		{"name taken by a later launch", []*state.Node{node("a", "m5.large", day)}, []*state.Node{node("a", "m5.large", t0)}, nil},
		{"name taken by another type", []*state.Node{node("a", "m5.large", day)}, []*state.Node{node("a", "t3a.small", day)}, nil},
		{
			"mixed",
			[]*state.Node{node("a", "m5.large", day), node("b", "m5.large", day), node("c", "m5.large", day)},
			[]*state.Node{node("a", "m5.large", day), node("c", "m5.xlarge", t0), node("d", "m5.large", t0)},
			[]string{"a"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := survivors(tc.before, tc.after)
			if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
				t.Errorf("survivors = %v, want %v", keys, tc.want)
			}
		})
	}
}

// TestRunsReuseRemovedNodesNames: planned and applied until stable, a
// DaemonSet-heavy cluster launches replacements under the names of nodes
// earlier plans removed (packing names claims "<pool>-<n>", skipping only
// the nodes it sees), so counting by name would call those nodes kept;
// survivors does not.
func TestRunsReuseRemovedNodesNames(t *testing.T) {
	// Seed 300006's run reuses 13 names (300001's did until the search
	// tried replacements alone first and it reached stable in two plans).
	_, snap := daemonCluster(t, 1500, 300*1000+6)
	run := untilStable(t, snap, DefaultOptions(), 10)
	byName := map[string]bool{}
	for _, n := range run.final.Nodes {
		byName[n.Name] = true
	}
	left := survivors(snap.Nodes, run.final.Nodes)
	reused := 0
	for _, n := range snap.Nodes {
		if byName[n.Name] && !left[n.Name] {
			reused++
		}
	}
	if reused == 0 {
		t.Fatal("no replacement took a removed node's name; the case this guards against did not arise")
	}
	if run.vacated > run.evicted {
		t.Errorf("%d pods on removed nodes but only %d evictions", run.vacated, run.evicted)
	}
	t.Logf("%d names reused; %d evictions, %d pods on removed nodes", reused, run.evicted, run.vacated)
}

// TestWalkMergesTheNodesItWouldFill (issue 22): on DaemonSet-heavy
// clusters scaled down, the first plan deletes small nodes by moving their
// pods onto nodes with room (mostly t3a.2xlarge), and the next plan merges
// those nodes into cheaper replacements, evicting the same pods again. The
// walk saw it, but its re-planned step barred every node the end removes
// from receiving pods, re-packed far more of the cluster and lost, so 13
// to 18 % of these runs' evictions were pods moved twice (444, 490 and 471
// evictions for 392, 415 and 416 pods on the removed nodes). Re-planning
// with only the nodes the step filled barred and ranked first, the step
// merges them itself: run to stable, each cluster evicts at most 5 % more
// pods than its removed nodes held (TestMovedTwiceDiagnosis says where).
func TestWalkMergesTheNodesItWouldFill(t *testing.T) {
	seeds := []uint64{300*1000 + 1, 300*1000 + 2, 300*1000 + 3}
	if testing.Short() {
		seeds = seeds[1:2]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			_, snap := daemonCluster(t, 1500, seed)
			run := untilStable(t, snap, DefaultOptions(), 10)
			t.Logf("%d nodes: $%.2f/h, %d evictions, %d pods on the removed nodes, %d rounds", len(snap.Nodes), run.cost, run.evicted, run.vacated, run.rounds)
			if float64(run.evicted) > 1.05*float64(run.vacated) {
				t.Errorf("%d evictions for %d pods on the removed nodes; want at most 5%% moved twice", run.evicted, run.vacated)
			}
		})
	}
}
