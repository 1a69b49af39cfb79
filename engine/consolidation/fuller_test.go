package consolidation

import (
	"testing"
)

// TestFullerSetEvictsFewer (issue 22): on the 2,024-node DaemonSet-heavy
// bench cluster the search's prefix joins hundreds of nodes into one merge
// (117 half-full c6a.4xlarge among them, their pods moved to c6a.48xlarge
// claims of the same price per vCPU), which thriftySet can only take or
// leave whole. fullerSet keeps the fullest of those nodes to take pods in
// place of the claims: the first plan (no look-ahead) must evict fewer
// pods and gain more by the search's own measure (the saving less the
// pool's minSavingsPercent of the removed nodes' price and its
// minSavingsPerPod per pod evicted) than without it. Without fullerSet the
// plans are the same and the test fails.
func TestFullerSetEvictsFewer(t *testing.T) {
	if testing.Short() {
		t.Skip("packs a 10,200-pod cluster")
	}
	_, snap := daemonCluster(t, 10200, 2000)
	opts := DefaultOptions()
	opts.Lookahead = 0
	with, err := Plan(t.Context(), snap, t0, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.noFuller = true
	without, err := Plan(t.Context(), snap, t0, opts)
	if err != nil {
		t.Fatal(err)
	}
	gain := func(res *Result) float64 {
		g := res.CostBeforePerHour - res.CostAfterPerHour - opts.MinSavingsPerPod*float64(res.PodsEvicted)
		for _, c := range res.Commands {
			g -= opts.MinSavingsPercent / 100 * c.CostBeforePerHour
		}
		return g
	}
	t.Logf("without fullerSet %d evictions, $%.3f/h after, gain $%.3f/h; with it %d, $%.3f/h, $%.3f/h",
		without.PodsEvicted, without.CostAfterPerHour, gain(without), with.PodsEvicted, with.CostAfterPerHour, gain(with))
	if with.PodsEvicted >= without.PodsEvicted || gain(with) <= gain(without) {
		t.Errorf("with fullerSet %d evictions and a gain of $%.3f/h, against %d and $%.3f/h without: want fewer evictions for more gain",
			with.PodsEvicted, gain(with), without.PodsEvicted, gain(without))
	}
}
