package simulate

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// examples are the scenarios `tenon simulate` runs without -f, in file
// name order. Each file's leading comment says what it shows.
//
//go:embed examples/*.yaml examples/consolidation/*.yaml
var examples embed.FS

// consolidationExamples are run by name with --example; the default run
// (no -f) leaves them out, so its output stays what it was.
const consolidationExamples = "examples/consolidation"

// exampleNames lists the examples --example runs, by name: each file of
// examples/consolidation without .yaml.
func exampleNames() []string {
	names, err := fs.Glob(examples, consolidationExamples+"/*.yaml")
	if err != nil {
		return nil
	}
	for i, n := range names {
		names[i] = strings.TrimSuffix(path.Base(n), ".yaml")
	}
	return names
}

// loadExample parses one named example.
func loadExample(name string) ([]*Scenario, []string, error) {
	file := consolidationExamples + "/" + name + ".yaml"
	data, err := examples.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("reading embedded example %s: %w", name, err)
	}
	s, err := Parse(File{Name: file, Data: data})
	if err != nil {
		return nil, nil, fmt.Errorf("embedded example: %w", err)
	}
	return []*Scenario{s}, []string{leadingComment(string(data))}, nil
}

// loadExamples parses each embedded example as its own scenario and
// returns, for each, the introduction its leading comment gives.
func loadExamples() ([]*Scenario, []string, error) {
	names, err := fs.Glob(examples, "examples/*.yaml")
	if err != nil {
		return nil, nil, fmt.Errorf("listing the embedded examples: %w", err)
	}
	var scenarios []*Scenario
	var intros []string
	for _, name := range names {
		data, err := examples.ReadFile(name)
		if err != nil {
			return nil, nil, fmt.Errorf("reading embedded example %s: %w", name, err)
		}
		s, err := Parse(File{Name: name, Data: data})
		if err != nil {
			return nil, nil, fmt.Errorf("embedded example: %w", err)
		}
		scenarios = append(scenarios, s)
		intros = append(intros, leadingComment(string(data)))
	}
	return scenarios, intros, nil
}

// leadingComment returns a file's first block of `#` lines, without the
// markers.
func leadingComment(data string) string {
	var lines []string
	for line := range strings.Lines(data) {
		text, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "#")
		if !ok {
			break
		}
		lines = append(lines, strings.TrimPrefix(text, " "))
	}
	return strings.Join(lines, "\n")
}
