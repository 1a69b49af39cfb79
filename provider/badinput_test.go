package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/hack/badinput"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

// perCategory is how many cases of each category TestSimulationBadInput
// plans among those to refuse, and among the others (every one takes a
// tofu plan, one to five seconds; all 300-odd took 11 minutes on the shared
// machine). TestBadInputCorpus runs them all through the CLI.
const perCategory = 4

// TestSimulationBadInput plans tenon_simulation with the scenario files of
// the bad-input corpus (hack/badinput) as its manifests, one step per file:
// the provider must fail the plan naming the object and field where the
// case names them (the file is manifests[0]), or simulate every pod, and
// agree with engine/simulate, which `tenon simulate` runs, on which it is.
// Files tofu's file() cannot read as text (not UTF-8) are left to the CLI's
// test (TestBadInputCorpus in the repository's root).
func TestSimulationBadInput(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	dir := t.TempDir()
	byCategory := map[string][]tfresource.TestStep{}
	taken := map[string]int{}
	for _, c := range badinput.Cases() {
		// Each step runs tofu: the first perCategory cases of each
		// category that must be refused, and as many of the others.
		key := fmt.Sprint(c.Category, c.Outcome == badinput.Refused)
		if c.Tool != badinput.Scenario || !utf8Text(c.Data) || taken[key] >= perCategory {
			continue
		}
		taken[key]++
		path := filepath.Join(dir, filepath.FromSlash(c.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, c.Data, 0o600); err != nil {
			t.Fatal(err)
		}
		byCategory[c.Category] = append(byCategory[c.Category], badInputStep(t, c, path))
	}
	for _, category := range badinput.Categories() {
		steps := byCategory[category]
		if len(steps) == 0 {
			continue
		}
		t.Run(category, func(t *testing.T) {
			tfresource.UnitTest(t, tfresource.TestCase{ProtoV6ProviderFactories: factories(newMemoryTarget()), Steps: steps})
		})
	}
}

// badInputStep is the step that plans c: it expects what engine/simulate
// says of the same file, and checks that against the case.
func badInputStep(t *testing.T, c badinput.Case, path string) tfresource.TestStep {
	t.Helper()
	// workloads is required: one of no pods.
	config := fmt.Sprintf("data \"tenon_simulation\" \"corpus\" {\n  workloads = [{ name = \"corpus-none\", replicas = 0, requests = { cpu = \"100m\" } }]\n  manifests = [file(%q)]\n}\n", path)
	s, err := simulate.Parse(simulate.File{Name: "manifests[0]", Data: c.Data})
	if err == nil {
		report, simErr := s.Simulate(t.Context())
		if simErr != nil {
			t.Errorf("%s: engine/simulate failed: %v", c.Name, simErr)
		}
		if c.Outcome == badinput.Refused {
			t.Errorf("%s: engine/simulate accepted bad input", c.Name)
		}
		pods := strconv.Itoa(report.Summary.Pods)
		if c.Outcome == badinput.Accepted && report.Summary.Pods != c.Objects {
			t.Errorf("%s: engine/simulate simulated %d pods of %d", c.Name, report.Summary.Pods, c.Objects)
		}
		return tfresource.TestStep{Config: config, Check: tfresource.TestCheckResourceAttr("data.tenon_simulation.corpus", "pods", pods)}
	}
	if c.Outcome == badinput.Accepted {
		t.Errorf("%s: engine/simulate refused valid input: %v", c.Name, err)
	}
	// Diagnostics are wrapped: any run of spaces may be a line break.
	want := "Invalid Simulation Input"
	switch {
	case strings.HasPrefix(c.Want, ":"): // the field, of an object whose name is at fault
		want = c.Want
	case c.Want != "":
		want = "manifests[0]: " + c.Want
	}
	re := regexp.MustCompile(strings.Join(strings.Fields(regexp.QuoteMeta(want)), `\s+`))
	return tfresource.TestStep{Config: config, PlanOnly: true, ExpectError: re}
}

// utf8Text reports whether data is text tofu's file() reads: valid UTF-8
// without NUL.
func utf8Text(data []byte) bool {
	return strings.ToValidUTF8(string(data), "\uFFFD") == string(data) && !strings.ContainsRune(string(data), 0)
}
