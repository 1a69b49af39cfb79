package agent

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestPolicyGitFlags(t *testing.T) {
	o, err := ParseFlags([]string{"--cluster-name=dev", "--policy-git-url=https://git.example.com/org/policy.git",
		"--policy-git-branch=prod", "--policy-git-path=clusters/prod/tenon", "--policy-git-interval=45s", "--policy-git-secret=git-auth"}, io.Discard)
	if err != nil {
		t.Fatalf("ParseFlags: %v", err)
	}
	want := PolicyGitOptions{URL: "https://git.example.com/org/policy.git", Branch: "prod", Path: "clusters/prod/tenon", Interval: 45 * time.Second, Secret: "git-auth"}
	if o.PolicyGit != want {
		t.Errorf("PolicyGit = %+v, want %+v", o.PolicyGit, want)
	}
	o, err = ParseFlags([]string{"--cluster-name=dev"}, io.Discard)
	if err != nil || o.PolicyGit.URL != "" || o.PolicyGit.Branch != "main" || o.PolicyGit.Interval != 30*time.Second {
		t.Errorf("defaults = %+v, %v; want pull mode off, branch main, interval 30s", o.PolicyGit, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy-git-path=x"}, "need --policy-git-url"},
		{[]string{"--policy-git-url=https://h/x", "--policy-git-interval=10ms"}, "--policy-git-interval 10ms"},
		{[]string{"--policy-git-url=ftp://h/x"}, `scheme "ftp"`},
		{[]string{"--policy-git-url=https://h/x", "--policy-git-path=../up"}, "not a folder of the working tree"},
		{[]string{"--policy-git-url=http://h/x", "--policy-git-insecure-http=nope"}, "invalid boolean value"},
	} {
		_, err := ParseFlags(append([]string{"--cluster-name=dev"}, tc.args...), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFlags(%v) error = %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// TestPolicyGitURLWithCredentialsRefused: with --policy-git-secret set, a
// URL holding credentials used to pass the flag checks and reach the logs
// and the status ConfigMap.
func TestPolicyGitURLWithCredentialsRefused(t *testing.T) {
	for _, secret := range []string{"", "--policy-git-secret=git-auth"} {
		args := []string{"--cluster-name=dev", "--policy-git-url=https://user:s3cret@git.example.com/org/policy.git"}
		if secret != "" {
			args = append(args, secret)
		}
		_, err := ParseFlags(args, io.Discard)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%v: error = %v, want the URL refused without its secret", args, err)
		}
	}
	o, err := ParseFlags([]string{"--cluster-name=dev", "--policy-git-url=http://git.internal/policy.git", "--policy-git-insecure-http"}, io.Discard)
	if err != nil || !o.PolicyGit.InsecureHTTP {
		t.Errorf("--policy-git-insecure-http: %+v, %v", o.PolicyGit, err)
	}
}
