package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// simulateJSON runs `tenon simulate -o json --check` on files, optionally consolidating.
func simulateJSON(t *testing.T, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now}
	if code := c.run(context.Background(), append(args, "-o", "json", "--check"), &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	return stdout.Bytes()
}

func launchedFamilies(rep Report) map[string]int {
	out := map[string]int{}
	for _, n := range rep.Nodes {
		if !n.Existing {
			family, _, _ := strings.Cut(n.InstanceType, ".")
			out[family] += len(n.Pods)
		}
	}
	return out
}

// TestNodeOverlayExample runs examples/node-overlay: the m6i discount makes the web pods land on
// m6i, the hugepages overlay lets the database be placed (on r6i, the only family that has
// them), and the report lists both overlays as applied. Without the overlays neither happens.
func TestNodeOverlayExample(t *testing.T) {
	requirePacking(t)
	dir := filepath.Join("..", "..", "examples", "node-overlay")
	policy, workload := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "workload.yaml")

	var with Report
	if err := json.Unmarshal(simulateJSON(t, "-f", policy, "-f", workload), &with); err != nil {
		t.Fatal(err)
	}
	if len(with.Unschedulable) > 0 {
		t.Fatalf("with the overlays, pods left pending: %+v", with.Unschedulable)
	}
	families := launchedFamilies(with)
	if families["m6i"] == 0 || families["r6i"] == 0 {
		t.Errorf("with the overlays, pods per family launched %v: want m6i (discounted) and r6i (hugepages)", families)
	}
	for _, n := range with.Nodes {
		for _, p := range n.Pods {
			if strings.HasPrefix(p, "default/db-") && !strings.HasPrefix(n.InstanceType, "r6i.") {
				t.Errorf("pod %s needs hugepages but was placed on %s", p, n.InstanceType)
			}
		}
	}
	if got := len(with.Overlays); got != 2 || with.Overlays[0].Outcome != v1.ReasonOverlayApplied || with.Overlays[1].Outcome != v1.ReasonOverlayApplied {
		t.Errorf("overlays in the report: %+v, want both Applied", with.Overlays)
	}

	// The same scenario without the overlays.
	sc, err := Load(policy, workload)
	if err != nil {
		t.Fatal(err)
	}
	sc.Objects.NodeOverlays = nil
	snap, err := sc.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	res, err := packingSolver{}.Solve(context.Background(), snap, snap.PendingPods())
	if err != nil {
		t.Fatal(err)
	}
	without := res.Report(sc, snap, snap.PendingPods())
	if got := launchedFamilies(*without); got["m6i"] > 0 {
		t.Errorf("without the discount, m6i launched (%v): the example no longer shows the discount", got)
	}
	var pending []string
	for _, u := range without.Unschedulable {
		pending = append(pending, u.Pod)
	}
	if !slices.Equal(pending, []string{"default/db-0", "default/db-1"}) {
		t.Errorf("without the hugepages overlay, pending %v, want the two database pods", pending)
	}
}

// TestNodeOverlayConflictReported checks a scenario whose two overlays of one weight discount
// the same offerings: the report names the conflict, and only the winner's price is used.
func TestNodeOverlayConflictReported(t *testing.T) {
	requirePacking(t)
	dir := t.TempDir()
	policy := filepath.Join("..", "..", "examples", "node-overlay", "policy.yaml")
	extra := filepath.Join(dir, "conflict.yaml")
	writeFile(t, extra, `
apiVersion: tenon.dev/v1
kind: NodeOverlay
metadata: {name: another-m6i-deal}
spec:
  requirements: [{key: tenon.dev/instance-family, operator: In, values: [m6i]}]
  price: "0.001"
  weight: 10
`)
	var rep Report
	if err := json.Unmarshal(simulateJSON(t, "-f", policy, "-f", extra, "-f", filepath.Join("..", "..", "examples", "node-overlay", "workload.yaml")), &rep); err != nil {
		t.Fatal(err)
	}
	var conflict *ReportOverlay
	for i := range rep.Overlays {
		if rep.Overlays[i].Name == "another-m6i-deal" {
			conflict = &rep.Overlays[i]
		}
	}
	if conflict == nil || conflict.Outcome != v1.ReasonOverlayConflict || !strings.Contains(conflict.Message, "conflicts with NodeOverlay savings-plan-m6i (weight 10)") {
		t.Fatalf("the overlay in conflict: %+v, want a Conflict naming savings-plan-m6i", conflict)
	}
	for _, n := range rep.Nodes {
		if strings.HasPrefix(n.InstanceType, "m6i.") && n.PricePerHour < 0.01 {
			t.Errorf("%s priced %v: the overlay in conflict was applied", n.InstanceType, n.PricePerHour)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
