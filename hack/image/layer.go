package main

import (
	"archive/tar"
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// CABundlePath is where Go's crypto/x509 looks first for the system's roots on Linux.
const CABundlePath = "/etc/ssl/certs/ca-certificates.crt"

// caBundle returns the Mozilla NSS roots of golang.org/x/crypto/x509roots/fallback, pinned in
// go.mod, as PEM. Roots with a constraint X.509 cannot express (distrust after a date) are left
// out: a PEM file would trust them without it.
func caBundle() ([]byte, error) {
	var b bytes.Buffer
	n := 0
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		if _, err := x509.ParseCertificate(root.Certificate); err != nil {
			return nil, fmt.Errorf("parsing a root of x509roots/fallback: %w", err)
		}
		if err := pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate}); err != nil {
			return nil, err
		}
		n++
	}
	if n < 100 {
		return nil, fmt.Errorf("x509roots/fallback yielded %d unconstrained roots; expected over 100", n)
	}
	return b.Bytes(), nil
}

// entry is one file or folder of the image's layer.
type entry struct {
	name     string
	mode     int64
	uid, gid int
	body     []byte
	dir      bool
}

// nonroot is the user and group of User, named for tools that look them up.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// rootLayer is the image's only layer: the binary, the CA bundle, /etc/passwd and /etc/group
// for the nonroot user, its home and a sticky /tmp. Every entry has the same time, so the same
// binary always gives the same layer digest.
func rootLayer(binary, roots []byte, mtime time.Time) (v1.Layer, error) {
	entries := []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/passwd", mode: 0o644, body: []byte(passwd)},
		{name: "etc/group", mode: 0o644, body: []byte(group)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: CABundlePath[1:], mode: 0o644, body: roots},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, uid: 65532, gid: 65532, dir: true},
		{name: "tmp/", mode: 0o1777, dir: true},
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/local/", mode: 0o755, dir: true},
		{name: "usr/local/bin/", mode: 0o755, dir: true},
		{name: BinaryPath[1:], mode: 0o755, body: binary},
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: mtime, Format: tar.FormatPAX,
			Typeflag: tar.TypeReg, Size: int64(len(e.body))}
		if e.dir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := b.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}
