package consolidation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

var randomTypes = []string{"t3a.medium", "t3a.large", "m5.large", "m5.xlarge", "m5.2xlarge", "c5.xlarge", "c5.2xlarge", "r5.large", "r5.xlarge"}

// randomSnapshot draws a cluster: one or two pools (spot allowed in some,
// budgets as counts, percentages or cron windows), 2 to 14 nodes filled
// to a random level, with PDBs, do-not-disrupt and bare pods, priorities,
// zonal spread, and now and then a drifted or expired node.
func randomSnapshot(r *rand.Rand) *state.Snapshot {
	var pools []*state.Pool
	for i := range 1 + r.IntN(2) {
		p := testPool(fmt.Sprintf("pool%d", i))
		if r.IntN(3) == 0 {
			withSpot()(p)
		}
		switch r.IntN(4) {
		case 0:
			p.Disruption.Budgets = []state.Budget{{Nodes: fmt.Sprint(r.IntN(4))}}
		case 1:
			p.Disruption.Budgets = []state.Budget{{Nodes: fmt.Sprintf("%d%%", 10+r.IntN(90))}}
		case 2:
			d := 8 * time.Hour
			p.Disruption.Budgets = []state.Budget{{Nodes: "100%"}, {Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: &d, Reasons: []string{"Underutilized"}}}
		}
		if r.IntN(5) == 0 {
			d := 720 * time.Hour
			p.ExpireAfter = &d
		}
		pools = append(pools, p)
	}
	var nodes []*state.Node
	var pods []*state.Pod
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	for i := range 2 + r.IntN(13) {
		p := pools[r.IntN(len(pools))]
		ct := od
		if p.Requirements.Get(scheduling.LabelCapacityType).Has(spot) && r.IntN(2) == 0 {
			ct = spot
		}
		typ := randomTypes[r.IntN(len(randomTypes))]
		name := fmt.Sprintf("node-%02d", i)
		n := testNode(p, name, typ, zones[r.IntN(3)], ct)
		switch r.IntN(12) {
		case 0:
			n.TemplateHash = "old"
		case 1:
			n.CreatedAt = t0.Add(-800 * time.Hour)
		case 2:
			n.Annotations = map[string]string{v1.AnnotationDoNotDisrupt: "true"}
		case 3:
			n.Held = "a disruption command is in flight on it (test)"
		}
		nodes = append(nodes, n)
		cpuLeft := n.Allocatable.Cpu().MilliValue()
		memLeft := n.Allocatable.Memory().Value()
		fill := r.Float64()
		for j := 0; ; j++ {
			cpu := []int64{100, 250, 500, 1000}[r.IntN(4)]
			mem := []int64{128, 256, 512, 1024, 2048}[r.IntN(5)] << 20
			if float64(cpu) > float64(cpuLeft)-(1-fill)*float64(n.Allocatable.Cpu().MilliValue()) || mem > memLeft {
				break
			}
			cpuLeft -= cpu
			memLeft -= mem
			app := []string{"web", "api", "batch"}[r.IntN(3)]
			pod := testPod(fmt.Sprintf("%s-%s-%d", app, name, j), "1", "1Gi", name, priority(int32(r.IntN(3)*100)))
			pod.Labels = map[string]string{"app": app}
			pod.Requests = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(cpu, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(mem, resource.BinarySI)}
			switch r.IntN(25) {
			case 0:
				annotated(v1.AnnotationDoNotDisrupt, "true")(pod)
			case 1:
				pod.Owner = state.Owner{}
			case 2:
				annotated(v1.AnnotationDoNotDisrupt, "90m")(pod)
			}
			if app == "api" {
				pod.TopologySpread = []corev1.TopologySpreadConstraint{{MaxSkew: 3, TopologyKey: scheduling.LabelTopologyZone,
					WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}}}
			}
			pods = append(pods, pod)
		}
	}
	// Keep the zonal spread only where the drawn cluster already honours
	// it, as a scheduler would have.
	perZone := map[string]int{}
	zoneOf := map[string]string{}
	for _, n := range nodes {
		zoneOf[n.Name] = n.Zone
	}
	for _, p := range pods {
		if p.Labels["app"] == "api" {
			perZone[zoneOf[p.NodeName]]++
		}
	}
	lo, hi := perZone[zones[0]], perZone[zones[0]]
	for _, z := range zones {
		lo, hi = min(lo, perZone[z]), max(hi, perZone[z])
	}
	if hi-lo > 3 {
		for _, p := range pods {
			p.TopologySpread = nil
		}
	}
	s := snapshot(pools, nodes, pods)
	if r.IntN(2) == 0 {
		s.PDBs = append(s.PDBs, pdb("web", "web", nil, ptr(intstr.FromInt32(int32(r.IntN(4))))))
	}
	if r.IntN(2) == 0 {
		s.PDBs = append(s.PDBs, pdb("batch", "batch", ptr(intstr.FromString("60%")), nil))
	}
	sortPods(s)
	return s
}

