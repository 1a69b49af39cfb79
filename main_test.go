package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/engine/convert"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{name: "version", args: []string{"version"}, wantStdout: []string{"tenon " + version.Version(), "commit " + version.Commit(), runtime.Version(),
			"agent image: " + manifests.DefaultImage, "development build " + version.Dev}},
		{name: "version takes no argument", args: []string{"version", "extra"}, wantCode: 2, wantStderr: []string{`unexpected argument "extra"`}},
		{name: "help lists every command", args: []string{"help"}, wantStdout: []string{"version", "simulate", "manifests", "help", "Usage: tenon"}},
		{name: "--help lists every command and exits 0", args: []string{"--help"}, wantStdout: []string{"simulate", "Usage: tenon"}},
		{name: "-h lists every command", args: []string{"-h"}, wantStdout: []string{"Usage: tenon"}},
		{name: "help COMMAND prints its usage", args: []string{"help", "simulate"}, wantStdout: []string{"Usage: tenon simulate", "-until-stable"}},
		{name: "help agent", args: []string{"help", "agent"}, wantStdout: []string{"-cluster-name", "-batch-idle"}},
		{name: "help manifests", args: []string{"help", "manifests"}, wantStdout: []string{"Usage: tenon manifests", "-cluster-name"}},
		{name: "help version", args: []string{"help", "version"}, wantStdout: []string{"Usage: tenon version"}},
		{name: "help help", args: []string{"help", "help"}, wantStdout: []string{"Usage: tenon"}},
		{name: "help of an unknown command", args: []string{"help", "frobnicate"}, wantCode: 2, wantStderr: []string{`unknown command "frobnicate"`}},
		{name: "COMMAND --help prints its usage on stdout", args: []string{"convert", "--help"}, wantStdout: []string{"Usage: tenon convert"}},
		{name: "COMMAND -h after other flags", args: []string{"agent", "--cloud=kwok", "-h"}, wantStdout: []string{"-cluster-name"}},
		{name: "manifests is wired in", args: []string{"manifests", "--cloud", "kwok", "--cluster-name", "dev", "--crds", "skip"}, wantStdout: []string{"kind: Deployment", "--cluster-name=dev"}},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: []string{`unknown command "frobnicate"`, "Commands:"}},
		{name: "simulate is wired in", args: []string{"simulate", "-o", "yaml"}, wantCode: 2, wantStderr: []string{`invalid value "yaml" for flag -o`}},
		{name: "unknown flag for the plugin server", args: []string{"-nope"}, wantCode: 2, wantStderr: []string{"flag provided but not defined: -nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tt.wantCode, stderr.String())
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), w)
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not contain %q", stderr.String(), w)
				}
			}
		})
	}
}

func TestCommandNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.name] {
			t.Errorf("command %q is listed twice", c.name)
		}
		if c.run == nil || c.summary == "" {
			t.Errorf("command %q needs a run function and a summary", c.name)
		}
		seen[c.name] = true
	}
}

// TestCrashIsAnInternalError: a panic in a subcommand used to end the
// process with Go's exit status 2, the code of bad input; it is reported as
// a bug and exits 3.
func TestCrashIsAnInternalError(t *testing.T) {
	var stderr bytes.Buffer
	code := guard(command{name: "agent"}, func() int { panic("assignment to entry in nil map") }, &stderr)
	if code != exitInternal || code == 2 {
		t.Errorf("exit %d, want %d", code, exitInternal)
	}
	if msg := stderr.String(); !strings.Contains(msg, "tenon agent: internal error: assignment to entry in nil map") || !strings.Contains(msg, "goroutine") {
		t.Errorf("stderr does not report the crash with its stack:\n%s", msg)
	}
	for name, c := range map[string]int{"simulate": simulate.ExitInternal, "convert": convert.ExitInternal} {
		if c != exitInternal {
			t.Errorf("tenon %s exits %d on an internal error, main %d", name, c, exitInternal)
		}
	}
}

// TestReadmeExitCodes keeps the README's exit status table true to the
// codes the commands use.
func TestReadmeExitCodes(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(data), "## Exit status of `tenon simulate` and `tenon convert`")
	rows := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, "|"); len(cells) == 4 {
			rows[strings.TrimSpace(cells[1])] = cells[2]
		}
	}
	for _, c := range []struct {
		code  int
		words string
	}{
		{simulate.ExitOK, "done"}, {convert.ExitOK, "done"},
		{simulate.ExitCheckFails, "`simulate --check` found a violation"}, {convert.ExitUnmapped, "`convert --strict` found a field not mapped"},
		{simulate.ExitBadInput, "bad input or usage"}, {convert.ExitBadInput, "bad input or usage"},
		{simulate.ExitInternal, "internal error"}, {convert.ExitInternal, "internal error"}, {exitInternal, "internal error"},
	} {
		if row := rows[fmt.Sprint(c.code)]; !strings.Contains(row, c.words) {
			t.Errorf("README.md's exit status %d reads %q, want it to say %q", c.code, row, c.words)
		}
	}
}
