// Command dev-cluster starts and stops a local control plane for people: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and KWOK on 127.0.0.1, from the
// binaries `make testbin` builds. `make dev-cluster` runs `dev-cluster up`, which returns once
// the cluster is healthy and prints the KUBECONFIG line to use; the components keep running
// in the background until `make dev-cluster-down` (`dev-cluster down`) stops them by PID.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "dev-cluster: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || (args[0] != "up" && args[0] != "down") {
		return errors.New("usage: dev-cluster up|down [-dir DIR] [-bin DIR]")
	}
	fs := flag.NewFlagSet("dev-cluster "+args[0], flag.ContinueOnError)
	dir := fs.String("dir", filepath.Join("bin", "dev-cluster"), "the cluster's folder: PKI, etcd data, kubeconfig, logs, PID files")
	bin := fs.String("bin", controlplane.BinDir(), "the folder holding etcd, kube-apiserver, ... (make testbin)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if args[0] == "down" {
		return down(ctx, abs)
	}
	return up(ctx, abs, *bin)
}

func up(ctx context.Context, dir, bin string) error {
	if pids, _ := filepath.Glob(filepath.Join(dir, "*.pid")); len(pids) > 0 {
		return fmt.Errorf("%s holds a running cluster's PID files; run `make dev-cluster-down` first", dir)
	}
	if err := os.RemoveAll(dir); err != nil { // the data of a cluster stopped before
		return err
	}
	cp, err := controlplane.Start(ctx, controlplane.Options{
		BinDir: bin, Dir: dir, Detached: true,
		ControllerManager: true, Scheduler: true, KWOK: true,
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "kwok-node.yaml"), []byte(exampleNode), 0o600); err != nil {
		return err
	}
	fmt.Printf(`The local cluster runs (logs in %[1]s). To use it:

KUBECONFIG=%[2]s

  export KUBECONFIG=%[2]s
  %[3]s get nodes
  %[3]s apply -f %[4]s   # a fake node KWOK makes Ready and runs pods on
  make dev-cluster-down                   # stops every component
`, dir, cp.Kubeconfig, cp.Kubectl(), filepath.Join(dir, "kwok-node.yaml"))
	return nil
}

func down(ctx context.Context, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := controlplane.StopPIDFiles(ctx, dir, 15*time.Second); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	fmt.Printf("stopped the local cluster and removed %s\n", dir)
	return nil
}

// exampleNode is a Node handed to KWOK by its annotation.
const exampleNode = `apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations:
    ` + controlplane.KWOKNodeAnnotation + `: fake
  labels:
    kubernetes.io/hostname: kwok-node-0
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
  capacity: {cpu: "32", memory: 256Gi, pods: "110"}
`
