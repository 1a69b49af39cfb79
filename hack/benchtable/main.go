// Command benchtable runs `tenon simulate -o json --repeat N` on each
// scenario file and prints one row per file: pods, new nodes, cost, lower
// bound, their ratio, the median in-process solve time, pods per second
// the process's peak RSS and CPU seconds (all runs, parsing included: on
// a loaded machine a steadier figure than the wall-clock median). With
// -check (the default) tenon checks every result against the hard rules
// and a violation fails the table. Then, for every scenario X given with
// a pool variant (X-cmr, a sub-pool; X-spot, a super-pool), it prints
// whether the wider pool costs no more than the narrower one, as a pool
// that allows more can never need to. `make bench` runs it after the Go
// benchmarks.
//
//	go run ./hack/benchtable -tenon bin/tenon -repeat 5 ../shared/workloads/*.yaml
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
)

// summary is the part of `tenon simulate -o json` the table shows.
type summary struct {
	Summary summarized `json:"summary"`
}

func main() {
	tenon := flag.String("tenon", "bin/tenon", "the tenon `binary` to run")
	repeat := flag.Int("repeat", 5, "solve `N` times per file after a warm-up")
	check := flag.Bool("check", true, "pass --check: a result that breaks a hard rule fails the table")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: benchtable [-tenon bin/tenon] [-repeat 5] FILE...")
		os.Exit(2)
	}
	files := flag.Args()
	sortFiles(files)
	if err := run(os.Stdout, *tenon, *repeat, *check, files); err != nil {
		fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
		os.Exit(1)
	}
}

func run(w io.Writer, tenon string, repeat int, check bool, files []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\tpods\tnodes\tunplaced\tcost $/h\tbound $/h\tratio\tsolve s\tpods/s\tpeak RSS MiB\tproc CPU s\t")
	var rows []row
	for _, f := range files {
		r, err := measure(tenon, repeat, check, f)
		if err != nil {
			return err
		}
		rows = append(rows, r)
		fmt.Fprintln(tw, r)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return pairs(w, rows)
}

// row is one scenario's figures.
type row struct {
	name     string
	s        summarized
	rss, cpu string
}

// summarized is the summary part of the JSON.
type summarized struct {
	Pods              int     `json:"pods"`
	NewNodes          int     `json:"newNodes"`
	CostPerHour       float64 `json:"costPerHour"`
	LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
	SolveSeconds      float64 `json:"solveSeconds"`
	Unschedulable     int     `json:"unschedulable"`
}

// String is the row's tab-separated cells.
func (r row) String() string {
	s := r.s
	ratio, rate := "-", "-"
	if s.LowerBoundPerHour > 0 {
		ratio = fmt.Sprintf("%.4f", s.CostPerHour/s.LowerBoundPerHour)
	}
	if s.SolveSeconds > 0 {
		rate = fmt.Sprintf("%.0f", float64(s.Pods)/s.SolveSeconds)
	}
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%.4f\t%.4f\t%s\t%.6f\t%s\t%s\t%s\t",
		r.name, s.Pods, s.NewNodes, s.Unschedulable, s.CostPerHour, s.LowerBoundPerHour, ratio, s.SolveSeconds, rate, r.rss, r.cpu)
}

// measure runs tenon simulate on one file and returns its row.
func measure(tenon string, repeat int, check bool, file string) (row, error) {
	args := []string{"simulate", "-f", file, "-o", "json", "--repeat", fmt.Sprint(repeat)}
	if check {
		args = append(args, "--check")
	}
	cmd := exec.Command(tenon, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return row{}, fmt.Errorf("%s: %w: %s", file, err, strings.TrimSpace(stderr.String()))
	}
	var out summary
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return row{}, fmt.Errorf("%s: reading the JSON: %w", file, err)
	}
	r := row{name: scenarioName(file), s: out.Summary, rss: "-", cpu: "-"}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = fmt.Sprintf("%.0f", float64(ru.Maxrss)/1024) // Linux reports KiB
		r.cpu = fmt.Sprintf("%.2f", float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9)
	}
	return r, nil
}

// scenarioName is a file's name without directory and extension.
func scenarioName(file string) string {
	return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
}

// poolSuffixes name the shared workloads' pool variants: X-cmr has the
// pods of X on a pool limited to categories c, m, r (a sub-pool of X's),
// X-spot on a pool that allows spot as well (a super-pool).
var poolSuffixes = []struct {
	suffix string
	wider  bool
}{{"-cmr", false}, {"-spot", true}}

// pairs prints, for every scenario X with a pool variant in rows, whether
// the wider pool costs no more than the narrower one (a pool that allows
// more can never need to cost more), when both placed every pod.
func pairs(w io.Writer, rows []row) error {
	byName := map[string]row{}
	for _, r := range rows {
		byName[r.name] = r
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	n := 0
	for _, r := range rows {
		for _, ps := range poolSuffixes {
			base, ok := strings.CutSuffix(r.name, ps.suffix)
			b, found := byName[base]
			if !ok || !found || r.s.Unschedulable > 0 || b.s.Unschedulable > 0 {
				continue
			}
			wide, narrow := b, r
			if ps.wider {
				wide, narrow = r, b
			}
			if n == 0 {
				fmt.Fprintln(w, "\nwider pool against narrower pool (cost must not rise):")
				fmt.Fprintln(tw, "wider\tnarrower\twider $/h\tnarrower $/h\tholds\t")
			}
			n++
			holds := "yes"
			if wide.s.CostPerHour > narrow.s.CostPerHour*(1+1e-9) {
				holds = fmt.Sprintf("NO (+%.2f%%)", (wide.s.CostPerHour/narrow.s.CostPerHour-1)*100)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.4f\t%s\t\n", wide.name, narrow.name, wide.s.CostPerHour, narrow.s.CostPerHour, holds)
		}
	}
	return tw.Flush()
}

// sortFiles orders files by scenario name (naturalCompare), so each
// scenario's pool variants follow it: w4, w4-cmr, w4-spot.
func sortFiles(files []string) {
	slices.SortStableFunc(files, func(a, b string) int { return naturalCompare(scenarioName(a), scenarioName(b)) })
}

// naturalCompare orders names with numbers in them by value, so the
// diverse-1k, diverse-5k, diverse-20k series reads in size order.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		ra, restA := leadingRun(a)
		rb, restB := leadingRun(b)
		na, errA := strconv.Atoi(ra)
		nb, errB := strconv.Atoi(rb)
		switch {
		case errA == nil && errB == nil && na != nb:
			return na - nb
		case ra != rb:
			return strings.Compare(ra, rb)
		}
		a, b = restA, restB
	}
	return len(a) - len(b)
}

// leadingRun splits off s's leading run of digits or of non-digits.
func leadingRun(s string) (string, string) {
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	i := 1
	for i < len(s) && digit(s[i]) == digit(s[0]) {
		i++
	}
	return s[:i], s[i:]
}
