// Package eks_test checks the EKS example (examples/eks): its Terraform files
// are formatted (`tofu fmt -check`), and its pieces agree with each other and
// with the AWS provider: the EventBridge rules cover every event kind the
// interruption source understands, and subnets and the node security group
// carry the discovery tag the NodeClass selects. (The agent's policy file is
// kept identical to docs/guides/aws-iam.md by engine/cloud/aws's tests.)
package eks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tofu returns the OpenTofu binary of TENON_TESTBIN; it skips without it
// under -short and fails when TENON_TESTBIN is set but tofu is missing.
func tofu(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TENON_TESTBIN")
	if dir == "" {
		if testing.Short() {
			t.Skip("SKIPPING tofu fmt -check of examples/eks: TENON_TESTBIN is not set (run make testbin, then make test)")
		}
		dir = filepath.Join("..", "..", "bin")
	}
	bin, err := filepath.Abs(filepath.Join(dir, "tofu"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("tofu is missing from %s (make testbin builds it): %v", dir, err)
	}
	return bin
}

func TestFormatted(t *testing.T) {
	cli := filepath.Join(t.TempDir(), "tofurc")
	if err := os.WriteFile(cli, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), tofu(t), "fmt", "-check", "-diff", "-recursive", ".")
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cli, "TF_IN_AUTOMATION=1")
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
	if !strings.Contains(read(t, "tenon.tf"), "interruption_queue = aws_sqs_queue.interruption.name") {
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
	tenon := read(t, "tenon.tf")
	for _, sel := range []string{"subnet_selector_terms", "security_group_selector_terms"} {
		if !regexp.MustCompile(sel + `\s+=\s+\[\{ tags = \{ ` + tag + ` \} \}\]`).MatchString(tenon) {
			t.Errorf("tenon.tf: %s does not select tenon.dev/discovery = var.cluster_name", sel)
		}
	}
}
