package gitops

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestCredentialsInURLRefused: https://user:token@host used to be accepted,
// then written into the cache's git config and shown in errors, logs, the
// pull mode's status ConfigMap and the Deployment's arguments. It is refused,
// and the refusal does not print the secret.
func TestCredentialsInURLRefused(t *testing.T) {
	for _, url := range []string{
		"https://user:s3cret-token@github.com/org/policy.git",
		"https://s3cret-token@github.com/org/policy.git",
		"http://x-access-token:s3cret-token@git.example.com/policy.git",
		"ssh://git:s3cret-token@github.com/org/policy.git",
		"https://user:s3cret-token@host:notaport/x",
	} {
		_, err := Open(Options{URL: url, CacheDir: t.TempDir()})
		if err == nil {
			t.Errorf("%s: accepted", url)
			continue
		}
		if strings.Contains(err.Error(), "s3cret-token") || !strings.Contains(err.Error(), "***") {
			t.Errorf("%s: error %q shows the secret or does not redact the URL", url, err)
		}
	}
}

// TestTokenOverPlainHTTPRefused: a token or password used to be sent to an
// http:// URL without a word; it needs https:// (or AllowInsecureHTTP, see
// TestAllowInsecureHTTP).
func TestTokenOverPlainHTTPRefused(t *testing.T) {
	for _, auth := range []Auth{{Token: "t"}, {Username: "u", Password: "p"}} {
		opts := Options{URL: "http://git.example.com/policy.git", Auth: auth}
		if _, err := opts.withDefaults(); err == nil || !strings.Contains(err.Error(), "clear text") {
			t.Errorf("%s over http://: err = %v", auth, err)
		}
	}
}

// TestSSHKnownHostsUnderReadOnlyRoot: the SSH transport's known_hosts file
// used to go to os.CreateTemp(""), which a read-only root filesystem
// refuses (TMPDIR stands for it here: a path that is no folder); it goes to
// the folder the options give (CacheDir, or TempDir).
func TestSSHKnownHostsUnderReadOnlyRoot(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", notADir)
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
	auth := Auth{SSHPrivateKey: pem.EncodeToMemory(block), SSHKnownHosts: []byte("example.com " + string(ssh.MarshalAuthorizedKey(sshPub)))}
	writable := t.TempDir()
	if _, err := Open(Options{URL: "git@example.com:org/policy.git", Auth: auth, CacheDir: writable}); err != nil {
		t.Errorf("with a writable cache folder: %v", err)
	}
	if _, err := Open(Options{URL: "git@example.com:org/policy.git", Auth: auth}); err == nil || !strings.Contains(err.Error(), notADir) {
		t.Errorf("with no writable folder: err = %v, want one naming %s", err, notADir)
	}
	entries, err := os.ReadDir(writable)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tenon-known-hosts-") {
			t.Errorf("known_hosts file %s left behind", e.Name())
		}
	}
}
