// Package version is the release version of the tenon binary, stamped at build time from the
// git tags: the GNUmakefile, .goreleaser.yml and hack/image pass
//
//	-ldflags "-X github.com/tenonhq/terraform-provider-tenon/internal/version.version=v1.2.3
//	          -X github.com/tenonhq/terraform-provider-tenon/internal/version.commit=abc1234"
//
// The version names the agent image the binary installs by default (ImageTag), the provider's
// version and its user agent, and the image's labels, so one build always agrees with itself.
package version

import (
	"regexp"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// Set by the linker; empty in a plain `go build` or `go test`.
var (
	version string
	commit  string
)

// Dev is the version of a build that was not stamped and was not installed from a tagged module
// (`go build`, `go test`).
const Dev = "v0.0.0-dev"

// Version returns the binary's semantic version with its leading v: the stamped one, else the
// module version `go install github.com/tenonhq/terraform-provider-tenon@v1.2.3` records, else
// Dev.
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && releasedModule(info.Main.Version) {
		return info.Main.Version
	}
	return Dev
}

// releasedModule reports whether v is a module version from a tag, not the "(devel)" of a
// local build or a pseudo-version the go command derives from a commit.
func releasedModule(v string) bool {
	return semver.IsValid(v) && !module.IsPseudoVersion(v) && !strings.Contains(v, "+dirty")
}

// Commit returns the git commit the binary was built from, or "none" when unknown.
func Commit() string {
	if commit != "" {
		return commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "none"
}

// betweenTags matches what `git describe --tags` appends to the last tag for a later commit
// (-3-gabc1234) or for uncommitted changes (-dirty), and goreleaser's snapshot suffix.
var betweenTags = regexp.MustCompile(`-[0-9]+-g[0-9a-f]{7,}|-dirty|snapshot`)

// IsRelease reports whether the binary is a tagged release, such as v1.2.3 or v1.3.0-rc.1,
// whose agent image the release published. A development build (Dev, a commit after a tag, a
// dirty tree, a snapshot) names an image tag nothing published unless someone pushed it.
func IsRelease() bool {
	v := Version()
	return v != Dev && semver.IsValid(v) && !betweenTags.MatchString(v)
}

// ImageTag returns the agent image's tag for this binary: Tag(Version()).
func ImageTag() string {
	return Tag(Version())
}

// Tag returns the image tag of version v: v with the + of build metadata, which image tags do
// not allow, written as -.
func Tag(v string) string {
	return strings.ReplaceAll(v, "+", "-")
}
