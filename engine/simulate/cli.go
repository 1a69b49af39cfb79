package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Exit codes of `tenon simulate`.
const (
	ExitOK         = 0
	ExitCheckFails = 1
	ExitBadInput   = 2
)

// Command is the `tenon simulate` subcommand:
//
//	tenon simulate [-f FILE]... [--example NAME] [-o text|json] [--repeat N] [--check] [--timeout D]
//	               [--consolidate] [--until-stable] [--max-rounds N] [--now TIME]
//
// It reads the scenario files as one scenario (or, with no -f, runs the
// embedded examples, whose JSON is an array of reports), solves the pending
// pods and prints the nodes to launch. A scenario with existing nodes, pods
// bound to them and no pending pods (or any with --consolidate or
// --until-stable) is simulated as consolidation instead: it prints the plan
// engine/consolidation makes (see consolidate.go). It exits 0 on
// success, 1 when --check finds a violation (or the solve fails) and 2 on
// bad input or usage.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli{engine: packingSolver{}, now: time.Now}
	return c.run(ctx, args, stdout, stderr)
}

// cli holds what tests replace: the engine and the clock.
type cli struct {
	engine solver
	now    func() time.Time
	// zeroTimings reports every timing as 0, for golden output.
	zeroTimings bool
	// warnings collects what run prints to stderr after the reports.
	warnings []string
}

// options are the parsed flags.
type options struct {
	files     []string
	output    string
	repeat    int
	repeatSet bool
	check     bool
	timeout   time.Duration
	// example names an embedded example to run instead of files.
	example string
	// consolidate, untilStable, maxRounds and now steer consolidation.
	consolidate bool
	untilStable bool
	maxRounds   int
	now         time.Time
}

// fileList is the repeatable -f flag.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(v string) error {
	if v == "" {
		return errors.New("must name a file")
	}
	*f = append(*f, v)
	return nil
}

// outputFormat is the -o flag.
type outputFormat string

func (o *outputFormat) String() string { return string(*o) }

func (o *outputFormat) Set(v string) error {
	if v != "text" && v != "json" {
		return errors.New("must be text or json")
	}
	*o = outputFormat(v)
	return nil
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("tenon simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files fileList
	output := outputFormat("text")
	fs.Var(&files, "f", "scenario `file` (YAML or JSON); repeat for several files; none runs the embedded examples")
	fs.Var(&output, "o", "output `format`: text or json")
	repeat := fs.Int("repeat", 1, "solve `N` times after one warm-up and report each run's time and the median")
	check := fs.Bool("check", false, "validate the result against the scenario and exit 1 listing any violation")
	timeout := fs.Duration("timeout", 0, "give up solving after this `duration` (such as 30s); 0 means no limit")
	example := fs.String("example", "", "run the embedded example `name` instead of files: "+strings.Join(exampleNames(), ", "))
	consolidate := fs.Bool("consolidate", false, "simulate consolidation of the scenario's nodes even if pods are pending")
	untilStable := fs.Bool("until-stable", false, "consolidate: apply each plan in simulation and plan again until nothing changes")
	maxRounds := fs.Int("max-rounds", 10, "consolidate --until-stable: stop after `N` plans")
	nowFlag := fs.String("now", "", "consolidate: plan at this `time` (RFC 3339, such as 2026-01-05T10:00:00Z); default the current time")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenon simulate [-f FILE]... [-o text|json] [--repeat N] [--check] [--timeout D]")
		fmt.Fprintln(fs.Output(), "       tenon simulate [-f FILE... | --example NAME] [--consolidate] [--until-stable] [--max-rounds N] [--now TIME]")
		fmt.Fprintln(fs.Output(), "\nSimulates Tenon's packing on scenario files, with no cluster and no cloud: prints the")
		fmt.Fprintln(fs.Output(), "nodes it would launch, their cost against a proven lower bound, and why any pod cannot")
		fmt.Fprintln(fs.Output(), "be placed. Several -f files form one scenario. Without -f it runs two small embedded")
		fmt.Fprintln(fs.Output(), "examples, and -o json prints an array with one report per example.")
		fmt.Fprintln(fs.Output(), "A scenario with existing nodes, pods bound to them (spec.nodeName) and no pending pods is")
		fmt.Fprintln(fs.Output(), "simulated as consolidation: the nodes Tenon would remove or replace and why it keeps the")
		fmt.Fprintln(fs.Output(), "others. --example inflate-scale-down shows it on the inflate Deployment scaled from 50 to 5.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 done, 1 --check found a violation (or solving failed), 2 bad input or usage.")
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: pass scenario files with -f", fs.Arg(0))
		fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
		return nil, err
	}
	if *repeat < 1 {
		err := fmt.Errorf("invalid value %d for flag -repeat: must be at least 1", *repeat)
		fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
		return nil, err
	}
	if *timeout < 0 {
		err := fmt.Errorf("invalid value %v for flag -timeout: must not be negative", *timeout)
		fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
		return nil, err
	}
	if *maxRounds < 1 {
		err := fmt.Errorf("invalid value %d for flag -max-rounds: must be at least 1", *maxRounds)
		fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
		return nil, err
	}
	if *example != "" && len(files) > 0 {
		err := errors.New("-example and -f exclude each other: run an embedded example or your files")
		fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
		return nil, err
	}
	if *example != "" && !slices.Contains(exampleNames(), *example) {
		err := fmt.Errorf("invalid value %q for flag -example: the embedded examples are %s", *example, strings.Join(exampleNames(), ", "))
		fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
		return nil, err
	}
	o := &options{files: files, output: string(output), repeat: *repeat, check: *check, timeout: *timeout,
		example: *example, consolidate: *consolidate, untilStable: *untilStable, maxRounds: *maxRounds}
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			err = fmt.Errorf("invalid value %q for flag -now: want RFC 3339 such as 2026-01-05T10:00:00Z", *nowFlag)
			fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
			return nil, err
		}
		o.now = t.UTC()
	}
	fs.Visit(func(f *flag.Flag) { o.repeatSet = o.repeatSet || f.Name == "repeat" })
	return o, nil
}

