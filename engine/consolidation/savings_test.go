package consolidation

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// withSavings sets a pool's consolidation savings thresholds (nil leaves
// Options').
func withSavings(perHour, percent, perPod *float64) poolOpt {
	return func(p *state.Pool) {
		p.Disruption.MinSavingsPerHour, p.Disruption.MinSavingsPercent, p.Disruption.MinSavingsPerPod = perHour, percent, perPod
	}
}

// smallOnLarge is one m5.large holding a small pod: a cheaper node
// saves $0.0866/h of its $0.096/h, for one pod.
func smallOnLarge(opts ...poolOpt) func() *state.Snapshot {
	return func() *state.Snapshot {
		p := testPool("default", opts...)
		return snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "n1", "m5.large", zoneA, od)},
			[]*state.Pod{testPod("web-1", "100m", "128Mi", "n1")})
	}
}

// TestPoolSavingsThresholds shows each of a NodePool's savings thresholds
// (disruption.minSavingsPerHour, minSavingsPercent, minSavingsPerPod)
// changing the decision on its own, both ways: stricter than the
// defaults keeps a node they would replace, looser replaces one that
// Options' stricter values would keep.
func TestPoolSavingsThresholds(t *testing.T) {
	strict := func(o *Options) { o.MinSavingsPerHour, o.MinSavingsPercent, o.MinSavingsPerPod = 1, 99, 0.5 }
	replaced := map[string]Reason{"n1": ReasonUnderutilized}
	runRuleCases(t, []ruleCase{
		{name: "defaults replace the node", snap: smallOnLarge(), removed: replaced},
		{
			name: "the pool's minSavingsPerHour keeps it",
			snap: smallOnLarge(withSavings(ptr(0.09), nil, nil)),
			kept: map[string]string{"n1": "saving $0.0866/h below threshold ($0.09/h and 10% of $0.096/h)"},
		},
		{
			name: "the pool's minSavingsPercent keeps it",
			snap: smallOnLarge(withSavings(nil, ptr(95.0), nil)),
			kept: map[string]string{"n1": "saving $0.0866/h below threshold ($0.01/h and 95% of $0.096/h)"},
		},
		{
			name: "the pool's minSavingsPerPod keeps it",
			snap: smallOnLarge(withSavings(nil, nil, ptr(0.09))),
			kept: map[string]string{"n1": "saving $0.0866/h for 1 pods evicted is below the threshold of $0.09/h per pod"},
		},
		{
			name: "options alone keep it",
			snap: smallOnLarge(), opts: strict,
			kept: map[string]string{"n1": "saving $0.0866/h below threshold ($1/h and 99% of $0.096/h)"},
		},
		{
			name: "the pool's zero thresholds win over options",
			snap: smallOnLarge(withSavings(ptr(0.0), ptr(0.0), ptr(0.0))), opts: strict,
			removed: replaced,
		},
		{
			name: "only minSavingsPerHour set: options' percentage still keeps it",
			snap: smallOnLarge(withSavings(ptr(0.0), nil, nil)), opts: strict,
			kept: map[string]string{"n1": "saving $0.0866/h below threshold ($0/h and 99% of $0.096/h)"},
		},
		{
			name:    "a deletion is not held to the pool's minSavingsPerPod",
			snap:    one(fixedPool(), nil),
			opts:    func(o *Options) { o.MinSavingsPerPod = 1 },
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
	})
}

// TestSavingsAcrossPools pins the rule for a command removing nodes of
// several pools: the largest minSavingsPerHour among them, each node's
// pool's percentage of that node's price, each pod's node's pool's amount
// per pod.
func TestSavingsAcrossPools(t *testing.T) {
	a, b := &state.Pool{Name: "a"}, &state.Pool{Name: "b"}
	b.Disruption.MinSavingsPerHour, b.Disruption.MinSavingsPercent, b.Disruption.MinSavingsPerPod = ptr(0.5), ptr(50.0), ptr(0.1)
	p := &planner{opts: DefaultOptions()}
	c := &command{
		Command: Command{CostBeforePerHour: 0.3, Moves: []Move{{Pod: "x", From: "na"}, {Pod: "y", From: "nb"}, {Pod: "z", From: "nb"}}},
		nodes:   []*nodeInfo{{node: &state.Node{Name: "na"}, pool: a, price: 0.1}, {node: &state.Node{Name: "nb"}, pool: b, price: 0.2}},
	}
	got := p.commandSavings(c)
	want := commandSavings{perHour: 0.5, percentOf: 0.1*0.1 + 0.5*0.2, perPod: 0.003 + 2*0.1, first: p.savingsOf(a)}
	if !approxEqual(got.perHour, want.perHour) || !approxEqual(got.percentOf, want.percentOf) || !approxEqual(got.perPod, want.perPod) || got.uniform {
		t.Errorf("commandSavings = %+v, want %+v (not uniform)", got, want)
	}
	if why := p.belowThreshold(c, 0.2); why != "saving $0.2/h below threshold ($0.5/h and $0.11/h, each node's pool's minSavingsPercent of its price, of $0.3/h)" {
		t.Errorf("belowThreshold = %q", why)
	}
	b.Disruption.MinSavingsPerHour = ptr(0.0)
	if why := p.belowThreshold(c, 0.15); why != "" {
		t.Errorf("a deletion saving $0.15/h of the $0.11/h asked: belowThreshold = %q, want none", why)
	}
	c.claims = []*packing.Claim{{}}
	if why := p.belowThreshold(c, 0.15); why != "saving $0.15/h for 3 pods evicted is below the $0.203/h their nodes' pools ask (minSavingsPerPod per pod)" {
		t.Errorf("a replacement saving $0.15/h of the $0.203/h its pods ask: belowThreshold = %q", why)
	}
}

func approxEqual(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
