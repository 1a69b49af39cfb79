// Package eks_test checks the EKS example (examples/eks): its Terraform files
// are formatted (`tofu fmt -check`), its Tenon child module (tenon/) is valid
// against a freshly built provider installed through dev_overrides (`tofu
// validate`; the root needs the AWS modules, which cannot be initialised
// offline), and its pieces agree with each other and with the AWS provider: the EventBridge rules cover every event kind the
// interruption source understands, and subnets and the node security group
// carry the discovery tag the NodeClass selects. (The agent's policy file is
// kept identical to docs/guides/aws-iam.md by engine/cloud/aws's tests.)
package eks_test

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

func TestFormatted(t *testing.T) {
	tofu := testenv.RequireTofu(t, testenv.CLITest) // which also sets an empty CLI configuration
	cmd := exec.CommandContext(t.Context(), tofu, "fmt", "-check", "-diff", "-recursive", ".")
	cmd.Env = append(os.Environ(), "TF_IN_AUTOMATION=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tofu fmt -check: %v\n%s", err, out)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInterruptionRulesCoverEveryEventKind(t *testing.T) {
	tf := read(t, "interruption.tf")
	for _, detail := range []string{
		"EC2 Spot Instance Interruption Warning", "EC2 Instance Rebalance Recommendation",
		"EC2 Instance State-change Notification", "AWS Health Event",
	} {
		if !strings.Contains(tf, `"`+detail+`"`) {
			t.Errorf("interruption.tf has no rule for %q", detail)
		}
	}
	if !regexp.MustCompile(`interruption_queue\s+=\s+aws_sqs_queue\.interruption\.name`).MatchString(read(t, "tenon.tf")) {
		t.Error("tenon.tf does not pass the interruption queue to the tenon module")
	}
	if !regexp.MustCompile(`interruption_queue\s+=\s+var\.interruption_queue`).MatchString(read(t, filepath.Join("tenon", "main.tf"))) {
		t.Error("tenon_agent does not read the interruption queue")
	}
}

func TestDiscoveryTagsMatchTheNodeClass(t *testing.T) {
	tag := `"tenon\.dev/discovery"\s+=\s+var\.cluster_name`
	for file, what := range map[string]string{"network.tf": "private subnets", "eks.tf": "node security group"} {
		if !regexp.MustCompile(tag).MatchString(read(t, file)) {
			t.Errorf("%s: the %s lack the tag tenon.dev/discovery = var.cluster_name", file, what)
		}
	}
	tenon := read(t, filepath.Join("tenon", "main.tf"))
	for _, sel := range []string{"subnet_selector_terms", "security_group_selector_terms"} {
		if !regexp.MustCompile(sel + `\s+=\s+\[\{ tags = \{ ` + tag + ` \} \}\]`).MatchString(tenon) {
			t.Errorf("tenon/main.tf: %s does not select tenon.dev/discovery = var.cluster_name", sel)
		}
	}
	// The module's cluster_name is the cluster's, and the agent gets the
	// cluster's service CIDR for the nodes' bootstrap.
	root := read(t, "tenon.tf")
	for _, wire := range []string{`cluster_name\s+=\s+module\.eks\.cluster_name`, `cluster_service_cidr\s+=\s+module\.eks\.cluster_service_cidr`} {
		if !regexp.MustCompile(wire).MatchString(root) {
			t.Errorf("tenon.tf does not pass %s to the tenon module", wire)
		}
	}
	if !strings.Contains(tenon, `"--cluster-cidr=${var.cluster_service_cidr}"`) {
		t.Error("tenon_agent does not pass --cluster-cidr")
	}
}

// TestTenonModuleValidates runs `tofu validate` on the Tenon child module
// (tenon/) with a freshly built provider installed the way a developer
// would: a CLI configuration holding only a dev_overrides block, no registry
// and no init. A copy with an argument the provider's schema lacks must be
// invalid, which shows the provider's schema was really checked.
func TestTenonModuleValidates(t *testing.T) {
	tofu := testenv.RequireTofu(t, testenv.CLITest)
	env := testenv.InstallProvider(t)
	validate := func(t *testing.T, extra string) (bool, string) {
		t.Helper()
		work := t.TempDir()
		files, err := filepath.Glob(filepath.Join("tenon", "*.tf"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no .tf files in tenon/ (%v)", err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(work, filepath.Base(f)), []byte(read(t, f)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if extra != "" {
			if err := os.WriteFile(filepath.Join(work, "extra.tf"), []byte(extra), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.CommandContext(t.Context(), tofu, "validate", "-json", "-no-color")
		cmd.Dir = work
		cmd.Env = env
		out, _ := cmd.Output() // invalid configurations exit 1; the JSON says why
		var result struct {
			Valid bool `json:"valid"`
		}
		if err := json.Unmarshal(out, &result); err != nil {
			t.Fatalf("tofu validate printed no JSON: %v\n%s", err, out)
		}
		return result.Valid, string(out)
	}
	if ok, out := validate(t, ""); !ok {
		t.Fatalf("examples/eks/tenon is not valid:\n%s", out)
	}
	bogus := "resource \"tenon_nodepool\" \"bogus\" {\n  name            = \"bogus\"\n  no_such_setting = 1\n}\n"
	if ok, out := validate(t, bogus); ok || !strings.Contains(out, "no_such_setting") {
		t.Errorf("a configuration with an argument the provider lacks validated (valid=%v):\n%s", ok, out)
	}
}
