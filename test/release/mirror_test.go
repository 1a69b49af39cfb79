// Package release_test checks the provider release `make release-snapshot` builds as a user
// of the Terraform or OpenTofu registry meets it: the archives, checksums and registry manifest
// are named and shaped as the registries want, and OpenTofu installs the provider from a
// filesystem mirror of them (no dev_overrides) and applies a tenon_nodepool with it against a
// real API server. `make test` and `make test-release` set TENON_RELEASE_DIR.
package release_test

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// suite is etcd and kube-apiserver, started by the first test that needs them.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

const project = "terraform-provider-tenon"

// platforms are the os_arch pairs every release ships.
var platforms = []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"}

// snapshot is a release folder, the version goreleaser gave it and the platforms it holds.
type snapshot struct {
	dir, version string
	platforms    []string
}

// requireSnapshot returns the release of TENON_RELEASE_DIR, skipping loudly without it.
func requireSnapshot(t *testing.T) snapshot {
	t.Helper()
	dir := os.Getenv("TENON_RELEASE_DIR")
	if dir == "" {
		t.Skip("*** SKIPPED: TENON_RELEASE_DIR is not set; `make test` and `make test-release` build the release snapshot and set it ***")
	}
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatalf("%v: run `make release-snapshot`", err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &meta); err != nil || meta.Version == "" {
		t.Fatalf("%s/metadata.json names no version (%v)", dir, err)
	}
	s := snapshot{dir: dir, version: meta.Version, platforms: platforms}
	// `make test` builds the snapshot for fewer platforms (RELEASE_TARGETS), and says which.
	if targets := strings.Fields(os.Getenv("TENON_RELEASE_TARGETS")); len(targets) > 0 {
		for _, p := range targets {
			if !slices.Contains(platforms, p) {
				t.Fatalf("TENON_RELEASE_TARGETS names %s, which no release ships; want some of %v", p, platforms)
			}
		}
		s.platforms = targets
		t.Logf("the snapshot holds %v only (TENON_RELEASE_TARGETS); `make release-snapshot` builds all of %v", targets, platforms)
	}
	return s
}

func (s snapshot) path(name string) string { return filepath.Join(s.dir, name) }

func (s snapshot) zip(platform string) string {
	return fmt.Sprintf("%s_%s_%s.zip", project, s.version, platform)
}

// TestReleaseIsShapedForTheRegistries: one zip per platform holding the provider binary named
// as the registries want, SHA256SUMS covering every zip and the manifest, protocol 6.0.
func TestReleaseIsShapedForTheRegistries(t *testing.T) {
	s := requireSnapshot(t)
	if !semver.IsValid("v"+s.version) || strings.Contains(s.version, "none") {
		t.Errorf("the snapshot's version is %q; want a semantic version naming its commit, such as 0.1.1-snapshot.gabc1234", s.version)
	}
	sums := readSums(t, s.path(fmt.Sprintf("%s_%s_SHA256SUMS", project, s.version)))
	manifest := fmt.Sprintf("%s_%s_manifest.json", project, s.version)
	for _, p := range s.platforms {
		name := s.zip(p)
		if got, want := sums[name], fileSHA256(t, s.path(name)); got != want {
			t.Errorf("SHA256SUMS says %q for %s; the file's is %s", got, name, want)
		}
		binary := project + "_v" + s.version
		if strings.HasPrefix(p, "windows") {
			binary += ".exe"
		}
		if files := zipFiles(t, s.path(name)); !slices.Contains(files, binary) {
			t.Errorf("%s holds %v; want %s", name, files, binary)
		}
	}
	if got, want := sums[manifest], fileSHA256(t, filepath.Join("..", "..", "terraform-registry-manifest.json")); got != want {
		t.Errorf("SHA256SUMS says %q for %s; terraform-registry-manifest.json's is %s", got, manifest, want)
	}
	var m struct {
		Version  int
		Metadata struct {
			ProtocolVersions []string `json:"protocol_versions"`
		}
	}
	data, err := os.ReadFile(s.path(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Version != 1 || !slices.Equal(m.Metadata.ProtocolVersions, []string{"6.0"}) {
		t.Errorf("%s = %s (%v); want version 1, protocol_versions [6.0]", manifest, data, err)
	}
	if len(sums) != len(s.platforms)+1 {
		t.Errorf("SHA256SUMS lists %d files, want the %d zips and the manifest", len(sums), len(s.platforms))
	}
}

func readSums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("%s: line %q is not `sha256  name`", path, sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func zipFiles(t *testing.T, path string) []string {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
	}
	return names
}
