package gitops

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultBranch      = "main"
	DefaultAuthorName  = "Tenon"
	DefaultAuthorEmail = "tenon@tenon.dev"
	// DefaultMaxAttempts bounds the pushes of one Writer.Apply: the first and the retries after
	// another writer moved the branch.
	DefaultMaxAttempts = 5
	// DefaultTimeout bounds one network operation (fetch or push) when ctx has no deadline.
	DefaultTimeout = 2 * time.Minute
)

// Options say which repository, branch and folder to use, and how.
type Options struct {
	// URL of the remote: https://, http://, ssh://, user@host:path (scp-like SSH), git:// or
	// file://.
	URL string
	// Branch to read and write. Empty means "main".
	Branch string
	// Path is the folder inside the repository holding the policy ("" or "." for the root).
	Path string
	// Auth authenticates to the remote; the zero value is anonymous.
	Auth Auth
	// CacheDir keeps a bare, shallow copy of the branch on disk between runs, in a folder named
	// after the URL and branch. Empty keeps it in memory (tests, one-shot use). A cache folder
	// belongs to one process at a time.
	CacheDir string
	// AuthorName and AuthorEmail sign the Writer's commits. Empty means "Tenon"
	// <tenon@tenon.dev>.
	AuthorName, AuthorEmail string
	// MaxAttempts bounds the pushes of one Writer.Apply. Zero means DefaultMaxAttempts.
	MaxAttempts int
	// Now is the clock for commit times. Nil means time.Now.
	Now func() time.Time
	// AllowInsecureHTTP lets a token or password go to an http:// URL, in
	// clear text: for a test server or a trusted network only. Without it
	// such credentials need https://.
	AllowInsecureHTTP bool
	// TempDir is where the SSH transport writes the known_hosts file it
	// reads host keys from (for as long as Open runs). Empty means CacheDir
	// when set, else the system's temporary folder ($TMPDIR or /tmp): under
	// a read-only root filesystem, point it at a writable volume (the
	// agent's Deployment mounts an emptyDir at /tmp in pull mode).
	TempDir string
}

// withDefaults returns o with its defaults filled in and its fields checked.
func (o Options) withDefaults() (Options, error) {
	var errs []error
	if o.URL == "" {
		errs = append(errs, errors.New("url: set the URL of the Git repository, such as https://github.com/org/policy.git"))
	} else if err := CheckURL(o.URL); err != nil {
		errs = append(errs, err)
	}
	if o.Branch == "" {
		o.Branch = DefaultBranch
	}
	if strings.ContainsAny(o.Branch, " ~^:?*[\\") || strings.HasPrefix(o.Branch, "refs/") || strings.HasPrefix(o.Branch, "-") {
		errs = append(errs, fmt.Errorf("branch: %q is not a branch name; give the short name, such as main", o.Branch))
	}
	p, err := cleanPath(o.Path)
	if err != nil {
		errs = append(errs, err)
	}
	o.Path = p
	if o.AuthorName == "" {
		o.AuthorName = DefaultAuthorName
	}
	if o.AuthorEmail == "" {
		o.AuthorEmail = DefaultAuthorEmail
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TempDir == "" {
		o.TempDir = o.CacheDir
	}
	if err := o.Auth.check(o.URL, o.AllowInsecureHTTP); err != nil {
		errs = append(errs, err)
	}
	return o, errors.Join(errs...)
}

// cleanPath turns a folder inside the repository into the form tree lookups use: no leading or
// trailing slash, "" for the root. It refuses paths that leave the repository or enter .git.
func cleanPath(p string) (string, error) {
	p = strings.TrimPrefix(strings.TrimSpace(p), "/")
	if strings.Contains(p, "\\") {
		return "", fmt.Errorf("path: %q uses backslashes; separate folders with /, such as clusters/prod/tenon", p)
	}
	c := path.Clean(p)
	if c == "." {
		return "", nil
	}
	for _, part := range strings.Split(c, "/") {
		if part == ".." || part == ".git" {
			return "", fmt.Errorf("path: %q is not a folder of the working tree; use a relative path such as clusters/prod/tenon", p)
		}
	}
	return c, nil
}

// CheckURL accepts the URL forms go-git's transports understand, and
// refuses credentials in them: a URL is written into the cache's git config
// and shown in errors, logs, the pull mode's status ConfigMap and the
// agent's arguments, where a secret must never be. Its errors show the URL
// with any user information replaced by *** (RedactURL).
func CheckURL(raw string) error {
	if isSCPLike(raw) {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url: %q is not a URL", RedactURL(raw))
	}
	switch u.Scheme {
	case "https", "http", "git", "file":
		if u.User != nil {
			return fmt.Errorf("url: %q holds credentials (user information before @); remove them from the URL and give them as auth (token, or username and password), which is kept secret", RedactURL(raw))
		}
		return nil
	case "ssh":
		if _, hasPassword := u.User.Password(); hasPassword {
			return fmt.Errorf("url: %q holds a password; remove it (ssh://user@host/... is fine) and authenticate with an SSH key", RedactURL(raw))
		}
		return nil
	case "":
		return fmt.Errorf("url: %q has no scheme; use https://, ssh://, git@host:org/repo.git, git:// or file://", RedactURL(raw))
	default:
		return fmt.Errorf("url: scheme %q of %q is not supported; use https, http, ssh, git or file", u.Scheme, RedactURL(raw))
	}
}

// userInfo finds the user information of a URL with a scheme: what lies
// between :// and the last @ before the path.
var userInfo = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@`)

// RedactURL returns raw with its user information replaced by ***, as in
// https://***@github.com/org/policy.git, unless that is an ssh:// user
// without a password (ssh://git@host/... names a login, no secret). It works
// on strings that do not parse as URLs too, so an error about a malformed
// URL cannot leak what it holds; scp-like addresses (git@host:path) have no
// scheme and come back as they are.
func RedactURL(raw string) string {
	m := userInfo.FindStringSubmatchIndex(raw)
	if m == nil {
		return raw
	}
	scheme, info := raw[m[2]:m[3]], raw[m[4]:m[5]]
	if strings.EqualFold(scheme, "ssh://") && !strings.Contains(info, ":") {
		return raw
	}
	return raw[:m[4]] + "***" + raw[m[5]:]
}

// isSCPLike reports whether raw is an scp-like SSH address such as git@github.com:org/repo.git.
func isSCPLike(raw string) bool {
	if strings.Contains(raw, "://") {
		return false
	}
	at, colon := strings.Index(raw, "@"), strings.Index(raw, ":")
	return colon > 0 && (at < 0 || at < colon) && !strings.HasPrefix(raw, "/")
}

// urlScheme is the transport of a URL: "ssh" for scp-like addresses.
func urlScheme(raw string) string {
	if isSCPLike(raw) {
		return "ssh"
	}
	if u, err := url.Parse(raw); err == nil {
		return u.Scheme
	}
	return ""
}
