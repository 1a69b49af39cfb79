package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// column is one figure of a run, as the tables print it.
type column struct {
	head  string
	value func(r result) float64
	unit  string // "s", "$", "" (a count), "x" (a ratio)
}

var columns = []column{
	{"all Running", func(r result) float64 { return r.Up.Running.Seconds() }, "s"},
	{"nodes", func(r result) float64 { return float64(r.Up.Nodes) }, ""},
	{"$/h", func(r result) float64 { return r.Up.Cost }, "$"},
	{"÷ simulate", func(r result) float64 { return ratio(r.Up.Cost, r.Up.Simulated.CostPerHour) }, "x"},
	{"up stable", func(r result) float64 { return r.Up.Stable.Seconds() }, "s"},
	{"down $/h", func(r result) float64 { return r.Down.Cost }, "$"},
	{"down nodes", func(r result) float64 { return float64(r.Down.Nodes) }, ""},
	{"evictions", func(r result) float64 { return float64(r.Down.Evictions + r.Down.OtherDisrupts) }, ""},
	{"fewest ≥", fewest, ""},
	{"evict. ÷ fewest", func(r result) float64 { return ratio(float64(r.Down.Evictions+r.Down.OtherDisrupts), fewest(r)) }, "x"},
	{"launches", func(r result) float64 { return float64(r.Down.Launches) }, ""},
	{"down stable", func(r result) float64 { return r.Down.Stable.Seconds() }, "s"},
	{"PDB viol.", func(r result) float64 { return float64(r.Down.PDBViolations) }, ""},
	{"CPU s", func(r result) float64 { return r.CPUSeconds }, "s"},
	{"RSS MiB", func(r result) float64 { return r.PeakRSSMiB }, ""},
}

// fewest is the run's lower bound on the evictions its scale-down's cost needs (fewest.go),
// NaN when it was not computed.
func fewest(r result) float64 {
	if r.Down.FewestError != "" {
		return math.NaN()
	}
	return float64(r.Down.FewestEvictions)
}

// ratio is a / b; NaN (printed "—") when b is 0, where a ratio says nothing.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func format(v float64, unit string) string {
	if math.IsNaN(v) {
		return "—"
	}
	switch unit {
	case "s":
		return fmt.Sprintf("%.0f", v)
	case "$":
		return fmt.Sprintf("%.2f", v)
	case "x":
		return fmt.Sprintf("%.3f", v)
	}
	if v == float64(int(v)) {
		return fmt.Sprintf("%d", int(v))
	}
	return fmt.Sprintf("%.1f", v)
}

// report prints every run, then per burst size the medians per engine and Tenon's over
// Karpenter's.
func report(w io.Writer, cfg config, results []result) {
	heads := []string{"pods", "engine", "run", "load"}
	for _, c := range columns {
		heads = append(heads, c.head)
	}
	fmt.Fprintf(w, "\nEvery run (scale-up: all Running, nodes and $/h once stable; scale-down to %.0f%%: evictions include other disruptions, fewest ≥ is a lower bound on the evictions any scale-down to the run's $/h needs, launches are nodes created):\n\n", cfg.ScaleDown*100)
	row(w, heads)
	row(w, dashes(len(heads)))
	for _, r := range results {
		cells := []string{fmt.Sprint(r.Pods), r.Engine, fmt.Sprint(r.Run), fmt.Sprintf("%.1f→%.1f", r.LoadStart, r.LoadEnd)}
		if r.Err != "" {
			row(w, append(cells, "failed: "+r.Err))
			continue
		}
		for _, c := range columns {
			cells = append(cells, format(c.value(r), c.unit))
		}
		row(w, cells)
	}
	for _, pods := range cfg.Pods {
		summary(w, pods, cfg.Engines, results)
	}
}

// summary prints the medians of the runs of each engine at pods and, with both engines, the
// ratio Tenon / Karpenter of each median.
func summary(w io.Writer, pods int, engines []string, results []result) {
	heads := []string{"engine", "runs"}
	for _, c := range columns {
		heads = append(heads, c.head)
	}
	fmt.Fprintf(w, "\nMedians, %d pods (simulate of the burst at once: $%.2f/h, of the scaled-down set: $%.2f/h):\n\n", pods, simulated(results, pods, true), simulated(results, pods, false))
	row(w, heads)
	row(w, dashes(len(heads)))
	medians := map[string][]float64{}
	for _, e := range engines {
		var ok []result
		for _, r := range results {
			if r.Pods == pods && r.Engine == e && r.Err == "" {
				ok = append(ok, r)
			}
		}
		cells := []string{e, fmt.Sprint(len(ok))}
		for _, c := range columns {
			m := median(ok, c.value)
			medians[e] = append(medians[e], m)
			cells = append(cells, format(m, c.unit))
		}
		row(w, cells)
	}
	if len(medians["tenon"]) > 0 && len(medians["karpenter"]) > 0 {
		cells := []string{"tenon ÷ karpenter", ""}
		for i := range columns {
			cells = append(cells, format(ratio(medians["tenon"][i], medians["karpenter"][i]), "x"))
		}
		row(w, cells)
	}
}

func simulated(results []result, pods int, up bool) float64 {
	for _, r := range results {
		if r.Pods == pods && r.Err == "" {
			if up {
				return r.Up.Simulated.CostPerHour
			}
			return r.Down.Simulated.CostPerHour
		}
	}
	return 0
}

func median(rs []result, value func(result) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	var vs []float64
	for _, r := range rs {
		if v := value(r); !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return math.NaN()
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

func row(w io.Writer, cells []string) { fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")) }

func dashes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "---"
	}
	return out
}
