package packing_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// exoticOptions lists the claims' options of an exotic type.
func exoticOptions(r *packing.Result) []string {
	var out []string
	for _, cl := range r.Claims {
		for _, o := range cl.Options {
			if it, ok := statetest.Catalog().Get(o.InstanceType); ok && it.Exotic() != "" {
				out = append(out, fmt.Sprintf("%s: %s (%s)", cl.Name, o.InstanceType, it.Exotic()))
			}
		}
	}
	return out
}

// webAndBatch is the tenon_simulation example's workload: before exotic
// types were kept for the pods that want them, it got an inf1.6xlarge.
func webAndBatch() []*state.Pod {
	pods := statetest.Pods(6, "web", "500m", "1Gi", statetest.WithLabel("app", "web"),
		statetest.WithSpread(scheduling.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))
	return append(pods, statetest.Pods(10, "batch", "2", "4Gi", statetest.WithNodeSelector(scheduling.LabelArch, scheduling.ArchAMD64))...)
}

func TestNoExoticNodesForOrdinaryPods(t *testing.T) {
	spot := statetest.Pool("general", statetest.WithSpot())
	withTypes := func(names ...string) statetest.PoolOption {
		return func(p *state.Pool) {
			p.InstanceTypes = nil
			for _, n := range names {
				it, ok := statetest.Catalog().Get(n)
				if !ok {
					t.Fatalf("no %s", n)
				}
				p.InstanceTypes = append(p.InstanceTypes, it)
			}
		}
	}
	for _, tc := range []struct {
		desc string
		pool *state.Pool
		pods []*state.Pod
		// want is the exotic kind every claim's first option must have
		// ("" for ordinary types only, in every option).
		want string
	}{
		{"web and batch on spot", spot, webAndBatch(), ""},
		{"many small pods", spot, statetest.Pods(200, "p", "250m", "512Mi"), ""},
		{"memory-heavy pods", spot, statetest.Pods(20, "m", "1", "30Gi"), ""},
		{"a pod asking for a GPU", spot, one(statetest.Pod("train", "2", "8Gi", statetest.WithRequest(catalog.ResourceNVIDIAGPU, "1"))), catalog.ExoticGPU},
		{"a pod asking for Neuron", spot, one(statetest.Pod("infer", "2", "8Gi", statetest.WithRequest(catalog.ResourceNeuron, "1"))), catalog.ExoticAccelerator},
		{"a pod naming an accelerator family", spot, one(statetest.Pod("infer", "2", "8Gi", statetest.WithNodeSelector(scheduling.LabelInstanceFamily, "inf1"))), catalog.ExoticAccelerator},
		{"a pool naming GPU categories", statetest.Pool("gpu", statetest.WithSpot(), statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceCategory, "g"))),
			statetest.Pods(4, "p", "1", "2Gi"), catalog.ExoticGPU},
		{"a pool naming metal", statetest.Pool("metal", statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceSize, "metal"))),
			one(statetest.Pod("p", "1", "2Gi")), catalog.ExoticMetal},
		{"metal when nothing else holds the pod", statetest.Pool("m5", withTypes("m5.large", "m5.metal")),
			one(statetest.Pod("big", "10", "20Gi")), catalog.ExoticMetal},
		{"no metal when a virtualised type holds it", statetest.Pool("m5", withTypes("m5.large", "m5.4xlarge", "m5.metal")),
			statetest.Pods(12, "p", "1500m", "2Gi"), ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r := solveChecked(t, statetest.Snapshot(statetest.Pools(tc.pool), nil, nil), tc.pods)
			if len(r.Unschedulable) > 0 {
				t.Fatalf("unschedulable: %+v", r.Unschedulable)
			}
			if tc.want == "" {
				if ex := exoticOptions(r); len(ex) > 0 {
					t.Errorf("ordinary pods were offered exotic types: %v", ex)
				}
				return
			}
			for _, cl := range r.Claims {
				it, _ := statetest.Catalog().Get(cl.Options[0].InstanceType)
				if it.Exotic() != tc.want {
					t.Errorf("claim %s got %s (%q), want a %s type", cl.Name, it.Name, it.Exotic(), tc.want)
				}
			}
		})
	}
}

