package packing_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// propertyScenarios is how many random scenarios the property test solves.
const propertyScenarios = 1000

var pricedAMD64 = sync.OnceValue(func() []*catalog.InstanceType {
	var all []*catalog.InstanceType
	for _, it := range statetest.Catalog().InstanceTypes() {
		if len(it.Offerings) > 0 && it.Requirements.Get(scheduling.LabelArch).Has(scheduling.ArchAMD64) {
			all = append(all, it)
		}
	}
	return all
})

// randomTypes picks n priced amd64 types.
func randomTypes(rng *rand.Rand, n int) []*catalog.InstanceType {
	all := pricedAMD64()
	out := make([]*catalog.InstanceType, n)
	for i := range out {
		out[i] = all[rng.IntN(len(all))]
	}
	slices.SortFunc(out, func(a, b *catalog.InstanceType) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(out, func(a, b *catalog.InstanceType) bool { return a.Name == b.Name })
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// randomScenario builds pools with random requirements, taints, limits
// and weights, a few existing nodes with bound pods, and pending pods with
// random requests and constraints.
func randomScenario(rng *rand.Rand) (*state.Snapshot, []*state.Pod, bool) {
	limited := false
	var pools []*state.Pool
	for i := range 1 + rng.IntN(3) {
		zones := append([]string(nil), statetest.Zones[:1+rng.IntN(3)]...)
		opts := []statetest.PoolOption{
			statetest.WithRequirement(scheduling.In(scheduling.LabelTopologyZone, zones...)),
			statetest.WithWeight(int32(rng.IntN(3))),
		}
		if rng.IntN(2) == 0 {
			opts = append(opts, statetest.WithSpot())
		}
		if rng.IntN(4) == 0 {
			opts = append(opts, statetest.WithTaint("dedicated", fmt.Sprint(i), corev1.TaintEffectNoSchedule))
		}
		if rng.IntN(4) == 0 {
			opts = append(opts, statetest.WithLimit(corev1.ResourceCPU, fmt.Sprint(8+rng.IntN(40))))
			limited = true
		}
		p := statetest.Pool(fmt.Sprintf("pool%d", i), opts...)
		p.InstanceTypes = randomTypes(rng, 15)
		pools = append(pools, p)
	}
	var nodes []*state.Node
	var bound []*state.Pod
	for i := range rng.IntN(3) {
		p := pick(rng, pools)
		it := pick(rng, p.InstanceTypes)
		n := statetest.Node(p, fmt.Sprintf("node%d", i), it.Name, pick(rng, statetest.Zones))
		n.Taints = p.Taints
		nodes = append(nodes, n)
		if rng.IntN(2) == 0 {
			b := statetest.Pod(fmt.Sprintf("bound%d", i), "100m", "128Mi", statetest.WithLabel("app", pick(rng, []string{"a", "b"})))
			b.NodeName = n.Name
			bound = append(bound, b)
		}
	}
	var daemons []*state.DaemonSet
	if rng.IntN(3) == 0 {
		daemons = append(daemons, statetest.DaemonSet("agent", "100m", "128Mi"))
	}
	var pending []*state.Pod
	for i := range 1 + rng.IntN(12) {
		app := pick(rng, []string{"a", "b"})
		sel := map[string]string{"app": app}
		opts := []statetest.PodOption{statetest.WithLabel("app", app)}
		if rng.IntN(10) == 0 {
			opts = append(opts, statetest.WithNodeSelector(scheduling.LabelTopologyZone, pick(rng, statetest.Zones)))
		}
		if rng.IntN(3) == 0 {
			opts = append(opts, statetest.WithToleration("dedicated", fmt.Sprint(rng.IntN(3)), corev1.TaintEffectNoSchedule))
		}
		switch rng.IntN(10) {
		case 0:
			opts = append(opts, statetest.WithAntiAffinity(scheduling.LabelHostname, sel))
		case 1:
			opts = append(opts, statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, sel))
		case 2:
			opts = append(opts, statetest.WithSpread(scheduling.LabelHostname, 1, corev1.DoNotSchedule, sel))
		case 3:
			opts = append(opts, statetest.WithPodAffinity(scheduling.LabelTopologyZone, sel))
		case 4:
			opts = append(opts, statetest.WithHostPort(80))
		case 5:
			opts = append(opts, statetest.WithPreferredNodeAffinity(5, scheduling.LabelTopologyZone, pick(rng, statetest.Zones)))
		}
		pending = append(pending, statetest.Pod(fmt.Sprintf("p%d", i), pick(rng, []string{"100m", "500m", "1", "2", "4"}), pick(rng, []string{"128Mi", "1Gi", "4Gi"}), opts...))
	}
	return statetest.Snapshot(pools, nodes, bound, daemons...), pending, limited
}

// alone reports whether a pod has no constraint that depends on other pods.
func alone(p *state.Pod) bool {
	return len(p.TopologySpread) == 0 && len(p.HostPorts) == 0 && (p.Affinity == nil || (p.Affinity.PodAffinity == nil && p.Affinity.PodAntiAffinity == nil))
}

func TestProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range propertyScenarios {
		snap, pending, limited := randomScenario(rng)
		name := fmt.Sprintf("scenario-%d", i)
		// Every strategy alone in turn, and every tenth scenario the
		// whole portfolio Solve runs by default, twice for determinism.
		var opts []packing.Option
		if i%10 != 0 {
			opts = append(opts, packing.WithStrategy(i%packing.Strategies))
			if i%2 == 1 {
				opts = append(opts, packing.WithEagerCliques())
			}
			// Every third scenario packs from a plan (plan.go) first,
			// with either effort.
			if i%3 == 0 {
				opts = append(opts, packing.WithPlan(1+i%packing.PlanEfforts))
			}
		}
		r, err := packing.Solve(t.Context(), snap, pending, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, v := range check.Result(snap, pending, r) {
			t.Errorf("%s: violation: %s", name, v)
		}
		if r.LowerBoundPerHour > r.CostPerHour+1e-9 {
			t.Errorf("%s: lower bound %.5f above cost %.5f", name, r.LowerBoundPerHour, r.CostPerHour)
		}
		if i%10 == 0 {
			again, err := packing.Solve(t.Context(), snap, pending, opts...)
			if err != nil || !reflect.DeepEqual(r, again) {
				t.Errorf("%s: two solves differ", name)
			}
		}
		if limited {
			continue
		}
		for _, u := range r.Unschedulable {
			p := findPod(pending, u.Pod)
			if p == nil || !alone(p) || constrainedApp(pending, p.Labels["app"]) {
				continue
			}
			if solo, err := packing.Solve(t.Context(), snap, []*state.Pod{p}, opts...); err == nil && len(solo.Unschedulable) == 0 {
				t.Errorf("%s: %s placeable alone but unschedulable in the batch: %s", name, u.Pod, u.Reason)
			}
		}
		if t.Failed() {
			return
		}
	}
}

// constrainedApp reports whether a pending pod of app has a pod-level
// constraint, which may then keep the app's other pods from places too.
func constrainedApp(ps []*state.Pod, app string) bool {
	for _, p := range ps {
		if p.Labels["app"] == app && !alone(p) {
			return true
		}
	}
	return false
}

func findPod(ps []*state.Pod, key string) *state.Pod {
	for _, p := range ps {
		if p.Key() == key {
			return p
		}
	}
	return nil
}
