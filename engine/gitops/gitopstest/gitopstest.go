// Package gitopstest runs real git servers on 127.0.0.1 for tests: `git daemon` with
// receive-pack enabled for git:// URLs, and `git http-backend` behind net/http/cgi with basic
// auth for http:// URLs. It also edits repositories with the git CLI, as a person would (hand
// commits, force-pushes), so tests see what another Git client does. Every server stops in
// t.Cleanup, by PID.
package gitopstest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// User and Password are the credentials the HTTP server accepts.
const (
	User     = "tenon"
	Password = "s3cret-password"
)

// RequireGit returns the path of the git binary. Under -short it skips the test, loudly; when
// git is missing it fails the test if TENON_TESTBIN is set (make test, CI) and skips otherwise.
func RequireGit(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIPPED: -short was given and this test needs a real git server (the git CLI)")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("TENON_TESTBIN") != "" {
			t.Fatalf("git is not installed; `make testbin` installs it (Debian package git): %v", err)
		}
		t.Skipf("SKIPPED: git is not installed (make testbin installs it): %v", err)
	}
	return git
}

// Server is a folder of bare repositories served over git:// and http://.
type Server struct {
	t    testing.TB
	git  string
	Root string
	// GitBase is git://127.0.0.1:PORT, HTTPBase is http://127.0.0.1:PORT (basic auth).
	GitBase, HTTPBase string
}

// Start starts git daemon and an HTTP git server on free 127.0.0.1 ports, both stopped in
// t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, git: RequireGit(t), Root: t.TempDir()}
	s.startDaemon()
	s.startHTTP()
	return s
}

// GitURL is the git:// URL of repository name.
func (s *Server) GitURL(name string) string { return s.GitBase + "/" + name + ".git" }

// HTTPURL is the http:// URL of repository name.
func (s *Server) HTTPURL(name string) string { return s.HTTPBase + "/" + name + ".git" }

// Dir is the folder of bare repository name.
func (s *Server) Dir(name string) string { return filepath.Join(s.Root, name+".git") }

func (s *Server) startDaemon() {
	t := s.t
	port := freePort(t)
	cmd := exec.Command(s.git, "daemon", "--reuseaddr", "--listen=127.0.0.1", "--port="+strconv.Itoa(port),
		"--base-path="+s.Root, "--export-all", "--enable=receive-pack", "--informative-errors", s.Root)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting git daemon: %v", err)
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = killGroup(pid)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("git daemon (pid %d) did not exit after SIGKILL", pid)
		}
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			break
		}
		select {
		case <-done:
			t.Fatalf("git daemon exited: %s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("git daemon is not listening on %s after 15s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.GitBase = "git://" + addr
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

func (s *Server) startHTTP() {
	t := s.t
	execPath := strings.TrimSpace(s.run("", "--exec-path"))
	backend := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != User || pass != Password {
			w.Header().Set("WWW-Authenticate", `Basic realm="tenon-test"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		// http-backend allows pushes from authenticated users: those with REMOTE_USER set.
		r.Header.Del("Remote-User")
		h := *backend
		h.Env = append(append([]string(nil), backend.Env...), "REMOTE_USER="+user)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.HTTPBase = srv.URL
}

// NewRepo creates an empty bare repository whose default branch is main and which refuses
// non-fast-forward pushes, as protected branches do.
func (s *Server) NewRepo(name string) {
	s.t.Helper()
	dir := s.Dir(name)
	s.run("", "init", "--bare", "--initial-branch=main", dir)
	s.run(dir, "config", "receive.denyNonFastForwards", "true")
	s.run(dir, "config", "http.receivepack", "true")
}

// Commit commits files (path -> content; an empty content deletes the file) to branch of
// repository name with the git CLI, as a person would, and returns the new commit's hash.
func (s *Server) Commit(name, branch, message string, files map[string]string) string {
	t := s.t
	t.Helper()
	work := t.TempDir()
	s.run("", "clone", "--quiet", s.Dir(name), work)
	if s.tryRun(work, "rev-parse", "--verify", "--quiet", "origin/"+branch) == nil {
		s.run(work, "checkout", "--quiet", "-B", branch, "origin/"+branch)
	} else {
		s.run(work, "checkout", "--quiet", "--orphan", branch)
	}
	for p, content := range files {
		full := filepath.Join(work, filepath.FromSlash(p))
		if content == "" {
			s.run(work, "rm", "--quiet", "-f", p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		s.run(work, "add", p)
	}
	s.run(work, "-c", "user.name=Hand Editor", "-c", "user.email=hand@example.com", "commit", "--quiet", "-m", message)
	s.run(work, "push", "--quiet", "origin", branch)
	return strings.TrimSpace(s.run(work, "rev-parse", "HEAD"))
}

// ForceBranch moves branch of repository name to commit, as a force-push does.
func (s *Server) ForceBranch(name, branch, commit string) {
	s.t.Helper()
	s.run(s.Dir(name), "update-ref", "refs/heads/"+branch, commit)
}

// Head returns the commit branch points at.
func (s *Server) Head(name, branch string) string {
	s.t.Helper()
	return strings.TrimSpace(s.run(s.Dir(name), "rev-parse", "refs/heads/"+branch))
}

// Git runs git in repository name and returns its output, for checks (log, show, ls-tree).
func (s *Server) Git(name string, args ...string) string {
	s.t.Helper()
	return s.run(s.Dir(name), args...)
}

func (s *Server) run(dir string, args ...string) string {
	s.t.Helper()
	out, err := s.output(dir, args...)
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (s *Server) tryRun(dir string, args ...string) error {
	_, err := s.output(dir, args...)
	return err
}

func (s *Server) output(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.git, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+s.Root, "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%w", err)
	}
	return string(out), nil
}
