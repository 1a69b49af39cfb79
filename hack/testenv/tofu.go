// Package testenv prepares the OpenTofu side of the tests that run the CLI: RequireTofu finds
// the OpenTofu `make testbin` builds (beside the control plane's binaries, hack/controlplane's
// BinDir) and points terraform-plugin-testing at it; InstallProvider builds the provider from
// this tree and installs it for the CLI through dev_overrides, as a developer would. It is a test
// helper; nothing that ships imports it.
package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// Kind is the kind of test that runs OpenTofu; it decides what a missing OpenTofu does.
type Kind int

const (
	// CLITest runs the OpenTofu CLI, or terraform-plugin-testing's UnitTest, without a cluster.
	// It runs wherever `make testbin` ran: it skips, saying so, when TENON_TESTBIN is unset and
	// bin/ has no tofu, and fails when TENON_TESTBIN names a folder without one.
	CLITest Kind = iota
	// AcceptanceTest drives the provider against a control plane, so its package already needs
	// the tools `make testbin` builds: a missing tofu fails it. terraform-plugin-testing skips it
	// without TF_ACC, so RequireTofu says so in the test's log.
	AcceptanceTest
)

// RequireTofu returns the OpenTofu CLI the tests run (TF_ACC_TERRAFORM_PATH if set, else tofu in
// controlplane.BinDir) and points terraform-plugin-testing at it: TF_ACC_TERRAFORM_PATH, and
// TF_ACC_PROVIDER_HOST for OpenTofu unless set. It gives the test a CLI configuration of its own,
// so the user's (dev_overrides, a missing file named by TF_CLI_CONFIG_FILE) cannot change what it
// runs. It skips under -short; kind says what a missing OpenTofu does.
func RequireTofu(t testing.TB, kind Kind) string {
	t.Helper()
	if testing.Short() {
		t.Skip("*** SKIPPED: -short was given and this test runs the OpenTofu CLI (bin/tofu) ***")
	}
	tofu := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tofu == "" {
		tofu = findTofu(t, kind)
		t.Setenv("TF_ACC_TERRAFORM_PATH", tofu)
	}
	if os.Getenv("TF_ACC_PROVIDER_HOST") == "" {
		t.Setenv("TF_ACC_PROVIDER_HOST", "registry.opentofu.org")
	}
	cliConfig := filepath.Join(t.TempDir(), "tofurc")
	if err := os.WriteFile(cliConfig, []byte("# empty: providers are reattached by the test\n"), 0o600); err != nil {
		t.Fatalf("writing the CLI configuration: %v", err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", cliConfig)
	if kind == AcceptanceTest && os.Getenv("TF_ACC") == "" {
		t.Log("*** TF_ACC is not set: terraform-plugin-testing SKIPS this acceptance test; run it with TF_ACC=1 (make testacc) ***")
	}
	return tofu
}

// findTofu returns the absolute path of tofu in controlplane.BinDir, or ends the test as kind
// says when it is missing.
func findTofu(t testing.TB, kind Kind) string {
	t.Helper()
	dir := controlplane.BinDir()
	tofu, err := filepath.Abs(filepath.Join(dir, "tofu"))
	if err != nil {
		t.Fatalf("locating OpenTofu in %s: %v", dir, err)
	}
	_, err = os.Stat(tofu)
	switch {
	case err == nil:
		return tofu
	case kind == CLITest && os.Getenv("TENON_TESTBIN") == "":
		t.Skipf("*** SKIPPED: no OpenTofu at %s; run `make testbin` (or set TENON_TESTBIN) to run this test ***", tofu)
	case kind == CLITest:
		t.Fatalf("TENON_TESTBIN=%s has no tofu (%v): run `make testbin`", dir, err)
	default:
		t.Fatalf("OpenTofu is missing (%v): run `make testbin`", err)
	}
	return ""
}