// TestPlanProperties plans over random clusters: every plan places every
// evicted pod validly (check.Result through Validate), keeps within every
// PDB and budget, never raises cost by consolidating, accounts for every
// node, never disrupts a held node (state.Node.Held: a command in flight
// on it, a fresh replacement), and applies to a cluster where every
// workload pod is bound.
func TestPlanProperties(t *testing.T) {
	n := 150
	if testing.Short() || raceEnabled {
		n = 40
	}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 99))
		snap := randomSnapshot(r)
		now := t0.Add(time.Duration(r.IntN(48)) * time.Hour)
		res, err := Plan(context.Background(), snap, now, DefaultOptions())
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if v := Validate(snap, res); len(v) > 0 {
			t.Fatalf("scenario %d: plan breaks rules: %v", i, v)
		}
		checkPDBs(t, i, snap, res)
		checkBudgets(t, i, snap, res, now)
		removed := map[string]bool{}
		for _, c := range res.Commands {
			for _, n := range c.Nodes {
				if removed[n] {
					t.Errorf("scenario %d: node %s removed twice", i, n)
				}
				removed[n] = true
			}
			if (c.Reason == ReasonUnderutilized || c.Reason == ReasonEmpty) && c.CostAfterPerHour >= c.CostBeforePerHour && c.CostBeforePerHour > 0 {
				t.Errorf("scenario %d: %s command %v does not save: $%v -> $%v", i, c.Reason, c.Nodes, c.CostBeforePerHour, c.CostAfterPerHour)
			}
		}
		checkHeld(t, i, snap, removed, res)
		if len(removed)+len(res.Kept) != len(snap.Nodes) {
			t.Errorf("scenario %d: %d removed + %d kept != %d nodes", i, len(removed), len(res.Kept), len(snap.Nodes))
		}
		onlyVoluntary := true
		for _, c := range res.Commands {
			onlyVoluntary = onlyVoluntary && (c.Reason == ReasonUnderutilized || c.Reason == ReasonEmpty)
		}
		if onlyVoluntary && res.CostAfterPerHour > res.CostBeforePerHour+1e-9 {
			t.Errorf("scenario %d: cost rises from %v to %v", i, res.CostBeforePerHour, res.CostAfterPerHour)
		}
		after, err := Apply(snap, res)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		nodes := map[string]bool{}
		for _, n := range after.Nodes {
			nodes[n.Name] = true
		}
		for _, p := range after.Pods {
			if !p.DaemonSet && !nodes[p.NodeName] && len(res.result.Unschedulable) == 0 {
				t.Errorf("scenario %d: pod %s on %q, not a node after the plan", i, p.Key(), p.NodeName)
			}
		}
	}
}

