package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeTenon writes a script that prints a fixed simulate JSON summary.
func fakeTenon(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tenon")
	script := "#!/bin/sh\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []string
		wantErr string
	}{
		{
			name: "a row per file with ratio and pods per second",
			body: `echo '{"summary":{"pods":1000,"newNodes":10,"costPerHour":11,"lowerBoundPerHour":10,"solveSeconds":0.01,"unschedulable":0}}'`,
			want: []string{"w1", "1000", "10", "11.0000", "10.0000", "1.1000", "0.010000", "100000"},
		},
		{
			name:    "a failing run names the file and says why",
			body:    `echo "bad input" >&2; exit 2`,
			wantErr: "w1.yaml: exit status 2: bad input",
		},
		{
			name:    "--check is passed, and a violation fails the table",
			body:    `case "$*" in *--check*) echo "w1: pod default/x-0 overlaps" >&2; exit 1;; esac; echo '{}'`,
			wantErr: "w1.yaml: exit status 1: w1: pod default/x-0 overlaps",
		},
		{
			name:    "output that is not JSON",
			body:    `echo nope`,
			wantErr: "w1.yaml: reading the JSON",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(&out, fakeTenon(t, tt.body), 5, true, []string{"w1.yaml"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("output:\n%s", out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(lines[1], w) {
					t.Errorf("row %q lacks %q", lines[1], w)
				}
			}
		})
	}
}

func TestNaturalCompare(t *testing.T) {
	files := []string{"w2.yaml", "diverse-20k.yaml", "w1-spot.yaml", "diverse-5k.yaml", "w1.yaml", "diverse-1k.yaml"}
	slices.SortStableFunc(files, naturalCompare)
	want := []string{"diverse-1k.yaml", "diverse-5k.yaml", "diverse-20k.yaml", "w1-spot.yaml", "w1.yaml", "w2.yaml"}
	if !slices.Equal(files, want) {
		t.Errorf("order = %v, want %v", files, want)
	}
}
