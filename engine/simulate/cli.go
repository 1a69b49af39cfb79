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

	"github.com/tenonhq/terraform-provider-tenon/engine/internal/cli"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Exit codes of `tenon simulate`.
const (
	ExitOK = cli.ExitOK
	// ExitCheckFails: --check found a violation, solving failed, or
	// --timeout passed.
	ExitCheckFails = cli.ExitFailed
	ExitBadInput   = cli.ExitBadInput
	// ExitInternal: a bug in tenon (a crash), never bad input.
	ExitInternal = cli.ExitInternal
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
// success; 1 when --check finds a violation, the solve fails or --timeout
// passes (reading counts); 2 on bad input or usage; 3 on an internal error
// (a crash).
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return CommandWith(nil)(ctx, args, stdout, stderr)
}

// CommandWith is `tenon simulate` with --kubeconfig and --context reading a running cluster
// through read (engine/agent.ReadCluster in the tenon binary; nil refuses those flags).
func CommandWith(read ClusterReader) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		c := command{engine: packingSolver{}, now: time.Now, cluster: read}
		return c.run(ctx, args, stdout, stderr)
	}
}

// command holds what tests replace: the engine and the clock.
type command struct {
	engine solver
	now    func() time.Time
	// zeroTimings reports every timing as 0, for golden output.
	zeroTimings bool
	// warnings collects what run prints to stderr after the reports.
	warnings []string
	// cluster reads a running cluster for --kubeconfig and --context.
	cluster ClusterReader
}

// options are the parsed flags.
type options struct {
	files     cli.Files
	output    cli.Choice
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
	// scaleDownOrder adds the pod deletion cost ranking to a consolidation report.
	scaleDownOrder bool
	nowFlag        string
	now            time.Time
	// kubeconfig, kubeContext, region and zones name a running cluster to read instead of
	// files; save is where its scenario file goes.
	live liveFlags
	save string
}

// liveFlags are the flags that name a running cluster, shared by `tenon simulate` and
// `tenon explain`.
type liveFlags struct {
	kubeconfig  string
	kubeContext string
	region      string
	zones       string
}

// register adds the flags to fs.
func (l *liveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.kubeconfig, "kubeconfig", "", "the kubeconfig `file` of the running cluster to read, read-only (get and list); simulate reads it instead of scenario files")
	fs.StringVar(&l.kubeContext, "context", "", "the kubeconfig `context` to read (default its current context)")
	fs.StringVar(&l.region, "region", "", "with --kubeconfig: the `region` whose catalog prices the cluster, as the agent's --region (default us-east-1)")
	fs.StringVar(&l.zones, "zones", "", "with --kubeconfig: comma-separated `zones` offered, as the agent's --zones (default all of the region)")
}

// set reports whether a running cluster is named (--kubeconfig or --context).
func (l *liveFlags) set() bool { return l.kubeconfig != "" || l.kubeContext != "" }

// options returns what ClusterReader takes.
func (l *liveFlags) options() LiveOptions {
	o := LiveOptions{Kubeconfig: l.kubeconfig, Context: l.kubeContext, Region: l.region}
	for z := range strings.SplitSeq(l.zones, ",") {
		if z = strings.TrimSpace(z); z != "" {
			o.Zones = append(o.Zones, z)
		}
	}
	return o
}

var usage = []string{
	"Usage: tenon simulate [-f FILE]... [-o text|json] [--repeat N] [--check] [--timeout D]",
	"       tenon simulate [-f FILE... | --example NAME] [--consolidate] [--until-stable] [--max-rounds N] [--now TIME]",
	"       tenon simulate --kubeconfig FILE [--context NAME] [--consolidate] [--save FILE] [-o text|json]",
	"\nSimulates Tenon's packing on scenario files, with no cluster and no cloud: prints the",
	"nodes it would launch, their cost against a proven lower bound, and why any pod cannot",
	"be placed. Several -f files form one scenario. Without -f it runs two small embedded",
	"examples, and -o json prints an array with one report per example.",
	"A scenario with existing nodes, pods bound to them (spec.nodeName) and no pending pods is",
	"simulated as consolidation: the nodes Tenon would remove or replace and why it keeps the",
	"others. --example inflate-scale-down shows it on the inflate Deployment scaled from 50 to 5.",
	"--kubeconfig (or --context) reads a running cluster instead, read-only, as Tenon's agent sees it",
	"(pending and bound pods, nodes, NodeClaims, policy, daemonsets, PDBs) and prints what the agent",
	"would do now; --save FILE writes that snapshot as a scenario file that -f replays offline with",
	"the same answer. The identity needs the ClusterRole of `tenon manifests --read-only-role`.",
	"Exit status: 0 done; 1 --check found a violation, solving failed, --timeout passed or the",
	"cluster could not be read; 2 bad input or usage (the file, object and field at fault are named);",
	"3 internal error (a bug).",
}