func (c *cli) run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitBadInput
	}
	if opts.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.timeout)
		defer cancel()
	}
	scenarios, intros, err := c.load(opts)
	if err != nil {
		fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
		return ExitBadInput
	}
	code := ExitOK
	reports := make([]any, 0, len(scenarios))
	for i, s := range scenarios {
		// Packing and consolidation differ in what they run and print; the
		// handling of errors, violations and --check is the same.
		var (
			rep        any
			violations []string
			err        error
			write      func(io.Writer)
			result     = "result"
			checked    = "no pod placed twice, no node over-committed, every hard constraint held"
		)
		if consolidating(s, opts) {
			var r *ConsolidationReport
			r, violations, err = c.consolidate(ctx, s, opts)
			rep, result, checked = r, "plan", "every evicted pod fits where the plan sends it, every hard constraint held"
			write = func(w io.Writer) { writeConsolidationText(w, s, r, intros[i]) }
		} else {
			var r *Report
			r, violations, err = c.simulate(ctx, s, opts)
			rep = r
			write = func(w io.Writer) { writeText(w, s, r, intros[i]) }
		}
		if err != nil {
			fmt.Fprintf(stderr, "tenon simulate: %v\n", err)
			var inErr *InputError
			if errors.As(err, &inErr) {
				return ExitBadInput
			}
			return ExitCheckFails
		}
		reports = append(reports, rep)
		if opts.output == "text" {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			write(stdout)
		}
		if len(violations) > 0 {
			fmt.Fprintf(stderr, "tenon simulate: %s: the %s breaks %d rule(s):\n", s.Name, result, len(violations))
			for _, v := range violations {
				fmt.Fprintf(stderr, "  %s\n", v)
			}
			code = ExitCheckFails
		} else if opts.check && opts.output == "text" {
			fmt.Fprintf(stdout, "\nCheck: no violations (%s).\n", checked)
		}
	}
	for _, w := range c.warnings {
		fmt.Fprintf(stderr, "tenon simulate: warning: %s\n", w)
	}
	if opts.output == "json" {
		v := reports[0]
		if len(reports) > 1 {
			v = reports
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(stderr, "tenon simulate: writing JSON: %v\n", err)
			return ExitCheckFails
		}
	}
	return code
}

// load reads the -f files as one scenario, or the embedded examples.
func (c *cli) load(opts *options) ([]*Scenario, []string, error) {
	if opts.example != "" {
		return loadExample(opts.example)
	}
	if len(opts.files) == 0 {
		return loadExamples()
	}
	s, err := Load(opts.files...)
	if err != nil {
		return nil, nil, err
	}
	return []*Scenario{s}, []string{""}, nil
}

// simulate solves a scenario (repeat times after a warm-up when --repeat
// is given) and reports the last run, with every run's time.
func (c *cli) simulate(ctx context.Context, s *Scenario, opts *options) (*Report, []string, error) {
	runs := opts.repeat
	if opts.repeatSet {
		runs++ // the warm-up, not reported
	}
	var times []float64
	var rep *Report
	var first []byte
	var last solution
	var snap *snapshotAndPods
	for i := range runs {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("%s: giving up after run %d: %w", s.Name, i, err)
		}
		start := c.now()
		sp, err := s.snapshotAndPending()
		if err != nil {
			return nil, nil, err
		}
		sol, err := c.engine.Solve(ctx, sp.snap, sp.pending)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		elapsed := c.now().Sub(start).Seconds()
		// Every run must decide the same; a difference is a bug in the
		// engine, worth saying even though the timings are still useful.
		rep = sol.Report(s, sp.snap, sp.pending)
		if runs > 1 {
			got, err := json.Marshal(rep)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: encoding the report: %w", s.Name, err)
			}
			if first == nil {
				first = got
			} else if !bytes.Equal(first, got) {
				c.warnings = append(c.warnings, fmt.Sprintf("%s: run %d decided differently from the first run; the engine is not deterministic", s.Name, i+1))
			}
		}
		if opts.repeatSet && i == 0 {
			continue
		}
		times = append(times, elapsed)
		last, snap = sol, sp
	}
	if c.zeroTimings {
		times = make([]float64, len(times))
	}
	rep.Summary.SolveRuns = times
	rep.Summary.SolveSeconds = median(times)
	var violations []string
	if opts.check {
		violations = last.Violations(snap.snap, snap.pending)
	}
	return rep, violations, nil
}

// snapshotAndPods is one run's input to the engine.
type snapshotAndPods struct {
	snap    *state.Snapshot
	pending []*state.Pod
}
