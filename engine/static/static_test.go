package static_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
	"github.com/tenonhq/terraform-provider-tenon/engine/static"
)

func replicas(n int64) statetest.PoolOption { return func(p *state.Pool) { p.Replicas = &n } }

func nodeLimit(n string) statetest.PoolOption {
	return func(p *state.Pool) { p.Limits = corev1.ResourceList{state.ResourceNodes: resource.MustParse(n)} }
}

func deleting(n *state.Node) { n.MarkedForDeletion = true }

func TestPlan(t *testing.T) {
	m5 := statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.large", "m5.xlarge", "c5.large"))
	cases := []struct {
		name    string
		pool    *state.Pool
		nodes   func(p *state.Pool) []*state.Node
		launch  int
		surplus int
		blocked string
		// cheapest is the instance type every claim is priced at.
		cheapest string
	}{
		{name: "empty pool launches its replicas", pool: statetest.Pool("s", replicas(3), m5), launch: 3, cheapest: "c5.large"},
		{name: "a dynamic pool launches nothing", pool: statetest.Pool("d", m5)},
		{name: "zero replicas", pool: statetest.Pool("s", replicas(0), m5)},
		{name: "a node being deleted is replaced", pool: statetest.Pool("s", replicas(2), m5), nodes: func(p *state.Pool) []*state.Node {
			n := statetest.Node(p, "s-1", "m5.large", "us-east-1a")
			deleting(n)
			return []*state.Node{n, statetest.Node(p, "s-2", "m5.large", "us-east-1b")}
		}, launch: 1, cheapest: "c5.large"},
		{name: "an in-flight claim counts", pool: statetest.Pool("s", replicas(2), m5), nodes: func(p *state.Pool) []*state.Node {
			n := statetest.Node(p, "s-1", "m5.large", "us-east-1a")
			n.InFlight, n.Initialized = true, false
			return []*state.Node{n}
		}, launch: 1, cheapest: "c5.large"},
		{name: "surplus", pool: statetest.Pool("s", replicas(1), m5), nodes: func(p *state.Pool) []*state.Node {
			return []*state.Node{statetest.Node(p, "s-1", "m5.large", "us-east-1a"), statetest.Node(p, "s-2", "m5.large", "us-east-1b"), statetest.Node(p, "s-3", "m5.large", "us-east-1c")}
		}, surplus: 2},
		{name: "limits.nodes caps the launches", pool: statetest.Pool("s", replicas(3), nodeLimit("2"), m5), launch: 2, blocked: "limits.nodes 2 reached", cheapest: "c5.large"},
		{name: "a node being deleted counts toward limits.nodes", pool: statetest.Pool("s", replicas(1), nodeLimit("1"), m5), nodes: func(p *state.Pool) []*state.Node {
			n := statetest.Node(p, "s-1", "m5.large", "us-east-1a")
			deleting(n)
			return []*state.Node{n}
		}, blocked: "1 being deleted"},
		{name: "no offering", pool: statetest.Pool("s", replicas(1), statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "no.such"))),
			blocked: `nodepool "s" allows no instance type`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var nodes []*state.Node
			if tc.nodes != nil {
				nodes = tc.nodes(tc.pool)
			}
			claims, statuses := static.Plan(statetest.Snapshot(statetest.Pools(tc.pool), nodes, nil))
			if len(claims) != tc.launch {
				t.Fatalf("got %d claims, want %d", len(claims), tc.launch)
			}
			if !tc.pool.Static() {
				if len(statuses) != 0 {
					t.Fatalf("a dynamic pool has a static status: %+v", statuses)
				}
				return
			}
			st := statuses[0]
			if st.Launch != tc.launch || st.Surplus != tc.surplus || !strings.Contains(st.Blocked, tc.blocked) || (tc.blocked == "") != (st.Blocked == "") {
				t.Fatalf("status %+v, want launch %d surplus %d blocked %q", st, tc.launch, tc.surplus, tc.blocked)
			}
			names := map[string]bool{}
			for _, n := range nodes {
				names[n.Name] = true
			}
			for _, cl := range claims {
				if names[cl.Name] {
					t.Errorf("claim %s reuses a node's name", cl.Name)
				}
				names[cl.Name] = true
				if cl.Pool != tc.pool.Name || cl.Chosen().InstanceType != tc.cheapest || cl.Labels[scheduling.LabelNodePool] != tc.pool.Name {
					t.Errorf("claim %s: pool %s, chosen %+v, labels %v", cl.Name, cl.Pool, cl.Chosen(), cl.Labels)
				}
				for i := 1; i < len(cl.Options); i++ {
					if cl.Options[i].PricePerHour < cl.Options[i-1].PricePerHour {
						t.Errorf("claim %s: options not cheapest first: %+v", cl.Name, cl.Options)
					}
				}
			}
		})
	}
}

// Replicas spread over the zones where that costs nothing: on-demand is
// priced alike in every zone, so three replicas take three zones, and a
// fourth the zone a node being deleted leaves.
func TestPlanSpreadsZones(t *testing.T) {
	pool := statetest.Pool("s", replicas(4), statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.large")))
	gone := statetest.Node(pool, "s-9", "m5.large", "us-east-1a")
	deleting(gone)
	kept := statetest.Node(pool, "s-8", "m5.large", "us-east-1a")
	claims, _ := static.Plan(statetest.Snapshot(statetest.Pools(pool), []*state.Node{gone, kept}, nil))
	zones := map[string]int{"us-east-1a": 1}
	for _, cl := range claims {
		zones[cl.Chosen().Zone]++
	}
	if len(claims) != 3 || zones["us-east-1a"] != 2 || zones["us-east-1b"] != 1 || zones["us-east-1c"] != 1 {
		t.Fatalf("claims %d, zones %v: want 3 claims, one more in us-east-1a only after b and c", len(claims), zones)
	}
}

// A pool that allows every type gets an ordinary one, not the exotic
// types that are cheapest per hour on spot.
func TestPlanSkipsExoticTypes(t *testing.T) {
	pool := statetest.Pool("s", replicas(1), statetest.WithSpot())
	claims, _ := static.Plan(statetest.Snapshot(statetest.Pools(pool), nil, nil))
	if len(claims) != 1 {
		t.Fatalf("got %d claims", len(claims))
	}
	for _, o := range claims[0].Options {
		it, _ := statetest.Catalog().Get(o.InstanceType)
		if it.Exotic() != "" {
			t.Fatalf("option %s is exotic (%s)", o.InstanceType, it.Exotic())
		}
	}
	if len(claims[0].Options) != static.MaxOptions {
		t.Fatalf("got %d options, want %d", len(claims[0].Options), static.MaxOptions)
	}
}
