package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// agentHelperEnv makes this test binary run `tenon agent` instead of the tests: the end-to-end
// test starts it as the agent process, so it needs no build of the whole tenon binary (minutes
// on a busy 2-core machine). It runs agent.Command, the function `tenon agent` dispatches to,
// with the same arguments; `make demo` runs bin/tenon itself.
const agentHelperEnv = "TENON_DEMO_TEST_AGENT"

func TestMain(m *testing.M) {
	if os.Getenv(agentHelperEnv) == "1" {
		args := os.Args[1:]
		if len(args) == 0 || args[0] != "agent" {
			fmt.Fprintf(os.Stderr, "%s=1: want the arguments of tenon agent, got %q\n", agentHelperEnv, args)
			os.Exit(2)
		}
		os.Exit(agent.Command(context.Background(), args[1:], os.Stdout, os.Stderr))
	}
	flag.Parse()
	if testing.Short() {
		fmt.Fprintln(os.Stderr, "\n*** SKIPPING the end-to-end demo test of hack/demo: -short was given; it needs the whole local stack (make testbin) ***")
	}
	os.Exit(m.Run())
}

// TestDemoEndToEnd runs `make demo`'s driver for real: it starts the whole local stack, runs
// the agent (this test binary as `tenon agent`, see TestMain), scales inflate 0 -> 10 -> 0 and
// checks every pod ran on agent-launched nodes and the agent's nodes were all removed. About a
// minute.
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
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(agentHelperEnv, "1") // the agent process is this test binary; see TestMain
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	dir := t.TempDir()
	var out bytes.Buffer
	cfg := config{
		BinDir: bin, Tenon: self, Examples: filepath.Join(root, "examples", "local"), Dir: dir,
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
