package simulate

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// requirePacking marks the tests that run the real engine/packing.
func requirePacking(t *testing.T) { t.Helper() }

// TestEmbeddedExampleGolden pins `tenon simulate` (no -f) text output,
// timings zeroed. Run with -update to rewrite the golden file.
func TestEmbeddedExampleGolden(t *testing.T) {
	requirePacking(t)
	var stdout, stderr bytes.Buffer
	c := cli{engine: packingSolver{}, now: time.Now, zeroTimings: true}
	if code := c.run(context.Background(), []string{"--check"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	golden := filepath.Join("testdata", "example.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, stdout.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/simulate -run TestEmbeddedExampleGolden -args -update to create it)", err)
	}
	if got := stdout.String(); got != string(want) {
		t.Errorf("output differs from %s (rerun with -args -update if the change is intended):\n--- got\n%s\n--- want\n%s", golden, got, want)
	}

	// The same input gives byte-identical output.
	var again bytes.Buffer
	c = cli{engine: packingSolver{}, now: time.Now, zeroTimings: true}
	if code := c.run(context.Background(), []string{"--check"}, &again, &stderr); code != ExitOK {
		t.Fatalf("second run: exit %d; stderr:\n%s", code, stderr.String())
	}
	if again.String() != stdout.String() {
		t.Errorf("a second run printed something else:\n%s", again.String())
	}
}
