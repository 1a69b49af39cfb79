package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The docs promise what the binary does: every `tenon COMMAND ...` line in the README, docs/,
// examples/ and charts/ parses against that command's own flags (read from its --help, so the
// test needs no hook into the commands), every bare flag named under a heading about a command
// exists on it, and every flag a tenon_agent resource passes in args exists on `tenon agent`.

// docFiles are the files whose command lines are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CHANGELOG.md"}
	for _, root := range []string{"docs", "examples", "charts"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch filepath.Ext(path) {
			case ".md", ".tf", ".txt", ".tftpl":
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// flagSpec is one flag of a command as its usage prints it.
type flagSpec struct {
	name, typ string // typ is "" for a boolean flag
}

// commandFlags reads each command's flags from `tenon COMMAND --help`, which must exit 0.
func commandFlags(t *testing.T) map[string]map[string]flagSpec {
	t.Helper()
	line := regexp.MustCompile(`^  -([A-Za-z0-9][-A-Za-z0-9_.]*)(?:[ \t](\S+))?`)
	out := map[string]map[string]flagSpec{}
	for _, c := range commands() {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{c.name, "--help"}, &stdout, &stderr); code != 0 {
			t.Fatalf("tenon %s --help exited %d: %s", c.name, code, stderr.String())
		}
		// Every command takes -h and -help (the flag package's own).
		flags := map[string]flagSpec{"h": {name: "h"}, "help": {name: "help"}}
		for _, l := range strings.Split(stdout.String(), "\n") {
			if m := line.FindStringSubmatch(l); m != nil {
				typ := m[2]
				if strings.HasPrefix(typ, "\t") || typ == "" {
					typ = ""
				}
				flags[m[1]] = flagSpec{name: m[1], typ: typ}
			}
		}
		out[c.name] = flags
	}
	return out
}

// positionalCommands take arguments besides flags.
var positionalCommands = map[string]bool{"convert": true, "help": true, "explain": true}

// placeholder reports whether a value in the docs stands for one the reader fills in.
func placeholder(v string) bool {
	return strings.ContainsAny(v, "<>$.{}") && !regexp.MustCompile(`^[0-9.]+[a-zµ]+$`).MatchString(v) ||
		v == strings.ToUpper(v) && strings.ToLower(v) != v || strings.Contains(v, "|")
}

// checkValue checks v against the flag's type, unless v is a placeholder.
func checkValue(f flagSpec, v string) error {
	if placeholder(v) {
		return nil
	}
	var err error
	switch f.typ {
	case "duration":
		_, err = time.ParseDuration(v)
	case "int", "N":
		_, err = strconv.Atoi(v)
	case "":
		_, err = strconv.ParseBool(v)
	}
	if err != nil {
		return fmt.Errorf("-%s %q: %w", f.name, v, err)
	}
	return nil
}

// parseLine checks one command line's arguments against the command's flags.
func parseLine(command string, flags map[string]flagSpec, args []string) error {
	positional := 0
	for i := 0; i < len(args); i++ {
		a := strings.Trim(args[i], "[]")
		switch {
		case a == "" || a == "..." || a == "|":
			continue
		case a == "--":
			return nil
		case !strings.HasPrefix(a, "-") || a == "-":
			if !positionalCommands[command] && !placeholder(a) {
				return fmt.Errorf("unexpected argument %q: tenon %s takes only flags", a, command)
			}
			if command == "explain" && positional == 0 && a != "pod" && a != "node" {
				return fmt.Errorf("tenon explain %q: explain pod NAMESPACE/NAME or node NAME", a)
			}
			positional++
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f, ok := flags[name]
		if !ok {
			return fmt.Errorf("flag -%s is not defined on tenon %s", name, command)
		}
		if !hasValue && f.typ != "" {
			if i+1 >= len(args) {
				continue // the docs name the flag: `tenon simulate -f`
			}
			if strings.HasPrefix(strings.Trim(args[i+1], "[]"), "-") {
				return fmt.Errorf("flag -%s needs a value", name)
			}
			i++
			value, hasValue = strings.Trim(args[i], "[]"), true
		}
		if hasValue {
			if err := checkValue(f, value); err != nil {
				return err
			}
		}
	}
	return nil
}

// commandLine finds `tenon COMMAND args` (also ./bin/tenon, bin/tenon) in a line of code.
var commandLine = regexp.MustCompile(`(?:^|[\s;&|(])(?:[.\w$()/-]*/)?tenon[ \t]+([a-z][a-z-]*)\b([^\x60\n]*)`)

// cutShell ends a command line at the shell syntax after it: a pipe, a redirection, a list, a
// comment.
func cutShell(rest string) string {
	for _, sep := range []string{" | ", " && ", " || ", ";", " > ", " >> ", " 2>", " < ", " # ", ")", " &"} {
		if i := strings.Index(rest, sep); i >= 0 {
			rest = rest[:i]
		}
	}
	return rest
}

// codeUnit is a piece of code in a doc: a line of a .tf file or a code block, or an inline
// span. In a unit that starts with the command (`tenon simulate -f x`, a shell line), an unknown
// command is an error; elsewhere (prose in comments: "the tenon binary") only known commands
// are checked.
type codeUnit struct {
	text   string
	line   int
	strict bool
}

// startsWithCommand matches a unit that begins with the tenon command.
var startsWithCommand = regexp.MustCompile(`^\s*(?:\$\s+)?(?:[.\w$()/-]*/)?tenon\s`)

// skippedFences hold output or data, not commands.
var skippedFences = map[string]bool{"text": true, "json": true, "yaml": true, "console": true}

// codeOf returns the code of a file: every line of a .tf file, and the fenced blocks
// (continuation lines joined; not output or data) and inline spans of markdown.
func codeOf(path, text string) []codeUnit {
	var units []codeUnit
	if !strings.HasSuffix(path, ".md") {
		for i, l := range strings.Split(text, "\n") {
			units = append(units, codeUnit{text: l, line: i + 1})
		}
		return units
	}
	inFence, skip, joined, start := false, false, "", 0
	inline := regexp.MustCompile("`([^`\n]+)`")
	for i, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") {
			inFence, skip = !inFence, skippedFences[strings.TrimPrefix(t, "```")]
			continue
		}
		if !inFence {
			for _, m := range inline.FindAllStringSubmatch(l, -1) {
				units = append(units, codeUnit{text: m[1], line: i + 1, strict: startsWithCommand.MatchString(m[1])})
			}
			continue
		}
		if skip {
			continue
		}
		if joined == "" {
			start = i + 1
		}
		if strings.HasSuffix(l, "\\") {
			joined += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		units = append(units, codeUnit{text: joined + l, line: start, strict: startsWithCommand.MatchString(joined + l)})
		joined = ""
	}
	return units
}

func TestDocsCommandLinesParse(t *testing.T) {
	flags := commandFlags(t)
	checked := 0
	for _, path := range docFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range codeOf(path, string(data)) {
			for i, m := range commandLine.FindAllStringSubmatch(u.text, -1) {
				command, rest := m[1], cutShell(m[2])
				known, ok := flags[command]
				if !ok {
					if u.strict && i == 0 {
						t.Errorf("%s:%d: `tenon %s`: there is no such command", path, u.line, command)
					}
					continue
				}
				if err := parseLine(command, known, strings.Fields(rest)); err != nil {
					t.Errorf("%s:%d: `tenon %s%s`: %v", path, u.line, command, rest, err)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d command lines; the docs hold more, so the search is broken", checked)
	}
}

// headingCommand finds the command a markdown heading is about: "## The agent: `tenon agent`".
var headingCommand = regexp.MustCompile(`tenon ([a-z]+)`)

// fileCommand is the command of the pages that are about one without saying so in a heading.
var fileCommand = map[string]string{
	filepath.Join("docs", "resources", "agent.md"): "agent",
}

// TestDocsBareFlagsExist: a flag named alone (`--batch-idle`) under a heading about a command,
// or on a page about one, exists on that command.
func TestDocsBareFlagsExist(t *testing.T) {
	flags := commandFlags(t)
	bare := regexp.MustCompile("`(--?[a-z][-a-z0-9]*)(?:[= ][^`]*)?`")
	for _, path := range docFiles(t) {
		if !strings.HasSuffix(path, ".md") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		command, inFence := fileCommand[path], false
		for n, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			if strings.HasPrefix(l, "#") {
				command = fileCommand[path]
				if m := headingCommand.FindStringSubmatch(l); m != nil {
					command = m[1]
				}
				continue
			}
			if command == "" {
				continue
			}
			for _, m := range bare.FindAllStringSubmatch(l, -1) {
				if _, ok := flags[command][strings.TrimLeft(m[1], "-")]; !ok {
					t.Errorf("%s:%d: %s is named under `tenon %s`, which has no such flag", path, n+1, m[1], command)
				}
			}
		}
	}
}

// TestAgentArgsInExamplesExist: the args of every tenon_agent resource in the docs and examples
// are flags of `tenon agent` (a flag it rejects crash-loops the agent).
func TestAgentArgsInExamplesExist(t *testing.T) {
	agentFlags := commandFlags(t)["agent"]
	block := regexp.MustCompile(`resource\s+"tenon_agent"\s+"[^"]*"\s*\{`)
	argsList := regexp.MustCompile(`(?m)^\s*args\s*=\s*\[([^\]]*)\]`)
	quoted := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	found := 0
	for _, path := range docFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, loc := range block.FindAllStringIndex(text, -1) {
			body := braceBlock(text[loc[1]:])
			for _, m := range argsList.FindAllStringSubmatch(body, -1) {
				var args []string
				for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
					args = append(args, q[1])
				}
				found++
				if err := parseLine("agent", agentFlags, args); err != nil {
					t.Errorf("%s: tenon_agent args %v: %v", path, args, err)
				}
			}
		}
	}
	if found == 0 {
		t.Error("found no tenon_agent args to check; examples/eks/tenon passes some, so the search is broken")
	}
}

