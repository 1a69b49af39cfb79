// Package gettingstarted_test checks the getting-started example (examples/getting-started),
// the configuration docs/guides/getting-started.md walks a new user through: the guide shows
// exactly this main.tf, the file is formatted and valid for OpenTofu with a freshly built
// provider installed through dev_overrides (no registry, no init), and the mistake the guide
// makes on purpose fails at validation with the error the guide prints.
package gettingstarted_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

const guidePath = "../../docs/guides/getting-started.md"

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// fence matches a fenced code block of the guide: its language and its body.
var fence = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```")

// TestGuideShowsExample: the guide's configuration block is main.tf, byte for byte, so a reader
// who copies either gets what the other tests check.
func TestGuideShowsExample(t *testing.T) {
	guide, mainTF := read(t, guidePath), read(t, "main.tf")
	var blocks []string
	for _, m := range fence.FindAllStringSubmatch(guide, -1) {
		if m[1] == "terraform" || m[1] == "hcl" {
			blocks = append(blocks, m[2])
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("%s has %d terraform/hcl blocks, want exactly one (examples/getting-started/main.tf)", guidePath, len(blocks))
	}
	if blocks[0] != mainTF {
		t.Errorf("the guide's terraform block differs from examples/getting-started/main.tf; copy main.tf into the guide.\nguide:\n%s\nmain.tf:\n%s", blocks[0], mainTF)
	}
}

// guideMistake is the edit the guide makes to show a plan-time error, as its sed command does.
var guideMistake = strings.NewReplacer(`operator = "In", values = ["c", "m"]`, `operator = "Within", values = ["c", "m"]`)

// TestExampleValidates: main.tf passes `tofu fmt -check` and `tofu validate` with the provider
// built from this tree; with the guide's wrong operator, validate fails naming the attribute.
func TestExampleValidates(t *testing.T) {
	tofu := testenv.RequireTofu(t, testenv.CLITest)
	mainTF := read(t, "main.tf")
	if !strings.Contains(read(t, guidePath), `sed -i 's/operator = "In", values = \["c", "m"\]/operator = "Within", values = ["c", "m"]/' main.tf`) {
		t.Fatalf("%s no longer makes the mistake this test reproduces (operator In -> Within on the c/m requirement); update guideMistake", guidePath)
	}
	bad := guideMistake.Replace(mainTF)
	if bad == mainTF {
		t.Fatal("main.tf has no `operator = \"In\", values = [\"c\", \"m\"]` for the guide's mistake to change")
	}

	env := testenv.InstallProvider(t)
	tofuIn := func(dir string, args ...string) (string, error) {
		cmd := exec.Command(tofu, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	if out, err := tofuIn(".", "fmt", "-check", "-diff", "main.tf"); err != nil {
		t.Fatalf("tofu fmt -check main.tf: %v (run bin/tofu fmt examples/getting-started)\n%s", err, out)
	}

	for _, c := range []struct {
		name      string
		config    string
		wantValid bool
		wantError string
	}{
		{name: "example", config: mainTF, wantValid: true},
		{name: "guide's mistake", config: bad, wantError: `template.requirements[1].operator: Unsupported value: "Within"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(c.config), 0o600); err != nil {
				t.Fatal(err)
			}
			out, _ := tofuIn(work, "validate", "-json")
			var result struct {
				Valid       bool `json:"valid"`
				Diagnostics []struct {
					Severity string `json:"severity"`
					Summary  string `json:"summary"`
					Detail   string `json:"detail"`
				} `json:"diagnostics"`
			}
			if err := json.Unmarshal([]byte(out), &result); err != nil {
				t.Fatalf("tofu validate -json printed no JSON (%v):\n%s", err, out)
			}
			if result.Valid != c.wantValid {
				t.Fatalf("tofu validate: valid=%v, want %v\n%s", result.Valid, c.wantValid, out)
			}
			if c.wantError == "" {
				return
			}
			for _, d := range result.Diagnostics {
				if d.Severity == "error" && strings.Contains(strings.Join(strings.Fields(d.Detail), " "), c.wantError) {
					return
				}
			}
			t.Errorf("tofu validate: no error containing %q, which the guide shows\n%s", c.wantError, out)
		})
	}
}
