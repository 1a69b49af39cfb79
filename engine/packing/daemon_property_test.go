package packing_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// daemonScenarios is how many random scenarios TestDaemonSetOverheadProperty solves.
const daemonScenarios = 200

// randomDaemonSets draws one to five daemonsets as clusters run them: on
// every node, on the nodes of one instance category (by node selector), or
// in us-east-1a or us-east-1a and 1b (by required node affinity), each of
// 25m to 500m cpu and 64Mi to 512Mi. zonal is set when all are of the
// last kind: us-east-1c then runs none.
func randomDaemonSets(rng *rand.Rand) (out []*state.DaemonSet, zonal bool) {
	zonal = true
	for i := range 1 + rng.IntN(5) {
		cpu := pick(rng, []string{"25m", "100m", "250m", "500m"})
		mem := pick(rng, []string{"64Mi", "128Mi", "256Mi", "512Mi"})
		var opts []statetest.PodOption
		switch rng.IntN(4) {
		case 0:
			opts = append(opts, statetest.WithNodeSelector(scheduling.LabelInstanceCategory, pick(rng, []string{"c", "m", "r", "t"})))
			zonal = false
		case 1:
			opts = append(opts, statetest.WithRequiredNodeAffinity(scheduling.LabelTopologyZone, corev1.NodeSelectorOpIn, statetest.Zones[:1+rng.IntN(2)]...))
		default:
			zonal = false
		}
		out = append(out, statetest.DaemonSet(fmt.Sprintf("ds%d", i), cpu, mem, opts...))
	}
	return out, zonal
}

// TestDaemonSetOverheadProperty packs random mixes of the W1 kind (20 to
// 120 pods) on a pool of 40 random amd64 types in three zones, with and
// without random daemonsets, and checks that their overhead is part of
// the choice of type and zone:
//   - every node fits the daemonsets that select it (check.Result) and the
//     lower bound stays below the cost;
//   - where the daemonsets all run in some zones only, packing with them
//     costs no more than without them (less 1%): us-east-1c offers every
//     type without the overhead, and the packer must see it;
//   - over all scenarios, the gap to the lower bound with daemonsets is on
//     average no wider than without them (plus half a point): the packer
//     pays for the overhead no more than the bound does.
func TestDaemonSetOverheadProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 4))
	var sumWith, sumWithout float64
	var compared int
	for i := range daemonScenarios {
		pool := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, statetest.Zones...)))
		pool.InstanceTypes = randomTypes(rng, 40)
		var pods []*state.Pod
		for j := range 20 + rng.IntN(100) {
			pods = append(pods, statetest.Pod(fmt.Sprintf("p%d", j), pick(rng, []string{"100m", "250m", "500m", "1", "2", "4"}),
				pick(rng, []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"})))
		}
		daemons, zonal := randomDaemonSets(rng)
		with := statetest.Snapshot(statetest.Pools(pool), nil, nil, daemons...)
		without := statetest.Snapshot(statetest.Pools(pool), nil, nil)
		rw, err := packing.Solve(t.Context(), with, pods)
		if err != nil {
			t.Fatal(err)
		}
		ro, err := packing.Solve(t.Context(), without, pods)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("scenario-%d", i)
		for _, v := range check.Result(with, pods, rw) {
			t.Errorf("%s: violation: %s", name, v)
		}
		if rw.LowerBoundPerHour > rw.CostPerHour+1e-9 {
			t.Errorf("%s: lower bound %.5f above cost %.5f", name, rw.LowerBoundPerHour, rw.CostPerHour)
		}
		if len(rw.Unschedulable) > 0 || len(ro.Unschedulable) > 0 || ro.LowerBoundPerHour <= 0 {
			continue
		}
		if zonal && rw.CostPerHour > ro.CostPerHour*1.01 {
			t.Errorf("%s: $%.4f/h with daemonsets running in some zones only, $%.4f/h without them", name, rw.CostPerHour, ro.CostPerHour)
		}
		sumWith += rw.CostPerHour / rw.LowerBoundPerHour
		sumWithout += ro.CostPerHour / ro.LowerBoundPerHour
		compared++
	}
	with, without := sumWith/float64(compared), sumWithout/float64(compared)
	if with > without+0.005 {
		t.Errorf("mean cost/bound %.4f with daemonsets, %.4f without", with, without)
	}
	t.Logf("%d scenarios compared: mean cost/bound %.4f with daemonsets, %.4f without", compared, with, without)
}
