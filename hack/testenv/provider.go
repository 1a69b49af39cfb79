package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// providerPackage is the provider's main package: the module's root.
const providerPackage = "github.com/tenonhq/terraform-provider-tenon"

// InstallProvider builds the provider from this tree into a temporary folder and returns the
// environment to run the OpenTofu CLI in so that it uses that build: this process's, with
// TF_CLI_CONFIG_FILE naming a CLI configuration whose only block installs the build through
// dev_overrides (no registry, no `tofu init`), and the CLI's automation mode on and its
// version checkpoint off.
func InstallProvider(t testing.TB) []string {
	t.Helper()
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(plugins, "terraform-provider-tenon"), providerPackage)
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(dir, "tofurc")
	overrides := "provider_installation {\n  dev_overrides {\n    \"tenonhq/tenon\" = \"" + plugins + "\"\n  }\n}\n"
	if err := os.WriteFile(cliConfig, []byte(overrides), 0o600); err != nil {
		t.Fatalf("writing the CLI configuration: %v", err)
	}
	return append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
}
