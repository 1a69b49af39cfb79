// Package cli holds what the `tenon` subcommands that read manifest files
// (`tenon simulate`, `tenon convert`) share: their exit codes, flag types,
// usage text, flag parsing, the way they report problems on stderr, one a
// line, each prefixed with the command's name, and the way they run: bounded
// by --timeout, with a crash reported as an internal error (Command.Run).
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// Exit codes the subcommands share. A crash never shares bad input's code,
// so a script can tell "fix your input" from "report a bug".
const (
	// ExitOK: done.
	ExitOK = 0
	// ExitFailed: the command ran but did not succeed; each names its own
	// case (--check found a violation, --strict found a field not mapped,
	// --timeout passed).
	ExitFailed = 1
	// ExitBadInput: bad input or usage; stderr names the file, object and
	// field at fault.
	ExitBadInput = 2
	// ExitInternal: a bug in tenon (a panic); stderr says so, with the
	// stack to report.
	ExitInternal = 3
)

// Command is one subcommand as it talks to a person: its name, such as
// "tenon simulate", and where its messages go.
type Command struct {
	Name   string
	Stderr io.Writer
}

// Printf writes one message line prefixed with the command's name.
func (c Command) Printf(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "%s: %s\n", c.Name, fmt.Sprintf(format, args...))
}

// Errorf writes a message line, as Printf, and returns it as an error.
func (c Command) Errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	c.Printf("%v", err)
	return err
}

// Report writes each problem joined in err on its own line.
func (c Command) Report(err error) {
	for _, e := range manifest.Flatten(err) {
		c.Printf("%v", e)
	}
}

// Run runs body, the part of a subcommand after its flags are parsed, and
// returns its exit code. A panic in body is reported as an internal error
// with its stack and exits ExitInternal: a crash must not look like bad
// input. With a positive timeout, body runs under a context with that
// deadline in a goroutine of its own, writing to buffers that Run copies
// to stdout and stderr when body returns; when the deadline passes first,
// Run reports it and returns ExitFailed, however far body got (reading,
// solving or writing), and body's output is dropped.
func (c Command) Run(ctx context.Context, timeout time.Duration, stdout io.Writer, body func(ctx context.Context, stdout io.Writer, cmd Command) int) int {
	if timeout <= 0 {
		return c.guard(func() int { return body(ctx, stdout, c) })
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out, errOut bytes.Buffer
	inner := Command{Name: c.Name, Stderr: &errOut}
	done := make(chan int, 1)
	go func() { done <- inner.guard(func() int { return body(ctx, &out, inner) }) }()
	select {
	case code := <-done:
		_, _ = c.Stderr.Write(errOut.Bytes())
		_, _ = stdout.Write(out.Bytes())
		return code
	case <-ctx.Done():
		c.Printf("gave up after --timeout %s (reading, solving and writing count); nothing written", timeout)
		return ExitFailed
	}
}

// guard runs fn, turning a panic into an internal-error report and
// ExitInternal.
func (c Command) guard(fn func() int) (code int) {
	defer func() {
		if p := recover(); p != nil {
			c.Printf("internal error: %v; this is a bug in tenon, not a problem with the input: please report it with the input and this stack:\n%s", p, debug.Stack())
			code = ExitInternal
		}
	}()
	return fn()
}

// FlagSet returns the command's flag set: errors go to stderr, and -h
// prints usage (the lines before the flags: synopsis, what the command
// does, its exit status), then the flags.
func (c Command) FlagSet(usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() {
		w := fs.Output()
		for _, line := range usage {
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args, whose flags may follow positional arguments, and
// returns the positional arguments in order.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// ParseExit is the exit code after parsing the flags failed with err: -h
// asked for the usage, which is not a failure; the rest is bad usage.
func ParseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	return ExitBadInput
}

// Files is the repeatable -f flag naming input files.
type Files struct {
	Names []string
	// Stdin says that "-" names standard input, for the message about an
	// empty value.
	Stdin bool
}

func (f *Files) String() string { return strings.Join(f.Names, ",") }

// Set adds a file.
func (f *Files) Set(v string) error {
	switch {
	case v != "":
		f.Names = append(f.Names, v)
		return nil
	case f.Stdin:
		return errors.New("must name a file, or - for standard input")
	}
	return errors.New("must name a file")
}

// Choice is a flag taking one of a few values, such as -o text|json.
type Choice struct {
	Value   string
	Allowed []string
}

func (c *Choice) String() string { return c.Value }

// Set takes v if it is allowed.
func (c *Choice) Set(v string) error {
	if !slices.Contains(c.Allowed, v) {
		return fmt.Errorf("must be %s", strings.Join(c.Allowed, " or "))
	}
	c.Value = v
	return nil
}
