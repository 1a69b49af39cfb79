package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder is a testing.TB that records how RequireTofu ends the test instead of ending it.
type recorder struct {
	testing.TB
	ended string // "skip", "fail" or "" (returned)
	msg   string
}

func (r *recorder) Skip(args ...any) { r.end("skip", fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any) {
	r.end("skip", fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.end("fail", fmt.Sprintf(format, args...))
}

func (r *recorder) end(how, msg string) {
	r.ended, r.msg = how, msg
	runtime.Goexit()
}

// require runs RequireTofu with a recorder, as a test would.
func require(t *testing.T, kind Kind) (*recorder, string) {
	r := &recorder{TB: t}
	var tofu string
	done := make(chan struct{})
	go func() {
		defer close(done)
		tofu = RequireTofu(r, kind)
	}()
	<-done
	return r, tofu
}

func TestRequireTofu(t *testing.T) {
	if testing.Short() {
		t.Skip("RequireTofu skips every test under -short")
	}
	empty, withTofu := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withTofu, "tofu"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir() // no go.mod above it: BinDir falls back to bin/, which has no tofu
	for _, c := range []struct {
		name    string
		testbin string // "" leaves TENON_TESTBIN unset
		kind    Kind
		want    string
	}{
		{"found", withTofu, CLITest, ""},
		{"CLI test, nothing built", "", CLITest, "skip"},
		{"CLI test, TENON_TESTBIN lacks tofu", empty, CLITest, "fail"},
		{"acceptance test, nothing built", "", AcceptanceTest, "fail"},
		{"acceptance test, TENON_TESTBIN lacks tofu", empty, AcceptanceTest, "fail"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TF_ACC_TERRAFORM_PATH", "")
			t.Setenv("TF_ACC_PROVIDER_HOST", "")
			t.Setenv("TENON_TESTBIN", c.testbin)
			if c.testbin == "" {
				os.Unsetenv("TENON_TESTBIN") // t.Setenv restores it after the test
				t.Chdir(outside)
			}
			r, tofu := require(t, c.kind)
			if r.ended != c.want {
				t.Fatalf("RequireTofu ended the test with %q (%s), want %q", r.ended, r.msg, c.want)
			}
			if c.want != "" {
				return
			}
			if want := filepath.Join(c.testbin, "tofu"); tofu != want || os.Getenv("TF_ACC_TERRAFORM_PATH") != want {
				t.Errorf("RequireTofu = %q, TF_ACC_TERRAFORM_PATH = %q; want %q for both", tofu, os.Getenv("TF_ACC_TERRAFORM_PATH"), want)
			}
			if got := os.Getenv("TF_ACC_PROVIDER_HOST"); got != "registry.opentofu.org" {
				t.Errorf("TF_ACC_PROVIDER_HOST = %q, want registry.opentofu.org", got)
			}
			if data, err := os.ReadFile(os.Getenv("TF_CLI_CONFIG_FILE")); err != nil || len(data) == 0 {
				t.Errorf("TF_CLI_CONFIG_FILE names no CLI configuration of the test's own: %q, %v", data, err)
			}
		})
	}
}
