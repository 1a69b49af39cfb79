package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// TestDemoEndToEnd runs `make demo`'s driver for real: it builds the tenon binary from this
// module, starts the whole local stack, runs the agent, scales inflate 0 -> 10 -> 0 and checks
// every pod ran on agent-launched nodes and the agent's nodes were all removed. About a minute
// plus the build.
func TestDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: -short was given and the demo needs the whole local stack; run it without -short after `make testbin`")
	}
	bin := controlplane.BinDir()
	opts := controlplane.Options{Scheduler: true, ControllerManager: true, KWOK: true}
	if missing := controlplane.Missing(bin, opts); len(missing) > 0 {
		t.Fatalf("missing control-plane binaries %s: run `make testbin`", strings.Join(missing, ", "))
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tenon := filepath.Join(t.TempDir(), "tenon")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", tenon, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tenon: %v\n%s", err, out)
	}

	dir := t.TempDir()
	var out bytes.Buffer
	cfg := config{
		BinDir: bin, Tenon: tenon, Examples: filepath.Join(root, "examples", "local"), Dir: dir,
		Replicas: 10, ScaleUpTimeout: 2 * time.Minute, ScaleDownTimeout: 2 * time.Minute, StartTimeout: 2 * time.Minute,
		Poll: 250 * time.Millisecond, Out: &out,
	}
	res, err := run(ctx, cfg)
	t.Logf("demo output:\n%s", out.String())
	if err != nil {
		keep(t, dir)
		t.Fatalf("the demo failed: %v", err)
	}
	if res.PeakNodes == 0 || res.PeakCostPerHour <= 0 {
		keep(t, dir)
		t.Errorf("with every pod running the agent had %d nodes at $%.4f/h; want some nodes with a price", res.PeakNodes, res.PeakCostPerHour)
	}
	for _, want := range []string{"all 10 pods Running", "NodeClaim", "joined", "back to zero agent-launched nodes", "agent nodes: 0, $0.0000/h"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the narration never says %q", want)
		}
	}
	t.Logf("scale-up %.1fs, scale-down %.1fs, total %.1fs; %d nodes at $%.4f/h (tenon simulate predicted %d at $%.4f/h)",
		res.ScaleUp.Seconds(), res.ScaleDown.Seconds(), res.Total.Seconds(), res.PeakNodes, res.PeakCostPerHour, res.PredictedNodes, res.PredictedCostPerHour)
}

// keep copies the demo's logs somewhere that outlives the test, and says where.
func keep(t *testing.T, dir string) {
	t.Helper()
	kept, err := os.MkdirTemp("", "tenon-demo-logs-")
	if err != nil {
		return
	}
	if err := os.CopyFS(kept, os.DirFS(dir)); err != nil {
		t.Logf("copying the logs of %s: %v", dir, err)
		return
	}
	t.Logf("the demo's logs are kept in %s", kept)
}
