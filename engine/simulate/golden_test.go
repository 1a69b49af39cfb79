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

// TestEmbeddedExampleGolden pins `tenon simulate` (no -f) output as text
// and JSON, timings zeroed, and checks a second run prints the same bytes.
// Run `go test ./engine/simulate -run TestEmbeddedExampleGolden -args
// -update` to rewrite the golden files after an intended change (packing's
// choices and reasons show here too).
func TestEmbeddedExampleGolden(t *testing.T) {
	requirePacking(t)
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"text", []string{"--check"}, "example.golden"},
		{"json", []string{"--check", "-o", "json"}, "example.json.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func() string {
				var stdout, stderr bytes.Buffer
				c := command{engine: packingSolver{}, now: time.Now, zeroTimings: true}
				if code := c.run(context.Background(), tt.args, &stdout, &stderr); code != ExitOK {
					t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
				}
				return stdout.String()
			}
			got := run()
			golden := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./engine/simulate -run TestEmbeddedExampleGolden -args -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (rerun with -args -update if the change is intended):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
			if again := run(); again != got {
				t.Errorf("a second run printed something else:\n%s", again)
			}
		})
	}
}
