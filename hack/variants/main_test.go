package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestWrite reads every file written for two seeds back with the scenario
// reader: three pool variants of each kind with the same pending pods, the
// NodePool limited (-cmr) or widened to spot (-spot) as named, w4's
// DaemonSets present, and the same bytes for the same seed.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir, []uint64{7, 8}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 2*len(kinds)*len(pools) {
		t.Fatalf("%d files, want %d", len(files), 2*len(kinds)*len(pools))
	}
	load := func(name string) *state.Snapshot {
		t.Helper()
		sc, err := simulate.Load(filepath.Join(dir, name+".yaml"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		snap, err := sc.Snapshot()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return snap
	}
	keys := func(snap *state.Snapshot) []string {
		var out []string
		for _, p := range snap.PendingPods() {
			out = append(out, p.Key())
		}
		slices.Sort(out)
		return out
	}
	zonal := false
	for _, seed := range []string{"7", "8"} {
		for _, kind := range kinds {
			base := load(kind + "-s" + seed)
			cmr, spot := load(kind+"-s"+seed+"-cmr"), load(kind+"-s"+seed+"-spot")
			if n := len(base.PendingPods()); n < 500 || n > 3000 {
				t.Errorf("%s-s%s: %d pods, want 500-3,000", kind, seed, n)
			}
			if !slices.Equal(keys(base), keys(cmr)) || !slices.Equal(keys(base), keys(spot)) {
				t.Errorf("%s-s%s: the pool variants hold other pods", kind, seed)
			}
			if got := cmr.Pools[0].Requirements.Get(scheduling.LabelInstanceCategory).Values(); !slices.Equal(got, []string{"c", "m", "r"}) {
				t.Errorf("%s-s%s-cmr: instance categories %v, want c, m, r", kind, seed, got)
			}
			if base.Pools[0].Requirements.Has(scheduling.LabelInstanceCategory) {
				t.Errorf("%s-s%s: the whole-catalog pool limits instance categories", kind, seed)
			}
			if !spot.Pools[0].Requirements.Get(scheduling.LabelCapacityType).Has(scheduling.CapacityTypeSpot) ||
				base.Pools[0].Requirements.Get(scheduling.LabelCapacityType).Has(scheduling.CapacityTypeSpot) {
				t.Errorf("%s-s%s: spot allowed only in -spot", kind, seed)
			}
			if want := kind == "w4"; (len(base.DaemonSets) > 0) != want {
				t.Errorf("%s-s%s: %d DaemonSets", kind, seed, len(base.DaemonSets))
			}
			for _, d := range base.DaemonSets {
				zonal = zonal || len(d.Pod.NodeSelector) > 0
			}
		}
	}
	if !zonal {
		t.Error("no DaemonSet selects one zone's nodes in these seeds: the case is not exercised")
	}
	again := t.TempDir()
	if err := write(again, []uint64{7}); err != nil {
		t.Fatal(err)
	}
	for _, kind := range kinds {
		a, _ := os.ReadFile(filepath.Join(dir, kind+"-s7.yaml"))
		b, _ := os.ReadFile(filepath.Join(again, kind+"-s7.yaml"))
		if !bytes.Equal(a, b) {
			t.Errorf("%s-s7: another run wrote other bytes", kind)
		}
	}
}

func TestParseSeeds(t *testing.T) {
	got, err := parseSeeds("101, 102,3")
	if err != nil || !slices.Equal(got, []uint64{101, 102, 3}) {
		t.Errorf("parseSeeds = %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,,2", "-1", "x"} {
		if _, err := parseSeeds(bad); err == nil || !strings.Contains(err.Error(), "-seeds") {
			t.Errorf("parseSeeds(%q) = %v, want an error naming -seeds", bad, err)
		}
	}
}
