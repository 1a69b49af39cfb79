// Command bench-e2e is `make bench-e2e`: Tenon's agent and Karpenter's KWOK provider, each on a
// fresh local control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager,
// KWOK) with the same catalog and the same policy, take turns on the same scenario: a burst of
// 16 Deployments (cpu {250m, 500m, 1, 2} × memory {512Mi, 1Gi, 2Gi, 4Gi}) created at once, then
// every Deployment scaled to 30 %. For each run it reports time to all Running, nodes and $/h
// after the burst and after the scale-down, evictions, node launches, time to stable, PDB
// violations, and the engine's CPU seconds and peak RSS; then the medians per engine and their
// ratios, the figures to trust on a shared, noisy machine.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// config is the invocation's settings, one per flag.
type config struct {
	BinDir, Tenon, Karpenter, KarpenterCRDs, Dir string
	Runs                                         int
	Pods                                         []int
	Engines                                      []string
	ScaleDown                                    float64
	ConsolidateAfter                             string
	MaxUnavailable                               string
	Quiet, Timeout                               time.Duration
	TenonArgs                                    []string
	PodDeletionCost                              bool
	Out                                          io.Writer
}

// namespaceObject is a new Namespace object of the workload (Create fills in the one it is
// given, which cannot be created again on the next cluster).
func namespaceObject() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-e2e: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p, err := newPricer()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-e2e: %v\n", err)
		os.Exit(1)
	}
	capacity, err := poolCapacityPrice()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-e2e: %v\n", err)
		os.Exit(1)
	}
	b := &bench{cfg: cfg, pricer: p, capacity: capacity}
	results := b.all(ctx)
	report(cfg.Out, cfg, results)
	if err := writeJSON(filepath.Join(cfg.Dir, "results.json"), results); err != nil {
		fmt.Fprintf(os.Stderr, "bench-e2e: %v\n", err)
	}
	for _, r := range results {
		if r.Err != "" {
			os.Exit(1)
		}
	}
}

func parseFlags(args []string) (config, error) {
	bin := controlplane.BinDir()
	cfg := config{Out: os.Stdout}
	fs := flag.NewFlagSet("bench-e2e", flag.ContinueOnError)
	fs.StringVar(&cfg.BinDir, "bin", bin, "folder of the control plane's binaries (make testbin)")
	fs.StringVar(&cfg.Tenon, "tenon", filepath.Join(bin, "tenon"), "the tenon binary (make build)")
	fs.StringVar(&cfg.Karpenter, "karpenter", filepath.Join(bin, "karpenter-kwok"), "Karpenter's KWOK provider (make bench-e2e builds it)")
	fs.StringVar(&cfg.KarpenterCRDs, "karpenter-crds", filepath.Join(bin, "karpenter-crds"), "folder of Karpenter's CRDs (karpenter.sh, karpenter.kwok.sh and the capacity buffers it watches)")
	fs.StringVar(&cfg.Dir, "dir", filepath.Join(bin, "bench-e2e"), "working folder: every cluster's data and logs, results.json")
	fs.IntVar(&cfg.Runs, "runs", 3, "runs per engine and scenario; engines alternate, the first engine alternating too")
	pods := fs.String("pods", "500", "comma-separated burst sizes, e.g. 500,2000")
	engines := fs.String("engines", "tenon,karpenter", "engines to run: tenon, karpenter or both")
	fs.Float64Var(&cfg.ScaleDown, "scale-down", 0.3, "fraction of each Deployment's replicas kept by the scale-down")
	fs.StringVar(&cfg.ConsolidateAfter, "consolidate-after", "30s", "the NodePools' consolidateAfter")
	fs.StringVar(&cfg.MaxUnavailable, "pdb-max-unavailable", "20%", "maxUnavailable of each Deployment's PodDisruptionBudget; empty for no PDB")
	fs.DurationVar(&cfg.Quiet, "quiet", 90*time.Second, "a phase is stable once every pod runs and the node set has not changed for this long")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "the longest a phase is followed")
	tenonArgs := fs.String("tenon-args", "", "extra arguments for tenon agent, space-separated")
	fs.BoolVar(&cfg.PodDeletionCost, "pod-deletion-cost", false, "install and run Tenon's agent with --pod-deletion-cost")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	for _, s := range strings.Split(*pods, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 16 {
			return cfg, fmt.Errorf("-pods %q: want burst sizes of at least 16", *pods)
		}
		cfg.Pods = append(cfg.Pods, n)
	}
	var err error
	if cfg.Engines, err = engineNames(*engines); err != nil {
		return cfg, err
	}
	cfg.TenonArgs = strings.Fields(*tenonArgs)
	if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
		return cfg, err
	}
	return cfg, os.MkdirAll(cfg.Dir, 0o700)
}

// all runs every scenario Runs times per engine, alternating engines (and which goes first).
func (b *bench) all(ctx context.Context) []result {
	engines := map[string]engine{
		"tenon":     &tenon{bin: b.cfg.Tenon, consolidateAfter: b.cfg.ConsolidateAfter, extraArgs: b.cfg.TenonArgs, podDeletionCost: b.cfg.PodDeletionCost},
		"karpenter": &karpenter{bin: b.cfg.Karpenter, crds: b.cfg.KarpenterCRDs, consolidateAfter: b.cfg.ConsolidateAfter},
	}
	b.say("load average %.2f at the start; %d run(s) per engine of %v pods", loadAverage(), b.cfg.Runs, b.cfg.Pods)
	if b.cfg.PodDeletionCost {
		b.say("tenon runs with --pod-deletion-cost")
	}
	var out []result
	for _, pods := range b.cfg.Pods {
		for run := 1; run <= b.cfg.Runs; run++ {
			order := b.cfg.Engines
			if run%2 == 0 {
				order = reversed(order)
			}
			for _, name := range order {
				if ctx.Err() != nil {
					return out
				}
				r := b.runOne(ctx, engines[name], pods, run)
				if r.Err != "" {
					b.say("  %s run %d failed: %s", name, run, r.Err)
				}
				out = append(out, r)
			}
		}
	}
	return out
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func (b *bench) say(format string, args ...any) {
	fmt.Fprintf(b.cfg.Out, "[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
