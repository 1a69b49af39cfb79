package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
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