// TestNoExoticOrUnwantedSpotProperty: for random batches of ordinary pods
// on a pool allowing spot and on-demand, no claim lists an exotic type, and
// no claim lists a spot option dearer than its cheapest on-demand option
// (Karpenter's filterUnwantedSpot, done in packing).
func TestNoExoticOrUnwantedSpotProperty(t *testing.T) {
	cpus := []string{"100m", "250m", "500m", "1", "2", "3500m", "7", "15"}
	mems := []string{"128Mi", "512Mi", "1Gi", "3Gi", "8Gi", "30Gi", "60Gi"}
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 23))
		var pods []*state.Pod
		for g := range 1 + rng.IntN(4) {
			pods = append(pods, statetest.Pods(1+rng.IntN(25), fmt.Sprintf("g%d-", g), cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))])...)
		}
		pool := statetest.Pool("general", statetest.WithSpot())
		r := solveChecked(t, statetest.Snapshot(statetest.Pools(pool), nil, nil), pods)
		if ex := exoticOptions(r); len(ex) > 0 {
			t.Errorf("seed %d: ordinary pods were offered exotic types: %v", seed, ex)
		}
		for _, cl := range r.Claims {
			onDemand := -1.0
			for _, o := range cl.Options {
				if o.CapacityType == scheduling.CapacityTypeOnDemand && onDemand < 0 {
					onDemand = o.PricePerHour
				}
				if o.CapacityType == scheduling.CapacityTypeSpot && onDemand >= 0 && o.PricePerHour > onDemand {
					t.Errorf("seed %d: claim %s lists spot %s at %.4f after on-demand at %.4f", seed, cl.Name, o.InstanceType, o.PricePerHour, onDemand)
				}
			}
		}
	}
}

// TestLowerBoundLeavesOutExoticTypes: for random batches on random pools
// (spot or not), the lower bound of ordinary pods is the bound of the same
// pool without its exotic types, which they never get; with a pod that
// names an exotic family, the bound counts that family again and stays at
// most the cost.
func TestLowerBoundLeavesOutExoticTypes(t *testing.T) {
	cpus := []string{"100m", "500m", "1", "2", "4"}
	mems := []string{"128Mi", "1Gi", "4Gi", "8Gi", "16Gi"}
	checked := 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 29))
		types := randomTypes(rng, 6+rng.IntN(30))
		var ordinary []*catalog.InstanceType
		var family string
		for _, it := range types {
			if it.Exotic() == "" {
				ordinary = append(ordinary, it)
			} else if f, _ := it.Requirements.Get(scheduling.LabelInstanceFamily).Any(); family == "" && it.Exotic() != catalog.ExoticMetal {
				family = f
			}
		}
		if len(ordinary) == len(types) {
			continue
		}
		var opts []statetest.PoolOption
		if rng.IntN(2) == 0 {
			opts = append(opts, statetest.WithSpot())
		}
		snap := func(types []*catalog.InstanceType) *state.Snapshot {
			p := statetest.Pool("default", opts...)
			p.InstanceTypes = types
			return statetest.Snapshot(statetest.Pools(p), nil, nil)
		}
		var pods []*state.Pod
		for i := range 1 + rng.IntN(30) {
			pods = append(pods, statetest.Pod(fmt.Sprintf("p%d", i), pick(rng, cpus), pick(rng, mems)))
		}
		all, only := mustSolve(t, snap(types), pods), mustSolve(t, snap(ordinary), pods)
		if len(all.Unschedulable) > 0 || len(only.Unschedulable) > 0 {
			continue
		}
		checked++
		if math.Abs(all.LowerBoundPerHour-only.LowerBoundPerHour) > 1e-9*only.LowerBoundPerHour {
			t.Errorf("seed %d: bound %.6f with exotic types, %.6f without: ordinary pods never get them", seed, all.LowerBoundPerHour, only.LowerBoundPerHour)
		}
		if family == "" {
			continue
		}
		named := append(slices.Clone(pods), statetest.Pod("named", "100m", "128Mi", statetest.WithNodeSelector(scheduling.LabelInstanceFamily, family)))
		r := solveChecked(t, snap(types), named)
		if len(r.Unschedulable) == 0 && r.LowerBoundPerHour > r.CostPerHour*(1+1e-9) {
			t.Errorf("seed %d: with a pod naming %s, bound %.6f above the cost %.6f", seed, family, r.LowerBoundPerHour, r.CostPerHour)
		}
	}
	if checked < 50 {
		t.Errorf("only %d of 200 random pools had exotic types and placed every pod", checked)
	}
}
