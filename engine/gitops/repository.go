package gitops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
)

const remoteName = "origin"

// Repository is a shallow, bare copy of one branch of a remote, kept on disk under
// Options.CacheDir or in memory. Reader and Writer share one; its methods are safe for
// concurrent use and serialise on the copy.
type Repository struct {
	opts Options
	auth transport.AuthMethod
	mu   sync.Mutex
	repo *git.Repository
	st   storage.Storer
	// beforePush, when set by a test, runs before each push, to let another writer win a race.
	beforePush func()
}

// Open checks opts and opens (or creates) the local copy. It does not touch the network.
func Open(opts Options) (*Repository, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("git repository options: %w", err)
	}
	auth, err := opts.Auth.method(opts.URL, opts.TempDir)
	if err != nil {
		return nil, err
	}
	var st storage.Storer
	if opts.CacheDir == "" {
		st = memory.NewStorage()
	} else {
		dir := filepath.Join(opts.CacheDir, cacheName(opts.URL, opts.Branch))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating the git cache folder: %w", err)
		}
		st = filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault())
	}
	repo, err := git.Open(st, nil)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		repo, err = git.Init(st, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the git cache: %w", err)
	}
	if err := setRemote(repo, opts.URL); err != nil {
		return nil, err
	}
	return &Repository{opts: opts, auth: auth, repo: repo, st: st}, nil
}

// Options returns the options in effect, defaults filled in.
func (r *Repository) Options() Options { return r.opts }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// cacheName names a cache folder after the URL and branch: readable, and unique by a hash.
func cacheName(url, branch string) string {
	sum := sha256.Sum256([]byte(url + "\x00" + branch))
	base := unsafeName.ReplaceAllString(filepath.Base(url), "_")
	return base + "-" + hex.EncodeToString(sum[:6])
}

func setRemote(repo *git.Repository, url string) error {
	if rem, err := repo.Remote(remoteName); err == nil {
		if urls := rem.Config().URLs; len(urls) == 1 && urls[0] == url {
			return nil
		}
		if err := repo.DeleteRemote(remoteName); err != nil {
			return fmt.Errorf("resetting the git cache's remote: %w", err)
		}
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: remoteName, URLs: []string{url}}); err != nil {
		return fmt.Errorf("configuring the git cache's remote: %w", err)
	}
	return nil
}

func (r *Repository) remoteRef() plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName(remoteName, r.opts.Branch)
}

func (r *Repository) branchRef() plumbing.ReferenceName {
	return plumbing.NewBranchReferenceName(r.opts.Branch)
}

// AuthError is the remote refusing the credentials, or the SSH host key not being known.
type AuthError struct {
	URL  string
	Auth string
	Err  error
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("authenticating to %s with %s credentials: %v; check auth (token, username/password or SSH key and known_hosts) and that they may access the repository", RedactURL(e.URL), e.Auth, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

// IsAuthError reports whether err is, or wraps, an *AuthError.
func IsAuthError(err error) bool {
	var ae *AuthError
	return errors.As(err, &ae)
}

func (r *Repository) wrapRemoteErr(op string, err error) error {
	if isAuthError(err) {
		return &AuthError{URL: r.opts.URL, Auth: r.opts.Auth.String(), Err: err}
	}
	return fmt.Errorf("%s %s (branch %s): %w", op, RedactURL(r.opts.URL), r.opts.Branch, err)
}

// fetch brings the branch's head into the local copy, with depth 1, following force-pushes,
// and returns it; the zero hash means the remote has no such branch (or no commits at all).
// The caller holds r.mu.
func (r *Repository) fetch(ctx context.Context) (plumbing.Hash, error) {
	ctx, cancel := withDefaultTimeout(ctx)
	defer cancel()
	spec := config.RefSpec(fmt.Sprintf("+%s:%s", r.branchRef(), r.remoteRef()))
	err := r.repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: remoteName,
		RefSpecs:   []config.RefSpec{spec},
		Depth:      1,
		Auth:       r.auth,
		Tags:       git.NoTags,
		Force:      true,
	})
	var noMatch git.NoMatchingRefSpecError
	switch {
	case err == nil || errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository) || errors.As(err, &noMatch):
		if rmErr := r.st.RemoveReference(r.remoteRef()); rmErr != nil {
			return plumbing.ZeroHash, fmt.Errorf("forgetting the deleted branch %s: %w", r.opts.Branch, rmErr)
		}
		return plumbing.ZeroHash, nil
	default:
		return plumbing.ZeroHash, r.wrapRemoteErr("fetching", err)
	}
	ref, err := r.repo.Reference(r.remoteRef(), true)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolving %s after fetching: %w", r.remoteRef(), err)
	}
	return ref.Hash(), nil
}

func withDefaultTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, DefaultTimeout)
}
