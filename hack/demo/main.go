// Command demo is `make demo`: it starts the local control plane (etcd, kube-apiserver,
// kube-scheduler, kube-controller-manager, KWOK), installs the agent's CRDs and RBAC from
// engine/agent/manifests, runs `tenon agent --cloud=kwok` as a local process with the
// Deployment's arguments, applies examples/local, scales the inflate Deployment 0 -> N -> 0 and
// prints the NodeClaims, nodes, pods and cost as they change, until the agent's nodes are gone.
// It stops every process it started and exits 1, naming what did not happen and where the logs
// are, when a step times out.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

func main() {
	bin := controlplane.BinDir()
	cfg := config{Out: os.Stdout}
	flag.StringVar(&cfg.BinDir, "bin", bin, "folder of the control plane's binaries (make testbin)")
	flag.StringVar(&cfg.Tenon, "tenon", filepath.Join(bin, "tenon"), "the tenon binary the agent runs from (make build)")
	flag.StringVar(&cfg.Examples, "examples", filepath.Join(filepath.Dir(bin), "examples", "local"), "the examples/local folder")
	flag.StringVar(&cfg.Dir, "dir", filepath.Join(bin, "demo"), "working folder for the cluster's data and every log (emptied first)")
	flag.IntVar(&cfg.Replicas, "replicas", 10, "how far to scale inflate up")
	flag.DurationVar(&cfg.ScaleUpTimeout, "scale-up-timeout", 3*time.Minute, "how long to wait for every pod to run")
	flag.DurationVar(&cfg.ScaleDownTimeout, "scale-down-timeout", 3*time.Minute, "how long to wait for the agent's nodes to go")
	flag.DurationVar(&cfg.StartTimeout, "start-timeout", 2*time.Minute, "how long each component and the agent may take to start")
	flag.DurationVar(&cfg.Poll, "poll", 250*time.Millisecond, "how often to look at the cluster")
	flag.Parse()
	if cfg.Replicas < 1 {
		fmt.Fprintln(os.Stderr, "demo: -replicas must be at least 1")
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := run(ctx, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo failed: %v\n", err)
		stop()
		os.Exit(1) //nolint:gocritic // run has stopped every process; nothing is left to defer
	}
}
