package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

// Source is the repository the image is built from (org.opencontainers.image.source).
const Source = "https://github.com/tenonhq/terraform-provider-tenon"

// Where the image keeps the binary, and who runs it: the distroless nonroot user, whom the
// agent's Deployment names too (engine/agent/manifests).
const (
	BinaryPath = "/usr/local/bin/tenon"
	User       = "65532:65532"
)

// Spec says what to build.
type Spec struct {
	// Version is the semantic version stamped into the binary; Tag derives the image tag.
	Version string
	// Commit is the short commit stamped into the binary; Revision the full one of the label.
	Commit, Revision string
	// Created is the image's creation time (zero: the Unix epoch, for reproducible images).
	Created time.Time
	// Platforms to build, such as linux/amd64.
	Platforms []v1.Platform
	// Module is the folder of the tenon module.
	Module string
}

// Tag is the image tag of the spec's version.
func (s Spec) Tag() string { return version.Tag(s.Version) }

// Labels are the image's OCI annotations (org.opencontainers.image.*).
func (s Spec) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":      Source,
		"org.opencontainers.image.version":     s.Version,
		"org.opencontainers.image.revision":    s.Revision,
		"org.opencontainers.image.created":     s.created().Format(time.RFC3339),
		"org.opencontainers.image.title":       "tenon",
		"org.opencontainers.image.description": "Tenon's agent: a node autoscaler for Kubernetes (entrypoint tenon; run tenon agent)",
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
}

func (s Spec) created() time.Time {
	if s.Created.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return s.Created
}

// ParsePlatform parses os/arch, such as linux/arm64.
func ParsePlatform(s string) (v1.Platform, error) {
	osName, arch, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || osName != "linux" || (arch != "amd64" && arch != "arm64") {
		return v1.Platform{}, fmt.Errorf("platform %q: use linux/amd64 or linux/arm64", s)
	}
	p := v1.Platform{OS: osName, Architecture: arch}
	if arch == "arm64" {
		p.Variant = "v8"
	}
	return p, nil
}

// Build cross-compiles the binary for every platform of spec and returns the image index,
// printing each step to progress.
func Build(ctx context.Context, spec Spec, progress io.Writer) (v1.ImageIndex, error) {
	tmp, err := os.MkdirTemp("", "tenon-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	roots, err := caBundle()
	if err != nil {
		return nil, err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var adds []mutate.IndexAddendum
	for _, p := range spec.Platforms {
		bin := filepath.Join(tmp, p.Architecture, "tenon")
		start := time.Now()
		fmt.Fprintf(progress, "building tenon %s for %s/%s (CGO_ENABLED=0, tzdata embedded)\n", spec.Version, p.OS, p.Architecture)
		if err := compile(ctx, spec, p, bin); err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "built tenon for %s/%s in %s\n", p.OS, p.Architecture, time.Since(start).Round(time.Second))
		img, err := platformImage(spec, p, bin, roots)
		if err != nil {
			return nil, fmt.Errorf("image for %s/%s: %w", p.OS, p.Architecture, err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	idx = mutate.AppendManifests(idx, adds...)
	return mutate.Annotations(idx, spec.Labels()).(v1.ImageIndex), nil
}

// compile builds a static binary: no cgo (the image has no libc), -trimpath and the version
// stamped as the GNUmakefile does, tzdata embedded (the image has no /usr/share/zoneinfo).
func compile(ctx context.Context, spec Spec, p v1.Platform, out string) error {
	pkg := "github.com/tenonhq/terraform-provider-tenon/internal/version"
	ldflags := fmt.Sprintf("-s -w -X %s.version=%s -X %s.commit=%s", pkg, spec.Version, pkg, spec.Commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-tags", "timetzdata", "-ldflags", ldflags, "-o", out, ".")
	cmd.Dir = spec.Module
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture, "GOTOOLCHAIN=local")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s/%s: %w", p.OS, p.Architecture, err)
	}
	return nil
}

// platformImage is the image of one platform: one layer on no base image, the config saying
// how to run it.
func platformImage(spec Spec, p v1.Platform, bin string, roots []byte) (v1.Image, error) {
	binary, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	layer, err := rootLayer(binary, roots, spec.created())
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant = p.OS, p.Architecture, p.Variant
	cfg.Created = v1.Time{Time: spec.created()}
	cfg.Config = v1.Config{
		Entrypoint: []string{BinaryPath},
		User:       User,
		WorkingDir: "/home/nonroot",
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=" + CABundlePath},
		Labels:     spec.Labels(),
	}
	return mutate.ConfigFile(img, cfg)
}
