// Command terraform-provider-tenon is Tenon's single binary. With no arguments
// (as Terraform and OpenTofu start it) it serves the Terraform plugin protocol;
// with a subcommand it is the `tenon` command-line tool.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/engine/convert"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/internal/version"
	"github.com/tenonhq/terraform-provider-tenon/provider"
)

// providerAddress is the registry address Terraform and OpenTofu know us by.
const providerAddress = "registry.terraform.io/tenonhq/tenon"

// command is one `tenon` subcommand. Later subcommands (agent, simulate,
// convert) add a row to commands; nothing else in this file changes.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{name: "agent", summary: "run the in-cluster agent: watch pending pods, launch and remove nodes (--cloud kwok|aws)", run: agent.Command},
		{name: "manifests", summary: "print the agent's install (CRDs, namespace, RBAC, Deployment, PDB, Service) as YAML, for kubectl, ArgoCD or Flux", run: manifests.Command},
		{name: "version", summary: "print the version, commit, Go version and the agent image this build installs", run: runVersion},
		{name: "simulate", summary: "simulate packing and consolidation on scenario files, or read-only on a running cluster (--kubeconfig)", run: simulate.CommandWith(agent.ReadCluster)},
		{name: "explain", summary: "explain on a running cluster why a pod is pending and where it goes, or why a node is kept", run: simulate.ExplainCommand(agent.ReadCluster)},
		{name: "convert", summary: "convert Karpenter Provisioners, NodePools and EC2NodeClasses to Tenon HCL or YAML", run: convert.Command},
		{name: "help", summary: "list the subcommands; help COMMAND prints that command's usage", run: runHelp},
	}
}

func main() {
	args := os.Args[1:]
	if inCrashGuardChild() {
		os.Exit(childExitBase + run(context.Background(), args, os.Stdout, os.Stderr))
	}
	if crashGuarded(args) {
		if code, ok := superviseCrashes(args, os.Stderr); ok {
			os.Exit(code)
		}
	}
	os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
}

// run dispatches to the plugin server (no arguments, or only flags such as
// -debug) or to a subcommand, and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelpFlag(args[0]) {
		printUsage(stdout)
		return 0
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return serve(ctx, args, stderr)
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "tenon: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return 2
	}
	if c.name != "help" && slices.ContainsFunc(args[1:], isHelpFlag) {
		return commandUsage(ctx, c, stdout)
	}
	return guard(c, func() int { return c.run(ctx, args[1:], stdout, stderr) }, stderr)
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// isHelpFlag reports whether arg asks for usage, in any spelling the flag package accepts.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

// commandUsage prints c's usage on stdout, where a person asking for help reads it (the
// subcommands' flag sets print usage on their error stream), and exits 0.
func commandUsage(ctx context.Context, c command, stdout io.Writer) int {
	c.run(ctx, []string{"-h"}, stdout, stdout)
	return 0
}

// Exit codes every subcommand shares: 0 done, 1 failed (a check, --strict,
// the agent stopped on an error), 2 bad input or usage, and exitInternal
// for a crash. Go's runtime exits 2 on an unrecovered panic, which would
// read as bad input; guard turns a panic in the command's goroutine into
// exitInternal, and simulate and convert run in a child process
// (crashguard.go) so that any other crash does too. engine/internal/cli
// (ExitInternal) holds the same value for simulate and convert, which
// recover on their own and say more.
const exitInternal = 3

// guard runs a subcommand's body, reporting a panic in it as an internal
// error with its stack and returning exitInternal.
func guard(c command, body func() int, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "tenon %s: internal error: %v; this is a bug in tenon, not a problem with the input: please report it with this stack:\n%s", c.name, p, debug.Stack())
			code = exitInternal
		}
	}()
	return body()
}

// serve runs the Terraform plugin protocol server until Terraform stops it.
func serve(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("terraform-provider-tenon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	debug := fs.Bool("debug", false, "start the provider for a debugger such as delve and print TF_REATTACH_PROVIDERS")
	if err := fs.Parse(args); err != nil {
		printUsage(stderr)
		return 2
	}
	opts := providerserver.ServeOpts{Address: providerAddress, Debug: *debug}
	if err := providerserver.Serve(ctx, provider.New(version.Version()), opts); err != nil {
		fmt.Fprintf(stderr, "serving the Terraform plugin protocol: %v\n", err)
		return 1
	}
	return 0
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tenon version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenon version\n\nPrints the version, commit, Go version and platform, and the agent image this build installs\nby default (a development build says that no release publishes that image).")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tenon version: unexpected argument %q: tenon version takes none\n", fs.Arg(0))
		return 2
	}
	fmt.Fprintf(stdout, "tenon %s (commit %s, %s %s/%s)\n", version.Version(), version.Commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "agent image: %s\n", manifests.DefaultImage)
	if note := manifests.DefaultImageNote(); note != "" {
		fmt.Fprintf(stdout, "%s\n", note)
	}
	return 0
}

// runHelp is `tenon help [COMMAND]`: the command list, or one command's usage.
func runHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || isHelpFlag(args[0]) {
		printUsage(stdout)
		return 0
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "tenon help: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return 2
	}
	if c.name == "help" {
		printUsage(stdout)
		return 0
	}
	return commandUsage(ctx, c, stdout)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: tenon <command> [arguments]")
	fmt.Fprintln(w, "       tenon help <command>                (or tenon <command> --help: that command's usage)")
	fmt.Fprintln(w, "       terraform-provider-tenon [-debug]   (serve the Terraform plugin protocol)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
}
