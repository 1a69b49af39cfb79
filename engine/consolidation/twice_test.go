package consolidation

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

var twiceCases = flag.String("twice", "", "TestMovedTwiceDiagnosis: DaemonSet-heavy clusters to diagnose, as pods:seed,... (e.g. 1500:300001)")

// nodeID names a node across rounds: a name alone can be reused by a
// later launch (see survivors).
func nodeID(n *state.Node) string {
	return fmt.Sprintf("%s@%s/%s", n.Name, n.CreatedAt.Format("15:04:05"), n.InstanceType)
}

func nodeIDs(s *state.Snapshot) map[string]string {
	out := make(map[string]string, len(s.Nodes))
	for _, n := range s.Nodes {
		out[n.Name] = nodeID(n)
	}
	return out
}

// TestMovedTwiceDiagnosis runs DaemonSet-heavy clusters to stable as the
// bench does and says, for every pod moved twice, between which rounds and
// through which node, and what the walk of the first of those rounds saw.
// A diagnosis, not a check: it runs only with -twice.
func TestMovedTwiceDiagnosis(t *testing.T) {
	diagnoseEach(t, "twice", *twiceCases, diagnoseTwice)
}

// diagnoseEach runs diagnose on each DaemonSet-heavy cluster that cases,
// the value of flag -name, lists as pods:seed; it skips without cases.
func diagnoseEach(t *testing.T, name, cases string, diagnose func(t *testing.T, pods int, seed uint64)) {
	t.Helper()
	if cases == "" {
		t.Skipf("diagnosis: run with -args -%s=pods:seed,...", name)
	}
	for _, c := range strings.Split(cases, ",") {
		pods, seed, _ := strings.Cut(c, ":")
		n, err1 := strconv.Atoi(pods)
		s, err2 := strconv.ParseUint(seed, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("-%s %q: want pods:seed", name, c)
		}
		t.Run(c, func(t *testing.T) { diagnose(t, n, s) })
	}
}

type hop struct {
	round      int
	to         string // node id
	toNew      bool   // launched by that round
	toOriginal bool   // a node of the round-0 snapshot
}

func diagnoseTwice(t *testing.T, pods int, seed uint64) {
	_, snap := daemonCluster(t, pods, seed)
	var snaps []*state.Snapshot
	var plans []*Result
	var clocks []time.Time
	cur, now := snap, t0
	for range 10 {
		res, err := Plan(context.Background(), cur, now, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Commands) == 0 {
			break
		}
		snaps, plans, clocks = append(snaps, cur), append(plans, res), append(clocks, now)
		if cur, err = Apply(cur, res); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
	snaps = append(snaps, cur)
	orig := nodeIDs(snap)
	origSet := map[string]bool{}
	for _, id := range orig {
		origSet[id] = true
	}
	last := map[string]hop{}
	type key struct {
		from, to int
		node     string
		kind     string
	}
	twice := map[key]int{}
	var keys []key
	total := 0
	for r, res := range plans {
		before, after := nodeIDs(snaps[r]), nodeIDs(snaps[r+1])
		beforeSet := map[string]bool{}
		for _, id := range before {
			beforeSet[id] = true
		}
		for _, cmd := range res.Commands {
			for _, m := range cmd.Moves {
				from := before[m.From]
				if h, ok := last[m.Pod]; ok && h.to == from {
					kind := "existing"
					if h.toNew {
						kind = "replacement"
					} else if !h.toOriginal {
						kind = "earlier replacement"
					}
					k := key{h.round, r, from, kind}
					if twice[k] == 0 {
						keys = append(keys, k)
					}
					twice[k]++
					total++
				}
				to := after[m.To]
				last[m.Pod] = hop{round: r, to: to, toNew: !beforeSet[to], toOriginal: origSet[to]}
			}
		}
		t.Logf("round %d: %d commands, %d evictions, $%.2f/h -> $%.2f/h, %d nodes removed, %d leaving",
			r, len(res.Commands), res.PodsEvicted, res.CostBeforePerHour, res.CostAfterPerHour, len(res.removed), len(res.Leaving))
	}
	t.Logf("%d pods moved twice", total)
	slices.SortFunc(keys, func(a, b key) int { return cmpKey(a.from, b.from, a.to, b.to, a.node, b.node) })
	byRound := map[int][]string{}
	for _, k := range keys {
		t.Logf("  %d pods: round %d -> %s (%s) -> evicted again round %d", twice[k], k.from, k.node, k.kind, k.to)
		byRound[k.from] = append(byRound[k.from], k.node)
	}
	for r := range plans {
		if len(byRound[r]) > 0 {
			diagnoseRound(t, snaps[r], clocks[r], plans[r], byRound[r])
		}
	}
}

func cmpKey(a1, b1, a2, b2 int, a3, b3 string) int {
	if a1 != b1 {
		return a1 - b1
	}
	if a2 != b2 {
		return a2 - b2
	}
	return strings.Compare(a3, b3)
}

// diagnoseRound replays the walk of one round: the step, where its
// trajectory ends, and whether the nodes pods were moved onto and later
// evicted from (through, by id) were among the nodes that end removes.
func diagnoseRound(t *testing.T, snap *state.Snapshot, now time.Time, taken *Result, twice []string) {
	ctx := context.Background()
	opts := DefaultOptions()
	opts.Packing = append(slices.Clip(opts.Packing), packing.WithCache(packing.NewCache()), packing.WithoutLowerBound())
	step, err := planOnce(ctx, snap, now, opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, ends, err := traceTrajectory(ctx, snap, now, opts, step)
	if err != nil {
		t.Fatal(err)
	}
	perPod := perPodPrice(snap, opts)
	tookStep := slices.Equal(step.removed, taken.removed)
	through := movesOnto(step, first.removes)
	t.Logf("round at %s: step removes %d nodes, %d evictions; taken plan is the step: %v; step's trajectory: %d plans, ends $%.2f/h, %d evictions, removes %d original nodes; moves pods onto %d of them",
		now.Format("15:04"), len(step.removed), step.PodsEvicted, tookStep, len(ends), first.cost, first.evicted, len(first.removes), len(through))
	for _, id := range twice {
		name, _, _ := strings.Cut(id, "@")
		inSnap := nodeIDs(snap)[name] == id
		fate := "kept at the trajectory's end"
		for i, s := range ends {
			if nodeIDs(s)[name] != id {
				fate = fmt.Sprintf("removed by trajectory plan %d of %d", i, len(ends))
				break
			}
		}
		t.Logf("  through %s: in this round's snapshot %v, in end.removes %v; %s", id, inSnap, first.removes[name] && inSnap, fate)
	}
	if len(through) == 0 {
		return
	}
	walked, err := planOnce(ctx, snap, now, opts, through, through)
	if err != nil {
		t.Fatal(err)
	}
	if !consolidates(walked) {
		t.Logf("  alternative does not consolidate")
		return
	}
	second, _, err := traceTrajectory(ctx, snap, now, opts, walked)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("  alternative: removes %d, %d evictions; ends $%.2f/h, %d evictions; score %.3f against step's %.3f",
		len(walked.removed), walked.PodsEvicted, second.cost, second.evicted,
		second.cost+perPod*float64(second.evicted), first.cost+perPod*float64(first.evicted))
}

// traceTrajectory is trajectory, also returning the cluster after each
// plan applied.
func traceTrajectory(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options, res *Result) (end, []*state.Snapshot, error) {
	var ends []*state.Snapshot
	out, err := visitTrajectory(ctx, snap, now, opts, res, func(s *state.Snapshot) { ends = append(ends, s) })
	return out, ends, err
}
