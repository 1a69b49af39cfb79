// Package cli holds what the `tenon` subcommands that read manifest files
// (`tenon simulate`, `tenon convert`) share: their exit codes, flag types,
// usage text, flag parsing and the way they report problems on stderr, one
// a line, each prefixed with the command's name.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// Exit codes the subcommands share; each adds its own 1 (a check failed,
// a field was not mapped).
const (
	ExitOK       = 0
	ExitBadInput = 2
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
