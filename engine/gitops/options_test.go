package gitops

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestOptionsChecked(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"minimal https", Options{URL: "https://example.com/org/policy.git"}, ""},
		{"scp-like ssh needs a key", Options{URL: "git@example.com:org/policy.git"}, "need ssh_private_key"},
		{"ssh needs known_hosts", Options{URL: "ssh://git@example.com/org/policy.git", Auth: Auth{SSHPrivateKey: []byte("k")}}, "need ssh_known_hosts"},
		{"no url", Options{}, "url: set the URL"},
		{"bad scheme", Options{URL: "ftp://example.com/x"}, `scheme "ftp"`},
		{"no scheme", Options{URL: "example.com/x"}, "has no scheme"},
		{"branch as ref", Options{URL: "https://h/x", Branch: "refs/heads/main"}, "give the short name"},
		{"path leaves repo", Options{URL: "https://h/x", Path: "../x"}, "not a folder of the working tree"},
		{"path into .git", Options{URL: "https://h/x", Path: "a/.git/b"}, "not a folder of the working tree"},
		{"token and password", Options{URL: "https://h/x", Auth: Auth{Token: "t", Password: "p"}}, "either token or password"},
		{"token over ssh", Options{URL: "ssh://h/x", Auth: Auth{Token: "t"}}, "does not work with SSH URLs"},
		{"key over https", Options{URL: "https://h/x", Auth: Auth{SSHPrivateKey: []byte("k"), SSHKnownHosts: []byte("h")}}, "does not work with https URLs"},
		{"credentials on git://", Options{URL: "git://h/x", Auth: Auth{Username: "u", Password: "p"}}, "take no credentials"},
		{"username alone", Options{URL: "https://h/x", Auth: Auth{Username: "u"}}, "without a password or token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.opts.withDefaults()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{"": "", ".": "", "/": "", "a/b/": "a/b", "/a//b": "a/b", "./a/./b": "a/b"} {
		if got, err := cleanPath(in); err != nil || got != want {
			t.Errorf("cleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestAuthStringHidesSecrets(t *testing.T) {
	a := Auth{Username: "u", Password: "hunter2", Token: "tok-123", SSHPrivateKey: []byte("KEY"), SSHKeyPassphrase: "pp"}
	for _, s := range []string{a.String(), a.GoString()} {
		for _, secret := range []string{"hunter2", "tok-123", "KEY", "pp"} {
			if strings.Contains(s, secret) {
				t.Errorf("%q shows secret %q", s, secret)
			}
		}
	}
}

// TestSSHAuth builds SSH credentials from a generated key and known_hosts, and refuses a key
// that is not PEM.
func TestSSHAuth(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	knownHosts := []byte("example.com " + string(ssh.MarshalAuthorizedKey(sshPub)))
	url := "git@example.com:org/policy.git"
	m, err := Auth{SSHPrivateKey: pem.EncodeToMemory(block), SSHKnownHosts: knownHosts}.method(url, "")
	if err != nil {
		t.Fatalf("method: %v", err)
	}
	if m.Name() != "ssh-public-keys" || !strings.Contains(m.String(), "user: git") {
		t.Errorf("auth method = %s (%s), want public keys for user git", m.Name(), m)
	}
	if _, err := (Auth{SSHPrivateKey: []byte("not a key"), SSHKnownHosts: knownHosts}).method(url, ""); err == nil || !strings.Contains(err.Error(), "ssh_private_key") {
		t.Errorf("bad key error = %v, want one naming ssh_private_key", err)
	}
}

// TestRedactURL: the user information of a URL is hidden, even in strings
// that do not parse.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@h/x":               "https://***@h/x",
		"https://tok@h/x?q=1":           "https://***@h/x?q=1",
		"https://u:p@h:port:bad/x":      "https://***@h:port:bad/x",
		"ssh://git@h/x":                 "ssh://git@h/x",
		"ssh://git:pw@h/x":              "ssh://***@h/x",
		"git@github.com:org/policy.git": "git@github.com:org/policy.git",
		"https://h/x@y":                 "https://h/x@y",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoginInURLAccepted: a user name without a secret is no credential.
func TestLoginInURLAccepted(t *testing.T) {
	for _, url := range []string{"ssh://git@github.com/org/policy.git", "git@github.com:org/policy.git"} {
		if err := CheckURL(url); err != nil {
			t.Errorf("%s: %v", url, err)
		}
	}
}

// TestAllowInsecureHTTP: credentials go to http:// only when allowed, and
// to https:// always.
func TestAllowInsecureHTTP(t *testing.T) {
	for _, auth := range []Auth{{Token: "t"}, {Username: "u", Password: "p"}} {
		opts := Options{URL: "http://git.example.com/policy.git", Auth: auth, AllowInsecureHTTP: true}
		if _, err := opts.withDefaults(); err != nil {
			t.Errorf("%s over http:// with AllowInsecureHTTP: %v", auth, err)
		}
		opts = Options{URL: "https://git.example.com/policy.git", Auth: auth}
		if _, err := opts.withDefaults(); err != nil {
			t.Errorf("%s over https://: %v", auth, err)
		}
	}
	if _, err := (Options{URL: "http://git.example.com/policy.git"}).withDefaults(); err != nil {
		t.Errorf("anonymous http://: %v", err)
	}
}
