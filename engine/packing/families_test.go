package packing

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestFamilyBans checks which types the second fill of a large batch may
// open: every size of the families the answer buys in each pool, no other
// type, and a type without a family label only when bought itself.
func TestFamilyBans(t *testing.T) {
	byName := map[string]*catalog.InstanceType{}
	for _, it := range statetest.Catalog().InstanceTypes() {
		byName[it.Name] = it
	}
	pool := func(name string, types ...string) *state.Pool {
		p := statetest.Pool(name)
		p.InstanceTypes = nil
		for _, n := range types {
			it := byName[n]
			if it == nil {
				// A type of a scenario file's own catalog, without
				// the family label: a copy of c5.large.
				c := *byName["c5.large"]
				c.Name = n
				c.Requirements = c.Requirements.Clone()
				delete(c.Requirements, scheduling.LabelInstanceFamily)
				it = &c
			}
			p.InstanceTypes = append(p.InstanceTypes, it)
		}
		return p
	}
	claim := func(pool, typ string) *Claim {
		return &Claim{Pool: pool, Options: []InstanceOption{{InstanceType: typ}}}
	}
	a := pool("a", "m5.large", "m5.xlarge", "m5.2xlarge", "c5.large", "c5.xlarge", "r5.large", "custom-1", "custom-2")
	b := pool("b", "m5.large", "m5.xlarge", "c5.large")
	snap := statetest.Snapshot([]*state.Pool{a, b}, nil, nil)
	for _, tc := range []struct {
		name   string
		claims []*Claim
		// allowed are the types left to each pool's fill.
		allowed map[string][]string
	}{{
		name:    "one size bought allows every size of its family, in its pool only",
		claims:  []*Claim{claim("a", "m5.xlarge")},
		allowed: map[string][]string{"a": {"m5.large", "m5.xlarge", "m5.2xlarge"}, "b": nil},
	}, {
		name:    "families are per pool",
		claims:  []*Claim{claim("a", "r5.large"), claim("b", "c5.large"), claim("b", "m5.large")},
		allowed: map[string][]string{"a": {"r5.large"}, "b": {"m5.large", "m5.xlarge", "c5.large"}},
	}, {
		name:    "a type without a family is a family of its own",
		claims:  []*Claim{claim("a", "custom-1"), claim("a", "c5.xlarge")},
		allowed: map[string][]string{"a": {"c5.large", "c5.xlarge", "custom-1"}, "b": nil},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			bans := familyBans(snap, &Result{Claims: tc.claims})
			for _, p := range snap.Pools {
				var left []string
				for _, it := range p.InstanceTypes {
					if !bans[ban{p.Name, it.Name}] {
						left = append(left, it.Name)
					}
				}
				if !slices.Equal(left, tc.allowed[p.Name]) {
					t.Errorf("pool %s: the fill may open %v, want %v", p.Name, left, tc.allowed[p.Name])
				}
			}
		})
	}
}

// TestSecondFillRunsOnLargeBatchesOnly counts the packings one Solve
// makes: two (the first fill and the second on the answer's families) for
// a batch of 100 to 9,999 pods, one for 10,000 pods or more and for
// callers that skip it (WithoutSecondFill, or one strategy).
func TestSecondFillRunsOnLargeBatchesOnly(t *testing.T) {
	snap := statetest.Snapshot([]*state.Pool{statetest.Pool("default")}, nil, nil)
	batch := func(n int) []*state.Pod {
		cpus, mems := []string{"250m", "500m", "1", "2"}, []string{"512Mi", "1Gi", "3Gi", "6Gi"}
		pods := make([]*state.Pod, n)
		for i := range pods {
			pods[i] = statetest.Pod(fmt.Sprintf("p%05d", i), cpus[i%4], mems[i/4%4])
		}
		return pods
	}
	large := secondFillMaxPods
	if testing.Short() {
		large = 0
	}
	for _, tc := range []struct {
		name string
		pods int
		opts []Option
		want int64
	}{
		{name: "a large batch is filled twice", pods: planMinPods, want: 2},
		{name: "WithoutSecondFill fills once", pods: planMinPods, opts: []Option{WithoutSecondFill()}, want: 1},
		{name: "one strategy fills once", pods: planMinPods, opts: []Option{WithStrategy(0)}, want: 1},
		{name: "from secondFillMaxPods pods, once", pods: large, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.pods == 0 {
				t.Skip("skipped under -short")
			}
			var n atomic.Int64
			opts := append(tc.opts, func(o *options) { o.solves = &n })
			r, err := Solve(t.Context(), snap, batch(tc.pods), opts...)
			if err != nil || len(r.Claims) == 0 {
				t.Fatalf("Solve: %v, %d claims", err, len(r.Claims))
			}
			if n.Load() != tc.want {
				t.Errorf("%d packings, want %d", n.Load(), tc.want)
			}
		})
	}
}
