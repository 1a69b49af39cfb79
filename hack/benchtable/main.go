// Command benchtable runs `tenon simulate -o json --repeat N` on each
// scenario file and prints one row per file: pods, new nodes, cost, lower
// bound, their ratio, the median in-process solve time, pods per second
// the process's peak RSS and CPU seconds (all runs, parsing included: on
// a loaded machine a steadier figure than the wall-clock median). With
// -check (the default) tenon checks every result against the hard rules
// and a violation fails the table. `make bench` runs it after the Go
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
	Summary struct {
		Pods              int     `json:"pods"`
		NewNodes          int     `json:"newNodes"`
		CostPerHour       float64 `json:"costPerHour"`
		LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
		SolveSeconds      float64 `json:"solveSeconds"`
		Unschedulable     int     `json:"unschedulable"`
	} `json:"summary"`
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
	slices.SortStableFunc(files, naturalCompare)
	if err := run(os.Stdout, *tenon, *repeat, *check, files); err != nil {
		fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
		os.Exit(1)
	}
}

func run(w io.Writer, tenon string, repeat int, check bool, files []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\tpods\tnodes\tunplaced\tcost $/h\tbound $/h\tratio\tsolve s\tpods/s\tpeak RSS MiB\tproc CPU s\t")
	for _, f := range files {
		row, err := measure(tenon, repeat, check, f)
		if err != nil {
			return err
		}
		fmt.Fprintln(tw, row)
	}
	return tw.Flush()
}

// measure runs tenon simulate on one file and formats its row.
func measure(tenon string, repeat int, check bool, file string) (string, error) {
	args := []string{"simulate", "-f", file, "-o", "json", "--repeat", fmt.Sprint(repeat)}
	if check {
		args = append(args, "--check")
	}
	cmd := exec.Command(tenon, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w: %s", file, err, strings.TrimSpace(stderr.String()))
	}
	var out summary
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return "", fmt.Errorf("%s: reading the JSON: %w", file, err)
	}
	s := out.Summary
	ratio, rate := "-", "-"
	if s.LowerBoundPerHour > 0 {
		ratio = fmt.Sprintf("%.4f", s.CostPerHour/s.LowerBoundPerHour)
	}
	if s.SolveSeconds > 0 {
		rate = fmt.Sprintf("%.0f", float64(s.Pods)/s.SolveSeconds)
	}
	rss, cpu := "-", "-"
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = fmt.Sprintf("%.0f", float64(ru.Maxrss)/1024) // Linux reports KiB
		cpu = fmt.Sprintf("%.2f", float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9)
	}
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%.4f\t%.4f\t%s\t%.6f\t%s\t%s\t%s\t",
		name, s.Pods, s.NewNodes, s.Unschedulable, s.CostPerHour, s.LowerBoundPerHour, ratio, s.SolveSeconds, rate, rss, cpu), nil
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
