package consolidation

import (
	"testing"
)

// TestThriftySetEvictsFewer (issue 22): on DaemonSet-heavy clusters scaled
// down, the prefix ranked by value per dollar spends the kept nodes' free
// room on cheap nodes holding one small pod where it could take the pods
// of a large node holding two or three. thriftySet's set (the prefix's
// merges, then deletions most saving per pod first) is taken only when it
// gains more than the prefix by the search's own measure. On these
// clusters the first plan (no look-ahead) never evicts more pods and costs
// more at once, and over them it evicts fewer pods in all and costs no
// more (at 20 seeds: 11 plans change, 9 evict fewer pods at no more cost,
// one 3 pods fewer for $0.019/h more, one 4 more for $0.038/h less).
func TestThriftySetEvictsFewer(t *testing.T) {
	seeds := []uint64{300, 300*1000 + 1, 300*1000 + 2, 300*1000 + 4, 11, 13, 21, 22}
	if testing.Short() {
		seeds = seeds[:1]
	}
	var evicted, evictedBefore int
	var cost, costBefore float64
	for _, seed := range seeds {
		_, snap := daemonCluster(t, 1500, seed)
		opts := DefaultOptions()
		opts.Lookahead = 0
		opts.noFuller = true // thriftySet's own figures (fullerSet: TestFullerSetEvictsFewer)
		with, err := Plan(t.Context(), snap, t0, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.prefixOnly = true
		without, err := Plan(t.Context(), snap, t0, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: the prefix alone evicts %d pods, $%.3f/h after; with thriftySet %d, $%.3f/h", seed, without.PodsEvicted, without.CostAfterPerHour, with.PodsEvicted, with.CostAfterPerHour)
		if with.PodsEvicted > without.PodsEvicted && with.CostAfterPerHour > without.CostAfterPerHour+1e-9 {
			t.Errorf("seed %d: %d evictions and $%.3f/h with thriftySet, against %d and $%.3f/h: more pods for a dearer plan",
				seed, with.PodsEvicted, with.CostAfterPerHour, without.PodsEvicted, without.CostAfterPerHour)
		}
		evicted, evictedBefore = evicted+with.PodsEvicted, evictedBefore+without.PodsEvicted
		cost, costBefore = cost+with.CostAfterPerHour, costBefore+without.CostAfterPerHour
	}
	if evicted >= evictedBefore || cost > costBefore+1e-9 {
		t.Errorf("over %d clusters %d evictions at $%.3f/h with thriftySet, against %d at $%.3f/h: want fewer at no more cost",
			len(seeds), evicted, cost, evictedBefore, costBefore)
	}
}
