// Command tenonagent is `tenon agent` alone: the end-to-end tests build it
// instead of the whole tenon binary, so they compile only what the agent
// needs. main.go's agent subcommand calls the same agent.Command, and the
// process flags, logs and exit codes are the same: `tenonagent agent ...`
// behaves exactly as `tenon agent ...`.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "agent" {
		fmt.Fprintln(os.Stderr, "usage: tenonagent agent [flags]")
		os.Exit(2)
	}
	os.Exit(agent.Command(context.Background(), os.Args[2:], os.Stdout, os.Stderr))
}
