package release_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yml the registries depend on.
type goreleaserConfig struct {
	Builds []struct {
		Goos   []string `yaml:"goos"`
		Goarch []string `yaml:"goarch"`
		Binary string   `yaml:"binary"`
		Env    []string `yaml:"env"`
	} `yaml:"builds"`
	Archives []struct {
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Signs []struct {
		Artifacts string `yaml:"artifacts"`
	} `yaml:"signs"`
}

// TestGoreleaserConfigShipsEveryPlatform: a release ships the six platforms the registries list,
// as zips named as they want, with checksums and their signature, whatever subset `make test`'s
// snapshot builds (RELEASE_TARGETS rewrites goos and goarch into targets).
func TestGoreleaserConfigShipsEveryPlatform(t *testing.T) {
	data, err := os.ReadFile("../../.goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf(".goreleaser.yml: %v", err)
	}
	if len(c.Builds) != 1 || len(c.Archives) != 1 || len(c.Signs) != 1 {
		t.Fatalf(".goreleaser.yml has %d builds, %d archives, %d signs; want one of each", len(c.Builds), len(c.Archives), len(c.Signs))
	}
	// RELEASE_TARGETS (GNUmakefile) rewrites these two lines with sed; keep them one-line lists.
	for _, line := range []string{"\n    goos: [", "\n    goarch: ["} {
		if !strings.Contains(string(data), line) {
			t.Errorf(".goreleaser.yml has no line starting %q, which `make release-snapshot RELEASE_TARGETS=...` rewrites", line[1:])
		}
	}
	b := c.Builds[0]
	var got []string
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			got = append(got, goos+"_"+goarch)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, platforms) {
		t.Errorf(".goreleaser.yml builds %v; want %v", got, platforms)
	}
	if b.Binary != "{{ .ProjectName }}_v{{ .Version }}" || !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("the build's binary is %q, env %v; want terraform-provider-tenon_vVERSION, static", b.Binary, b.Env)
	}
	a := c.Archives[0]
	if !slices.Equal(a.Formats, []string{"zip"}) || a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" {
		t.Errorf("archives %v named %q; want zip, PROJECT_VERSION_OS_ARCH", a.Formats, a.NameTemplate)
	}
	if c.Checksum.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_SHA256SUMS" || c.Checksum.Algorithm != "sha256" || c.Signs[0].Artifacts != "checksum" {
		t.Errorf("checksum %+v, signs %+v; want PROJECT_VERSION_SHA256SUMS (sha256), signed", c.Checksum, c.Signs)
	}
}