// braceBlock returns s up to the brace that closes the block s is the inside of.
func braceBlock(s string) string {
	depth := 1
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

func TestParseLineFindsWhatTheDocsGotWrong(t *testing.T) {
	flags := map[string]flagSpec{"cloud": {name: "cloud", typ: "string"}, "batch-idle": {name: "batch-idle", typ: "duration"},
		"leader-elect": {name: "leader-elect"}}
	for args, wantErr := range map[string]bool{
		"--cloud=kwok --batch-idle 1s --leader-elect": false,
		"--cloud=... --batch-idle=<d>":                false,
		"--disruption-interval=30s":                   true,
		"--batch-idle=soon":                           true,
		"--cloud --leader-elect":                      true,
		"extra":                                       true,
		"[--cloud aws|kwok]":                          false,
		"--leader-elect=maybe":                        true,
	} {
		if err := parseLine("agent", flags, strings.Fields(args)); (err != nil) != wantErr {
			t.Errorf("parseLine(%q) = %v, want an error: %v", args, err, wantErr)
		}
	}
	if !slices.Contains(docFiles(t), filepath.Join("docs", "resources", "agent.md")) {
		t.Error("docs/resources/agent.md is not among the checked files")
	}
}

// TestScenarioGuideExampleRuns: the scenario the format's page shows simulates and passes
// --check, so the page cannot drift from what `tenon simulate` reads.
func TestScenarioGuideExampleRuns(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "guides", "scenario-files.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "## A small scenario\n\n```yaml\n")
	scenario, _, ok2 := strings.Cut(after, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/guides/scenario-files.md has no yaml block under \"## A small scenario\"")
	}
	file := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"simulate", "-f", file, "--check", "-o", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("tenon simulate -f small.yaml --check exited %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"newNodes": 3`) {
		t.Errorf("the page's report shows 3 new nodes; tenon simulate printed:\n%s", stdout.String())
	}
}

// TestReadOnlyRoleInDocsIsPrinted: the ClusterRole the "Ask a running cluster" guide shows is
// the one `tenon manifests --read-only-role` prints, so a change to what the live commands
// read changes the docs in the same commit.
func TestReadOnlyRoleInDocsIsPrinted(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"manifests", "--read-only-role"}, &stdout, &stderr); code != 0 {
		t.Fatalf("tenon manifests --read-only-role: exit %d: %s", code, stderr.String())
	}
	var printed []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if !strings.HasPrefix(l, "#") {
			printed = append(printed, l)
		}
	}
	role := strings.Join(printed, "\n")
	path := filepath.Join("docs", "guides", "scenario-files.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "```yaml\n"+role+"```") {
		t.Errorf("%s does not show the ClusterRole tenon manifests --read-only-role prints:\n%s", path, role)
	}
}
