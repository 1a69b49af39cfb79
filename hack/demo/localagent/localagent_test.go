package localagent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestLocalArgsKeepTheDeploymentsFlags(t *testing.T) {
	in := []string{"agent", "--cloud=kwok", "--metrics-addr=:8080", "--health-addr=:8081", "--leader-elect=true"}
	got := LocalArgs(in, "/k", "127.0.0.1:1", "127.0.0.1:2")
	want := []string{"agent", "--cloud=kwok", "--metrics-addr=127.0.0.1:1", "--health-addr=127.0.0.1:2", "--leader-elect=true", "--kubeconfig=/k"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestImpersonatingKubeconfig(t *testing.T) {
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin")
	if err := os.WriteFile(admin, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "agent")
	if err := WriteImpersonatingKubeconfig(admin, out, "tenon-system"); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Impersonate.UserName != "system:serviceaccount:tenon-system:tenon" || !slices.Contains(cfg.Impersonate.Groups, "system:serviceaccounts:tenon-system") {
		t.Fatalf("impersonation %+v", cfg.Impersonate)
	}
}
