package provider

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

// TestExamples: every example tfplugindocs puts into docs/ is formatted (tofu fmt -check) and
// valid (tofu validate) against a freshly built provider, installed the way a developer
// would, with a CLI configuration holding only a dev_overrides block (no registry, no init).
// The data-source examples need no cluster, so they are planned too, which runs them. Every
// resource and data source has an example.
func TestExamples(t *testing.T) {
	tofu := testenv.RequireTofu(t, testenv.CLITest)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := testenv.InstallProvider(t)

	examples := exampleDirs(t, root)
	for name, ex := range examples {
		t.Run(name, func(t *testing.T) {
			run := func(dir string, args ...string) string {
				t.Helper()
				cmd := exec.Command(tofu, args...)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("tofu %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
				}
				return string(out)
			}
			run(filepath.Join(root, ex.dir), "fmt", "-check", "-diff")
			work := filepath.Join(dir, "work", name)
			copyTF(t, filepath.Join(root, ex.dir), work)
			versions := "terraform {\n  required_providers {\n    tenon = { source = \"tenonhq/tenon\" }\n  }\n}\n"
			if err := os.WriteFile(filepath.Join(work, "versions_test.tf"), []byte(versions), 0o600); err != nil {
				t.Fatal(err)
			}
			var result struct {
				Valid bool `json:"valid"`
			}
			out := run(work, "validate", "-json")
			if err := json.Unmarshal([]byte(out), &result); err != nil || !result.Valid {
				t.Fatalf("tofu validate: valid=%v (%v)\n%s", result.Valid, err, out)
			}
			if ex.plan {
				plan := run(work, "plan", "-input=false", "-no-color", "-lock=false")
				for _, want := range planExpectations(t, filepath.Join(root, ex.dir)) {
					if !strings.Contains(plan, want) {
						t.Errorf("the plan does not show %q, which the example's comment promises; the plan:\n%s", want, plan)
					}
				}
				t.Logf("plan:\n%s", plan)
			}
		})
	}
}

// planExpectations are the lines of an example's "# The plan shows:" comment block (each line
// after it that starts with "#   "), which its plan must print: the example's promise to readers
// is tested, not just its syntax.
func planExpectations(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "data-source.tf"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "# The plan shows:"):
			in = true
		case in && strings.HasPrefix(line, "#   "):
			out = append(out, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		default:
			in = false
		}
	}
	return out
}

type example struct {
	dir  string
	plan bool
}

// exampleDirs lists the example folders and fails for a resource or data source without one.
func exampleDirs(t *testing.T, root string) map[string]example {
	t.Helper()
	p := &tenonProvider{}
	out := map[string]example{"provider": {dir: "examples/provider"}}
	for _, f := range p.Resources(context.Background()) {
		var resp resource.MetadataResponse
		f().Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "tenon"}, &resp)
		dir := filepath.Join("examples", "resources", resp.TypeName)
		for _, file := range []string{"resource.tf", "import.sh"} {
			if _, err := os.Stat(filepath.Join(root, dir, file)); err != nil {
				t.Errorf("resource %s has no %s/%s for its docs: %v", resp.TypeName, dir, file, err)
			}
		}
		out[resp.TypeName] = example{dir: dir}
	}
	for _, f := range p.DataSources(context.Background()) {
		var resp datasource.MetadataResponse
		f().Metadata(context.Background(), datasource.MetadataRequest{ProviderTypeName: "tenon"}, &resp)
		dir := filepath.Join("examples", "data-sources", resp.TypeName)
		if _, err := os.Stat(filepath.Join(root, dir, "data-source.tf")); err != nil {
			t.Errorf("data source %s has no %s/data-source.tf for its docs: %v", resp.TypeName, dir, err)
		}
		out[resp.TypeName] = example{dir: dir, plan: true}
	}
	return out
}

func copyTF(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(from, "*.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .tf files in %s (%v)", from, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(f)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
