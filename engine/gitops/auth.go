package gitops

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// DefaultTokenUsername is the user name sent with an access token when Auth.Username is empty;
// GitHub accepts it for any token, GitLab and Gitea accept any non-empty name.
const DefaultTokenUsername = "x-access-token"

// Auth holds the credentials for the remote. Set at most one kind: Token (HTTPS access
// token), Username and Password (HTTPS basic), or SSHPrivateKey with SSHKnownHosts (SSH). The
// zero value is anonymous. Its String method never prints a secret.
type Auth struct {
	// Username is the HTTPS basic-auth user, or the user sent with Token.
	Username string
	// Password is the HTTPS basic-auth password.
	Password string
	// Token is an HTTPS access token, sent as the basic-auth password.
	Token string
	// SSHPrivateKey is a PEM-encoded private key (RSA, ECDSA, Ed25519, OpenSSH format).
	SSHPrivateKey []byte
	// SSHKeyPassphrase decrypts SSHPrivateKey when it is encrypted.
	SSHKeyPassphrase string
	// SSHUser is the SSH login. Empty means the user in the URL, else "git".
	SSHUser string
	// SSHKnownHosts is the content of a known_hosts file holding the server's host key. It is
	// required with SSH: Tenon never trusts an unknown host key.
	SSHKnownHosts []byte
}

// String describes the kind of credentials without their secrets.
func (a Auth) String() string {
	switch {
	case a.Token != "":
		return "token (user " + a.tokenUser() + ")"
	case a.Password != "":
		return "basic (user " + a.Username + ")"
	case len(a.SSHPrivateKey) > 0:
		return "ssh key"
	default:
		return "none"
	}
}

// GoString keeps secrets out of %#v.
func (a Auth) GoString() string { return "gitops.Auth{" + a.String() + "}" }

func (a Auth) tokenUser() string {
	if a.Username != "" {
		return a.Username
	}
	return DefaultTokenUsername
}

func (a Auth) isHTTP() bool { return a.Token != "" || a.Password != "" }
func (a Auth) isSSH() bool {
	return len(a.SSHPrivateKey) > 0 || len(a.SSHKnownHosts) > 0 || a.SSHKeyPassphrase != ""
}

// check reports credentials that cannot work with the URL's transport, and
// a token or password bound for plain http:// unless insecureHTTP allows it.
func (a Auth) check(rawURL string, insecureHTTP bool) error {
	var errs []error
	if a.Token != "" && a.Password != "" {
		errs = append(errs, errors.New("auth: set either token or password, not both"))
	}
	if a.isHTTP() && a.isSSH() {
		errs = append(errs, errors.New("auth: set either HTTPS credentials (token, username/password) or an SSH key, not both"))
	}
	if a.Username != "" && !a.isHTTP() && !a.isSSH() {
		errs = append(errs, errors.New("auth: username is set without a password or token; add one"))
	}
	switch s := urlScheme(rawURL); s {
	case "https", "http":
		if a.isSSH() {
			errs = append(errs, fmt.Errorf("auth: an SSH key does not work with %s URLs; use an ssh:// or git@host:path URL, or a token", s))
		}
		if s == "http" && a.isHTTP() && !insecureHTTP {
			errs = append(errs, errors.New("auth: a token or password would cross http:// in clear text; use an https:// URL, or allow insecure HTTP explicitly (git.allow_insecure_http, --policy-git-insecure-http) for a test server or a trusted network"))
		}
	case "ssh":
		if a.isHTTP() {
			errs = append(errs, errors.New("auth: a token or password does not work with SSH URLs; use an https:// URL, or an SSH key"))
		}
		if len(a.SSHPrivateKey) == 0 {
			errs = append(errs, errors.New("auth: SSH URLs need ssh_private_key (PEM); Tenon does not use an SSH agent"))
		}
		if len(a.SSHKnownHosts) == 0 {
			errs = append(errs, errors.New("auth: SSH URLs need ssh_known_hosts holding the server's host key (ssh-keyscan HOST); Tenon never trusts an unknown host"))
		}
	case "git", "file":
		if a.isHTTP() || a.isSSH() {
			errs = append(errs, fmt.Errorf("auth: %s:// URLs take no credentials; remove auth", s))
		}
	}
	return errors.Join(errs...)
}

// method builds go-git's credentials for the URL; nil means anonymous.
// tempDir is where the SSH transport's known_hosts file goes; empty means
// the system's temporary folder.
func (a Auth) method(rawURL, tempDir string) (transport.AuthMethod, error) {
	switch {
	case a.Token != "":
		return &githttp.BasicAuth{Username: a.tokenUser(), Password: a.Token}, nil
	case a.Password != "":
		return &githttp.BasicAuth{Username: a.Username, Password: a.Password}, nil
	case len(a.SSHPrivateKey) > 0:
		return a.sshMethod(rawURL, tempDir)
	}
	return nil, nil
}

func (a Auth) sshMethod(rawURL, tempDir string) (transport.AuthMethod, error) {
	user := a.SSHUser
	if user == "" {
		user = "git"
		if ep, err := transport.NewEndpoint(rawURL); err == nil && ep.User != "" {
			user = ep.User
		}
	}
	keys, err := gitssh.NewPublicKeys(user, a.SSHPrivateKey, a.SSHKeyPassphrase)
	if err != nil {
		return nil, fmt.Errorf("auth: ssh_private_key: %w (give a PEM private key, and its passphrase if it is encrypted)", err)
	}
	if err := setKnownHosts(keys, a.SSHKnownHosts, tempDir); err != nil {
		return nil, err
	}
	return keys, nil
}

// setKnownHosts makes keys check host keys against known_hosts content. The parser reads
// files, so the content goes through a private temporary file in dir (Options.TempDir; empty
// means the system's temporary folder), removed before returning.
func setKnownHosts(keys *gitssh.PublicKeys, content []byte, dir string) (err error) {
	f, err := os.CreateTemp(dir, "tenon-known-hosts-*")
	if err != nil {
		where := dir
		if where == "" {
			where = os.TempDir()
		}
		return fmt.Errorf("auth: writing known_hosts to a temporary file in %s: %w; give a writable folder (the TempDir option, or TMPDIR), such as an emptyDir volume under a read-only root filesystem", where, err)
	}
	defer func() {
		if rmErr := os.Remove(f.Name()); rmErr != nil && err == nil {
			err = fmt.Errorf("auth: removing temporary known_hosts: %w", rmErr)
		}
	}()
	_, werr := f.Write(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("auth: writing known_hosts to a temporary file: %w", werr)
	}
	keys.HostKeyCallback, err = gitssh.NewKnownHostsCallback(f.Name())
	if err != nil {
		return fmt.Errorf("auth: ssh_known_hosts: %w (give lines as ssh-keyscan prints them)", err)
	}
	return nil
}

// isAuthError reports whether err is the remote refusing the credentials.
func isAuthError(err error) bool {
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "unable to authenticate") || strings.Contains(msg, "knownhosts: key")
}
