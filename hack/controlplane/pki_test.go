package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"slices"
	"testing"
)

func TestPKI(t *testing.T) {
	p, err := newPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(readCert(t, p.CACert))

	serving := readCert(t, p.ServingCert)
	if _, err := serving.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("the serving certificate does not verify for 127.0.0.1: %v", err)
	}
	if !slices.ContainsFunc(serving.IPAddresses, func(ip net.IP) bool { return ip.Equal(net.ParseIP(serviceIP)) }) {
		t.Errorf("the serving certificate lacks the kubernetes Service IP %s: %v", serviceIP, serving.IPAddresses)
	}
	admin := readCert(t, p.AdminCert)
	if _, err := admin.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the admin certificate does not verify as a client: %v", err)
	}
	if !slices.Equal(admin.Subject.Organization, []string{"system:masters"}) {
		t.Errorf("the admin certificate is in groups %v, want system:masters", admin.Subject.Organization)
	}
	for _, pair := range [][2]string{{p.ServingCert, p.ServingKey}, {p.AdminCert, p.AdminKey}} {
		if _, err := tls.LoadX509KeyPair(pair[0], pair[1]); err != nil {
			t.Errorf("%s and %s are not a key pair: %v", pair[0], pair[1], err)
		}
	}
	for _, f := range []string{p.AdminKey, p.ServingKey, p.SAKey} {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, info.Mode().Perm())
		}
	}
}

func readCert(t *testing.T, file string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s holds no PEM block", file)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
