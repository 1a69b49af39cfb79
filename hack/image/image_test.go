package main

import (
	"archive/tar"
	"context"
	"crypto/x509"
	"debug/buildinfo"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// imageUnderTest is the image `make image` wrote (TENON_IMAGE_LAYOUT, as `make test` sets it),
// or, without it, one this test builds for both platforms.
func imageUnderTest(t *testing.T) (v1.ImageIndex, string) {
	t.Helper()
	if dir := os.Getenv("TENON_IMAGE_LAYOUT"); dir != "" {
		idx, tag, err := ReadLayout(dir)
		if err != nil {
			t.Fatalf("%v (run `make image`, or unset TENON_IMAGE_LAYOUT to build one here)", err)
		}
		return idx, tag
	}
	if testing.Short() {
		t.Skip("SKIPPED under -short: building the image cross-compiles tenon twice; `make image` then TENON_IMAGE_LAYOUT=dist/image tests that one")
	}
	amd64, _ := ParsePlatform("linux/amd64")
	arm64, _ := ParsePlatform("linux/arm64")
	spec := Spec{Version: "v0.0.0-imagetest", Commit: "abc1234", Revision: "abc1234", Module: "../..", Platforms: []v1.Platform{amd64, arm64}}
	idx, err := Build(context.Background(), spec, io.Discard)
	if err != nil {
		t.Fatalf("building the image: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "image")
	if err := WriteLayout(dir, idx, spec.Tag()); err != nil {
		t.Fatal(err)
	}
	idx, tag, err := ReadLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	return idx, tag
}

// TestImagePushPullAndRun pushes the image to a registry on 127.0.0.1, pulls it back, checks
// each platform's config and runs the amd64 binary it holds.
func TestImagePushPullAndRun(t *testing.T) {
	idx, tag := imageUnderTest(t)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	repo := strings.TrimPrefix(srv.URL, "http://") + "/tenonhq/tenon"
	ctx := context.Background()
	pushed, err := Push(ctx, idx, repo, tag)
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := remote.Index(pushed, remote.WithContext(ctx))
	if err != nil {
		t.Fatalf("pulling %s: %v", pushed, err)
	}
	if want, got := mustDigest(t, idx), mustDigest(t, pulled); want != got {
		t.Errorf("pulled index %s, pushed %s", got, want)
	}
	m, err := pulled.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s, want %s", m.MediaType, types.OCIImageIndex)
	}
	var platforms []string
	var amd64 v1.Image
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.String())
		img, err := pulled.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkConfig(t, img, *d.Platform, tag)
		if d.Platform.Architecture == "amd64" {
			amd64 = img
		}
	}
	slices.Sort(platforms)
	if want := []string{"linux/amd64", "linux/arm64/v8"}; !slices.Equal(platforms, want) {
		t.Fatalf("platforms %v, want %v", platforms, want)
	}
	bin := extract(t, amd64)
	checkStatic(t, bin)
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("tenon version: %v\n%s", err, out)
	}
	version := labels(t, amd64)["org.opencontainers.image.version"]
	if !strings.HasPrefix(string(out), "tenon "+version+" ") || !strings.Contains(string(out), "agent image: ghcr.io/tenonhq/tenon:"+tag) {
		t.Errorf("tenon version printed %q; want tenon %s and the image tag %s", out, version, tag)
	}
}

func mustDigest(t *testing.T, idx v1.ImageIndex) v1.Hash {
	t.Helper()
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func labels(t *testing.T, img v1.Image) map[string]string {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Config.Labels
}

func checkConfig(t *testing.T, img v1.Image, p v1.Platform, tag string) {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != p.OS || cfg.Architecture != p.Architecture {
		t.Errorf("%s: config says %s/%s", p, cfg.OS, cfg.Architecture)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{BinaryPath}) || cfg.Config.User != User {
		t.Errorf("%s: entrypoint %v user %q, want [%s] %q", p, cfg.Config.Entrypoint, cfg.Config.User, BinaryPath, User)
	}
	l := cfg.Config.Labels
	if l["org.opencontainers.image.source"] != Source || l["org.opencontainers.image.revision"] == "" ||
		l["org.opencontainers.image.version"] == "" || strings.ReplaceAll(l["org.opencontainers.image.version"], "+", "-") != tag {
		t.Errorf("%s: labels %v; want source %s, a revision and the version of tag %s", p, l, Source, tag)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%s: %d layers (%v); want one, on no base image", p, len(layers), err)
	}
}

// extract writes the image's binary to a temporary file, checking the CA bundle beside it.
func extract(t *testing.T, img v1.Image) string {
	t.Helper()
	layers, _ := img.Layers()
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	bin := filepath.Join(t.TempDir(), "tenon")
	tr := tar.NewReader(rc)
	found := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		found["/"+h.Name] = true
		switch "/" + h.Name {
		case BinaryPath:
			data, _ := io.ReadAll(tr)
			if err := os.WriteFile(bin, data, 0o755); err != nil {
				t.Fatal(err)
			}
		case CABundlePath:
			data, _ := io.ReadAll(tr)
			if !x509.NewCertPool().AppendCertsFromPEM(data) || strings.Count(string(data), "BEGIN CERTIFICATE") < 100 {
				t.Errorf("%s holds no usable CA bundle", CABundlePath)
			}
		}
	}
	for _, want := range []string{BinaryPath, CABundlePath, "/etc/passwd", "/tmp/"} {
		if !found[want] {
			t.Errorf("the layer has no %s", want)
		}
	}
	return bin
}

// checkStatic reads the binary's build settings: no cgo, tzdata embedded, built for amd64.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" || settings["-tags"] != "timetzdata" || settings["GOARCH"] != "amd64" || settings["-trimpath"] != "true" {
		t.Errorf("build settings %v; want CGO_ENABLED=0, -tags=timetzdata, -trimpath, GOARCH=amd64", settings)
	}
}

func TestParsePlatform(t *testing.T) {
	if p, err := ParsePlatform("linux/arm64"); err != nil || p.String() != "linux/arm64/v8" {
		t.Errorf("linux/arm64: %v %v", p, err)
	}
	for _, bad := range []string{"linux", "windows/amd64", "linux/386"} {
		if _, err := ParsePlatform(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPushNamesTheRepositoryAndTag(t *testing.T) {
	if _, err := name.NewTag("Bad Repo:v1"); err == nil {
		t.Skip("name parsing accepts spaces")
	}
	if _, err := Push(context.Background(), nil, "Bad Repo", "v1"); err == nil || !strings.Contains(err.Error(), "image name") {
		t.Errorf("a bad repository: %v", err)
	}
}
