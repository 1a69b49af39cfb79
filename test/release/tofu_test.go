package release_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

// mirrorHost is the registry host OpenTofu resolves tenonhq/tenon to.
const mirrorHost = "registry.opentofu.org"

// config is the user's configuration: the released provider pinned to the snapshot's version.
const config = `terraform {
  required_providers {
    tenon = { source = "tenonhq/tenon", version = "%s" }
  }
}

provider "tenon" {
  kubernetes { config_path = %q }
}

resource "tenon_nodepool" "mirror" {
  name = "from-the-mirror"
  template = {
    requirements = [{ key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] }]
    node_class   = "default"
  }
  limits = { cpu = "64" }
}
`

// TestTofuInstallsTheReleaseFromAFilesystemMirror lays the snapshot out as a packed provider
// mirror (HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip), points OpenTofu at
// it with a CLI configuration that allows no other source (no dev_overrides, no registry), and
// runs init, apply and destroy of a tenon_nodepool against the control plane.
func TestTofuInstallsTheReleaseFromAFilesystemMirror(t *testing.T) {
	s := requireSnapshot(t)
	cp := suite.Require(t)
	tofu := testenv.RequireTofu(t, testenv.CLITest)
	c, _, err := kube.NewClient(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := kube.InstallCRDs(ctx, c); err != nil {
		t.Fatalf("installing the CRDs: %v", err)
	}

	root := t.TempDir()
	mirror := filepath.Join(root, "mirror")
	pkgDir := filepath.Join(mirror, mirrorHost, "tenonhq", "tenon")
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	zip := s.zip("linux_amd64")
	if err := os.Symlink(mustAbs(t, s.path(zip)), filepath.Join(pkgDir, zip)); err != nil {
		t.Fatal(err)
	}
	cliConfig := filepath.Join(root, "tofurc")
	writeFile(t, cliConfig, fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"%s/tenonhq/tenon\"]\n  }\n}\n", mirror, mirrorHost))
	work := filepath.Join(root, "work")
	writeFile(t, filepath.Join(work, "main.tf"), fmt.Sprintf(config, s.version, cp.Kubeconfig))

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(tofu, args...)
		cmd.Dir = work
		cmd.Env = append(cleanEnv(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "TF_DATA_DIR="+filepath.Join(work, ".terraform"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("tofu %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	out := run("init", "-input=false", "-no-color")
	if want := "Installing tenonhq/tenon v" + s.version; !strings.Contains(out, want) {
		t.Errorf("tofu init did not say %q:\n%s", want, out)
	}
	lock, err := os.ReadFile(filepath.Join(work, ".terraform.lock.hcl"))
	if err != nil || !strings.Contains(string(lock), `version     = "`+s.version+`"`) {
		t.Errorf("the lock file does not pin %s (%v):\n%s", s.version, err, lock)
	}
	if v := run("version", "-no-color"); !strings.Contains(v, "provider "+mirrorHost+"/tenonhq/tenon v"+s.version) {
		t.Errorf("tofu version does not list the mirrored provider:\n%s", v)
	}
	run("apply", "-input=false", "-auto-approve", "-no-color")
	pool := nodePool(t, c, "from-the-mirror")
	if pool == nil {
		t.Fatal("tofu apply reported success but the NodePool from-the-mirror does not exist")
	}
	if m := pool.GetManagedFields(); len(m) == 0 || m[0].Manager != delivery.FieldManager {
		t.Errorf("the NodePool's managed fields are %v, want the provider's field manager %s", m, delivery.FieldManager)
	}
	run("destroy", "-input=false", "-auto-approve", "-no-color")
	if nodePool(t, c, "from-the-mirror") != nil {
		t.Error("tofu destroy left the NodePool")
	}
}

// cleanEnv is the environment without the variables that would let OpenTofu find the provider
// some other way than the mirror (a developer's CLI configuration, reattached providers).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+os.TempDir())
}

func nodePool(t *testing.T, c client.Client, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "tenon.dev", Version: "v1", Kind: "NodePool"})
	err := c.Get(t.Context(), client.ObjectKey{Name: name}, u)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