// parseFlags parses and checks the flags; it has told the person what is
// wrong when it returns an error.
func parseFlags(args []string, cmd cli.Command) (*options, error) {
	o := &options{output: cli.Choice{Value: "text", Allowed: []string{"text", "json"}}}
	fs := cmd.FlagSet(usage...)
	fs.Var(&o.files, "f", "scenario `file` (YAML or JSON); repeat for several files; none runs the embedded examples")
	fs.Var(&o.output, "o", "output `format`: text or json")
	fs.IntVar(&o.repeat, "repeat", 1, "solve `N` times after one warm-up and report each run's time and the median")
	fs.BoolVar(&o.check, "check", false, "validate the result against the scenario and exit 1 listing any violation")
	fs.DurationVar(&o.timeout, "timeout", 0, "give up after this `duration` (such as 30s), reading and solving included; 0 means no limit")
	fs.StringVar(&o.example, "example", "", "run the embedded example `name` instead of files: "+strings.Join(exampleNames(), ", "))
	fs.BoolVar(&o.consolidate, "consolidate", false, "simulate consolidation of the scenario's nodes even if pods are pending")
	fs.BoolVar(&o.untilStable, "until-stable", false, "consolidate: apply each plan in simulation and plan again until nothing changes")
	fs.IntVar(&o.maxRounds, "max-rounds", 10, "consolidate --until-stable: stop after `N` plans")
	fs.BoolVar(&o.scaleDownOrder, "scale-down-order", false, "consolidate: list the nodes in the order tenon agent --pod-deletion-cost has a ReplicaSet scale-down delete pods from them (the first plan's)")
	fs.StringVar(&o.nowFlag, "now", "", "consolidate: plan at this `time` (RFC 3339, such as 2026-01-05T10:00:00Z); default the scenario's spec.now, else the current time")
	o.live.register(fs)
	fs.StringVar(&o.save, "save", "", "with --kubeconfig: write the cluster as a scenario `file` that tenon simulate -f replays")
	positional, err := cli.Parse(fs, args)
	if err != nil {
		return nil, err
	}
	if len(positional) > 0 {
		return nil, cmd.Errorf("unexpected argument %q: pass scenario files with -f", positional[0])
	}
	fs.Visit(func(f *flag.Flag) { o.repeatSet = o.repeatSet || f.Name == "repeat" })
	if err := o.validate(); err != nil {
		return nil, cmd.Errorf("%v", err)
	}
	return o, nil
}

// validate checks the values flag parsing accepts but simulate does not.
func (o *options) validate() error {
	switch {
	case o.repeat < 1:
		return fmt.Errorf("invalid value %d for flag -repeat: must be at least 1", o.repeat)
	case o.timeout < 0:
		return fmt.Errorf("invalid value %v for flag -timeout: must not be negative", o.timeout)
	case o.maxRounds < 1:
		return fmt.Errorf("invalid value %d for flag -max-rounds: must be at least 1", o.maxRounds)
	case o.live.set() && (len(o.files.Names) > 0 || o.example != ""):
		return errors.New("--kubeconfig/--context and -f/--example exclude each other: simulate a running cluster or files")
	case o.save != "" && !o.live.set():
		return errors.New("--save writes a running cluster's snapshot: pass --kubeconfig FILE (or --context NAME) with it")
	case (o.live.region != "" || o.live.zones != "") && !o.live.set():
		return errors.New("--region and --zones price a running cluster (with --kubeconfig); a scenario file sets them in its Scenario header's spec")
	case o.example != "" && len(o.files.Names) > 0:
		return errors.New("-example and -f exclude each other: run an embedded example or your files")
	case o.example != "" && !slices.Contains(exampleNames(), o.example):
		return fmt.Errorf("invalid value %q for flag -example: the embedded examples are %s", o.example, strings.Join(exampleNames(), ", "))
	case o.nowFlag != "":
		t, err := time.Parse(time.RFC3339, o.nowFlag)
		if err != nil {
			return fmt.Errorf("invalid value %q for flag -now: want RFC 3339 such as 2026-01-05T10:00:00Z", o.nowFlag)
		}
		o.now = t.UTC()
	}
	return nil
}

func (c *command) run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := cli.Command{Name: "tenon simulate", Stderr: stderr}
	opts, err := parseFlags(args, cmd)
	if err != nil {
		return cli.ParseExit(err)
	}
	return cmd.Run(ctx, opts.timeout, stdout, func(ctx context.Context, stdout io.Writer, cmd cli.Command) int {
		return c.runScenarios(ctx, opts, cmd, stdout)
	})
}

