package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// refNameAnnotation names the tag of an image in an OCI layout's index.json.
const refNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout replaces dir with an OCI layout holding idx, named tag.
func WriteLayout(dir string, idx v1.ImageIndex, tag string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("creating the OCI layout %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameAnnotation: tag})); err != nil {
		return fmt.Errorf("writing the image to %s: %w", dir, err)
	}
	return nil
}

// ReadLayout returns the image index an OCI layout written by WriteLayout holds, and its tag.
func ReadLayout(dir string) (v1.ImageIndex, string, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, "", fmt.Errorf("reading the OCI layout %s: %w", dir, err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		return nil, "", err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, "", err
	}
	if len(m.Manifests) != 1 {
		return nil, "", fmt.Errorf("the OCI layout %s holds %d images; want the one `make image` writes", dir, len(m.Manifests))
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		return nil, "", errors.Join(fmt.Errorf("the OCI layout %s does not hold a multi-platform index", dir), err)
	}
	return idx, m.Manifests[0].Annotations[refNameAnnotation], nil
}

// Push pushes idx to repository:tag with the credentials of the Docker config
// (~/.docker/config.json, credential helpers), and returns the reference pushed. A registry on
// localhost or 127.0.0.1 is spoken to over plain HTTP.
func Push(ctx context.Context, idx v1.ImageIndex, repository, tag string) (name.Reference, error) {
	ref, err := name.NewTag(repository + ":" + tag)
	if err != nil {
		return nil, fmt.Errorf("image name %s:%s: %w", repository, tag, err)
	}
	if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return nil, fmt.Errorf("pushing %s: %w", ref, err)
	}
	return ref, nil
}
