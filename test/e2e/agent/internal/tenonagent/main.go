// Command tenonagent is `tenon agent` alone: the end-to-end tests build it
// instead of the whole tenon binary, so they compile only what the agent
// needs. main.go's agent subcommand calls the same agent.Command, and the
// process flags, logs and exit codes are the same: `tenonagent agent ...`
// behaves exactly as `tenon agent ...`. With TENON_E2E_CLOUD_FAULTS set to a
// file, the cloud provider fails while that file says so (see cloudfault).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/test/e2e/agent/internal/cloudfault"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "agent" {
		fmt.Fprintln(os.Stderr, "usage: tenonagent agent [flags]")
		os.Exit(2)
	}
	var customize func(*agent.Options)
	if file := os.Getenv(cloudfault.EnvFile); file != "" {
		customize = func(o *agent.Options) {
			o.WrapCloud = func(p cloud.CloudProvider) cloud.CloudProvider { return cloudfault.Wrap(p, file) }
		}
	}
	os.Exit(agent.CommandWith(context.Background(), os.Args[2:], os.Stdout, os.Stderr, customize))
}