// runScenarios loads the scenarios, simulates each and writes the reports.
func (c *command) runScenarios(ctx context.Context, opts *options, cmd cli.Command, stdout io.Writer) int {
	scenarios, intros, err := c.load(ctx, opts)
	if err != nil {
		cmd.Report(err)
		return loadExit(ctx, err, opts.live.set())
	}
	code := ExitOK
	reports := make([]any, 0, len(scenarios))
	for i, s := range scenarios {
		o, err := c.outcome(ctx, s, intros[i], opts)
		if err != nil {
			cmd.Report(err)
			var input *manifest.Error
			if errors.As(err, &input) {
				return ExitBadInput
			}
			return ExitCheckFails
		}
		reports = append(reports, o.report)
		if opts.output.Value == "text" {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			o.write(stdout)
		}
		if o.reportViolations(cmd, stdout, s, opts) {
			code = ExitCheckFails
		}
	}
	for _, w := range c.warnings {
		cmd.Printf("warning: %s", w)
	}
	if opts.output.Value == "json" {
		if err := writeJSON(stdout, reports); err != nil {
			cmd.Printf("writing JSON: %v", err)
			return ExitCheckFails
		}
	}
	return code
}

// outcome is one scenario's result: packing and consolidation differ in
// what they run and print; the handling of errors, violations and --check
// is the same.
type outcome struct {
	report     any
	violations []string
	write      func(io.Writer)
	// result and checked name what --check checked, for its messages.
	result, checked string
}

// outcome simulates a scenario, as consolidation or packing.
func (c *command) outcome(ctx context.Context, s *Scenario, intro string, opts *options) (*outcome, error) {
	if consolidating(s, opts) {
		r, violations, err := c.consolidate(ctx, s, opts)
		return &outcome{report: r, violations: violations, write: func(w io.Writer) { writeConsolidationText(w, s, r, intro) },
			result: "plan", checked: "every evicted pod fits where the plan sends it, every hard constraint held"}, err
	}
	r, violations, err := c.simulate(ctx, s, opts)
	return &outcome{report: r, violations: violations, write: func(w io.Writer) { writeText(w, s, r, intro) },
		result: "result", checked: "no pod placed twice, no node over-committed, every hard constraint held"}, err
}

// reportViolations lists on stderr the rules the outcome breaks, or says on
// stdout that --check found none; it reports whether there were any.
func (o *outcome) reportViolations(cmd cli.Command, stdout io.Writer, s *Scenario, opts *options) bool {
	if len(o.violations) == 0 {
		if opts.check && opts.output.Value == "text" {
			fmt.Fprintf(stdout, "\nCheck: no violations (%s).\n", o.checked)
		}
		return false
	}
	cmd.Printf("%s: the %s breaks %d rule(s):", s.Name, o.result, len(o.violations))
	for _, v := range o.violations {
		fmt.Fprintf(cmd.Stderr, "  %s\n", v)
	}
	return true
}

// writeJSON writes the report, or the array of reports when there are
// several (the embedded examples).
func writeJSON(w io.Writer, reports []any) error {
	v := reports[0]
	if len(reports) > 1 {
		v = reports
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// loadExit is the exit code when loading failed with err: bad flags or files are bad input;
// a cluster that cannot be read, or --timeout, is a failure.
func loadExit(ctx context.Context, err error, live bool) int {
	var usage *UsageError
	switch {
	case errors.As(err, &usage):
		return ExitBadInput
	case ctx.Err() != nil, live:
		return ExitCheckFails
	}
	return ExitBadInput
}

// load reads the -f files as one scenario, or the embedded examples, or the running cluster.
func (c *command) load(ctx context.Context, opts *options) ([]*Scenario, []string, error) {
	if opts.live.set() {
		s, lc, err := c.loadLive(ctx, opts.live.options(), opts.save)
		if err != nil {
			return nil, nil, err
		}
		intro := fmt.Sprintf("Cluster %q as Tenon's agent sees it at %s (%d nodes, %d pods).", lc.Cluster, lc.Now.Format(time.RFC3339), len(lc.Objects.Nodes), len(lc.Objects.Pods))
		if opts.save != "" {
			intro += fmt.Sprintf(" Saved as %s: tenon simulate -f %s replays it.", opts.save, opts.save)
		}
		return []*Scenario{s}, []string{intro}, nil
	}
	if opts.example != "" {
		return loadExample(opts.example)
	}
	if len(opts.files.Names) == 0 {
		return loadExamples()
	}
	files, err := manifest.ReadFiles(opts.files.Names, nil)
	if err != nil {
		return nil, nil, err
	}
	s, err := parse(ctx, files)
	if err != nil {
		return nil, nil, err
	}
	return []*Scenario{s}, []string{""}, nil
}

// simulate solves a scenario (repeat times after a warm-up when --repeat
// is given) and reports the last run, with every run's time.
func (c *command) simulate(ctx context.Context, s *Scenario, opts *options) (*Report, []string, error) {
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
