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

// costByFile is a fake tenon's body that prints a summary whose cost
// depends on the file it is given, as "pattern) cost" case arms.
func costByFile(arms string) string {
	return `cost=1; case "$*" in ` + arms + ` esac; echo "{\"summary\":{\"pods\":10,\"newNodes\":1,\"costPerHour\":$cost,\"lowerBoundPerHour\":1,\"solveSeconds\":0.001}}"`
}

func TestPairs(t *testing.T) {
	tests := []struct {
		name  string
		arms  string
		files []string
		want  []string
		none  bool
	}{
		{
			name:  "a sub-pool that costs more holds",
			arms:  `*w1-cmr*) cost=2;;`,
			files: []string{"w1.yaml", "w1-cmr.yaml"},
			want:  []string{"w1  w1-cmr  1.0000  2.0000  yes"},
		},
		{
			name:  "a wider pool that costs more is flagged with by how much",
			arms:  `*w5-cmr*) cost=0.9;;`,
			files: []string{"w5.yaml", "w5-cmr.yaml"},
			want:  []string{"w5  w5-cmr  1.0000  0.9000  NO (+11.11%)"},
		},
		{
			name:  "spot is the wider pool",
			arms:  `*w2-spot*) cost=3;;`,
			files: []string{"w2-spot.yaml", "w2.yaml"},
			want:  []string{"w2-spot  w2  3.0000  1.0000  NO (+200.00%)"},
		},
		{
			name:  "a variant without its base has no pair",
			files: []string{"w4-cmr.yaml", "diverse-1k.yaml"},
			none:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(&out, fakeTenon(t, costByFile(tt.arms)), 1, false, tt.files); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tt.none == strings.Contains(got, "wider pool against narrower pool") {
				t.Errorf("pairs section present = %v, want %v:\n%s", !tt.none, !tt.none, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(w), " ")) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestSharedWorkloads runs the table as `make bench` does, on every
// scenario in ../shared/workloads (with a fake tenon): each gets a row
// with cost, bound, ratio, pods/s and peak RSS, and each pool variant
// whose base is there a pair.
func TestSharedWorkloads(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/workloads/*.yaml")
	if len(files) == 0 {
		t.Skip("no scenario files in ../../../shared/workloads (the shared workloads live beside the repository)")
	}
	var out bytes.Buffer
	if err := run(&out, fakeTenon(t, costByFile("")), 1, true, files); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	lines := strings.Split(out.String(), "\n")
	header := strings.Fields(lines[0])
	for _, l := range lines[1:] {
		if l == "" {
			break
		}
		f := strings.Fields(l)
		rows[f[0]] = f
	}
	for _, col := range []string{"cost", "bound", "ratio", "pods/s", "RSS"} {
		if !slices.Contains(header, col) {
			t.Errorf("header %v lacks %q", header, col)
		}
	}
	for _, f := range files {
		name := scenarioName(f)
		row, ok := rows[name]
		if !ok {
			t.Errorf("no row for %s", name)
			continue
		}
		// file pods nodes unplaced cost bound ratio solve pods/s rss cpu
		if len(row) != 11 || row[6] != "1.0000" || row[8] != "10000" || row[9] == "-" {
			t.Errorf("row %v: want 11 cells, ratio 1.0000, 10000 pods/s and a peak RSS", row)
		}
		_, section, _ := strings.Cut(out.String(), "wider pool against narrower pool")
		for _, ps := range poolSuffixes {
			if base, cut := strings.CutSuffix(name, ps.suffix); cut && rows[base] != nil && !strings.Contains(section, " "+name+" ") {
				t.Errorf("no pair for %s:\n%s", name, section)
			}
		}
	}
	for _, pair := range [][2]string{{"w5", "w5-cmr"}, {"w1-spot", "w1"}} {
		if rows[pair[0]] != nil && rows[pair[1]] != nil && !strings.Contains(strings.Join(strings.Fields(out.String()), " "), pair[0]+" "+pair[1]+" 1.0000 1.0000 yes") {
			t.Errorf("no pair row %s against %s:\n%s", pair[0], pair[1], out.String())
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	files := []string{"w2.yaml", "diverse-20k.yaml", "w1-spot.yaml", "diverse-5k.yaml", "w1.yaml", "dir/diverse-1k.yaml", "w1-cmr.yaml", "diverse-5k-cmr.yaml"}
	sortFiles(files)
	want := []string{"dir/diverse-1k.yaml", "diverse-5k.yaml", "diverse-5k-cmr.yaml", "diverse-20k.yaml", "w1.yaml", "w1-cmr.yaml", "w1-spot.yaml", "w2.yaml"}
	if !slices.Equal(files, want) {
		t.Errorf("order = %v, want %v", files, want)
	}
}