// checkHeld checks that no command removes a held node and that the plan
// keeps it for the reason it is held.
func checkHeld(t *testing.T, i int, snap *state.Snapshot, removed map[string]bool, res *Result) {
	t.Helper()
	for _, n := range snap.Nodes {
		if n.Held == "" {
			continue
		}
		if removed[n.Name] {
			t.Errorf("scenario %d: held node %s (%s) is the subject of a command", i, n.Name, n.Held)
		}
		if got := keptReason(res, n.Name); !strings.Contains(got, n.Held) {
			t.Errorf("scenario %d: held node %s kept as %q, want %q", i, n.Name, got, n.Held)
		}
	}
}

// checkPDBs checks that no voluntary command evicts a pod of a PDB that
// allows 0 disruptions (the Eviction API paces the rest: see pdbs).
func checkPDBs(t *testing.T, i int, snap *state.Snapshot, res *Result) {
	t.Helper()
	budgets := newPDBs(snap)
	for _, c := range res.Commands {
		if c.Reason == ReasonExpired {
			continue
		}
		for _, m := range c.Moves {
			for _, j := range budgets.of[m.Pod] {
				if budgets.allowed[j] < 1 {
					t.Errorf("scenario %d: PDB %s allows 0 disruptions, the plan evicts %s", i, snap.PDBs[j].Name, m.Pod)
				}
			}
		}
	}
}

// checkBudgets counts the nodes each pool disrupts per voluntary reason
// against its most restrictive active budget.
func checkBudgets(t *testing.T, i int, snap *state.Snapshot, res *Result, now time.Time) {
	t.Helper()
	b := newBudgets(snap, now)
	pools := map[string]*state.Pool{}
	for _, p := range snap.Pools {
		pools[p.Name] = p
	}
	poolOf := map[string]string{}
	for _, n := range snap.Nodes {
		poolOf[n.Name] = n.Pool
	}
	// The commands run in the plan's order, and a command's budget counts
	// every node disrupted before and with it, whatever the reason (as
	// Karpenter's budgets count every node being disrupted): a later
	// method with a larger budget may add to what an earlier one took.
	// Expired nodes are not limited, so they do not count.
	used := map[string]int{}
	for _, c := range res.Commands {
		pool := pools[poolOf[c.Nodes[0]]]
		if c.Reason == ReasonExpired {
			continue
		}
		for _, n := range c.Nodes {
			used[poolOf[n]]++
		}
		ab, err := b.allowed(pool, c.Reason)
		if err != nil {
			t.Fatal(err)
		}
		if !ab.Unlimited && used[pool.Name]+b.disrupting[pool.Name] > ab.Allowed {
			t.Errorf("scenario %d: pool %s disrupts %d nodes up to its %s command %v (%d already being deleted), budget for %s allows %d",
				i, pool.Name, used[pool.Name], c.Reason, c.Nodes, b.disrupting[pool.Name], c.Reason, ab.Allowed)
		}
	}
}

// TestPlanDeterministic: the same Snapshot and clock give byte-identical
// plans, on random clusters and on a scaled-down packed one.
func TestPlanDeterministic(t *testing.T) {
	snaps := []*state.Snapshot{}
	for i := range 20 {
		snaps = append(snaps, randomSnapshot(rand.New(rand.NewPCG(uint64(i), 7))))
	}
	if !testing.Short() {
		size := 4000
		if raceEnabled {
			size = 1000
		}
		snaps = append(snaps, scaledDown(packedCluster(t, size, 3), 0.5, 3))
	}
	for i, snap := range snaps {
		var first []byte
		for range 3 {
			res, err := Plan(context.Background(), snap, t0, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got
			} else if !bytes.Equal(first, got) {
				t.Fatalf("snapshot %d: plans differ:\n%s\n%s", i, first, got)
			}
		}
	}
}

func sortPods(s *state.Snapshot) {
	slices.SortFunc(s.Pods, func(a, b *state.Pod) int { return strings.Compare(a.Key(), b.Key()) })
}
