// Command image builds the agent's container image without Docker: it cross-compiles the tenon
// binary (static, CGO_ENABLED=0, tzdata embedded) for each platform, puts it in one layer with a
// CA bundle, /etc/passwd and a writable /tmp on no base image, and writes a multi-platform OCI
// image index to an OCI layout folder; -push also pushes it to a registry. `make image` runs it:
//
//	go run ./hack/image -version v1.2.3 -commit abc1234 -revision <sha> -created <time> -out dist/image [-push ghcr.io/tenonhq/tenon]
//
// The image runs as 65532:65532 with the entrypoint /usr/local/bin/tenon, so a Deployment's args
// start with the subcommand (agent), and carries the OCI labels source, version and revision.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	var spec Spec
	var platforms, created, push string
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.StringVar(&spec.Version, "version", version.Dev, "semantic version stamped into the binary and naming the image's tag")
	fs.StringVar(&spec.Commit, "commit", "none", "short commit stamped into the binary")
	fs.StringVar(&spec.Revision, "revision", "", "full commit of the org.opencontainers.image.revision label (default -commit)")
	fs.StringVar(&created, "created", "", "RFC 3339 creation time of the image (the commit's time keeps builds reproducible; default the Unix epoch)")
	fs.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "comma-separated os/arch list")
	fs.StringVar(&spec.Module, "module-dir", ".", "the folder of the tenon module to build")
	out := fs.String("out", "dist/image", "OCI layout folder to write (replaced)")
	fs.StringVar(&push, "push", "", "registry/repository to push the image to as :<version>, such as ghcr.io/tenonhq/tenon")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if spec.Revision == "" {
		spec.Revision = spec.Commit
	}
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return fmt.Errorf("-created %q: want RFC 3339 such as 2026-01-05T10:00:00Z", created)
		}
		spec.Created = t.UTC()
	}
	for _, p := range strings.Split(platforms, ",") {
		pl, err := ParsePlatform(p)
		if err != nil {
			return err
		}
		spec.Platforms = append(spec.Platforms, pl)
	}
	start := time.Now()
	idx, err := Build(ctx, spec, os.Stdout)
	if err != nil {
		return err
	}
	if err := WriteLayout(*out, idx, spec.Tag()); err != nil {
		return err
	}
	fmt.Printf("wrote the OCI layout %s (tag %s, %s) in %s\n", *out, spec.Tag(), platforms, time.Since(start).Round(time.Second))
	if push == "" {
		return nil
	}
	ref, err := Push(ctx, idx, push, spec.Tag())
	if err != nil {
		return err
	}
	fmt.Printf("pushed %s\n", ref)
	return nil
}
