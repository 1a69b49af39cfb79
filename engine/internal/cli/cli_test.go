package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	var stderr bytes.Buffer
	cmd := Command{Name: "tenon test", Stderr: &stderr}
	files := Files{Stdin: true}
	out := Choice{Value: "text", Allowed: []string{"text", "json"}}
	fs := cmd.FlagSet("Usage: tenon test [-f FILE]...", "Exit status: 0 done.")
	fs.Var(&files, "f", "a `file`")
	fs.Var(&out, "o", "output `format`")
	positional, err := Parse(fs, []string{"a.yaml", "-f", "b.yaml", "c.yaml", "-o", "json", "-f", "-"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(positional, " ") != "a.yaml c.yaml" || strings.Join(files.Names, " ") != "b.yaml -" || out.Value != "json" {
		t.Errorf("positional %q, -f %q, -o %q", positional, files.Names, out.Value)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "yaml"}, `invalid value "yaml" for flag -o: must be text or json`},
		{[]string{"-f", ""}, `invalid value "" for flag -f: must name a file, or - for standard input`},
	} {
		stderr.Reset()
		if _, err := Parse(fs, tc.args); ParseExit(err) != ExitBadInput || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("Parse(%q) = %v, exit %d; stderr %q, want %q", tc.args, err, ParseExit(err), stderr.String(), tc.want)
		}
	}
	stderr.Reset()
	if _, err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || ParseExit(err) != ExitOK {
		t.Errorf("-h: %v, exit %d", err, ParseExit(err))
	}
	if want := "Usage: tenon test [-f FILE]...\nExit status: 0 done.\n\nFlags:\n  -f file\n"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("usage:\n%s\nwant it to start:\n%s", stderr.String(), want)
	}
}

func TestReport(t *testing.T) {
	var stderr bytes.Buffer
	cmd := Command{Name: "tenon test", Stderr: &stderr}
	cmd.Report(errors.Join(errors.New("a.yaml: bad"), errors.Join(errors.New("b.yaml: worse"))))
	if err := cmd.Errorf("flag %s", "-x"); err.Error() != "flag -x" {
		t.Errorf("Errorf returned %v", err)
	}
	want := "tenon test: a.yaml: bad\ntenon test: b.yaml: worse\ntenon test: flag -x\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	var f Files
	if err := f.Set(""); err == nil || err.Error() != "must name a file" {
		t.Errorf("Files without stdin: Set(\"\") = %v", err)
	}
}

func TestRunReportsACrash(t *testing.T) {
	for _, timeout := range []time.Duration{0, time.Minute} {
		var stdout, stderr bytes.Buffer
		cmd := Command{Name: "tenon test", Stderr: &stderr}
		code := cmd.Run(context.Background(), timeout, &stdout, func(context.Context, io.Writer, Command) int {
			panic("assignment to entry in nil map")
		})
		if code != ExitInternal || !strings.Contains(stderr.String(), "tenon test: internal error: assignment to entry in nil map") {
			t.Errorf("timeout %v: exit %d, stderr:\n%s", timeout, code, stderr.String())
		}
	}
}

func TestRunGivesUpAtTheTimeout(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cmd := Command{Name: "tenon test", Stderr: &stderr}
	release := make(chan struct{})
	defer close(release)
	code := cmd.Run(context.Background(), 50*time.Millisecond, &stdout, func(_ context.Context, stdout io.Writer, _ Command) int {
		<-release // ignores its context, as a long read does
		fmt.Fprintln(stdout, "late")
		return ExitOK
	})
	if code != ExitFailed || !strings.Contains(stderr.String(), "gave up after --timeout 50ms") || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	code = cmd.Run(context.Background(), time.Minute, &stdout, func(_ context.Context, stdout io.Writer, cmd Command) int {
		fmt.Fprintln(stdout, "done")
		cmd.Printf("note")
		return ExitOK
	})
	if code != ExitOK || stdout.String() != "done\n" || !strings.Contains(stderr.String(), "tenon test: note") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
