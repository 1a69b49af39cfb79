package agent

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/policysync"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
)

// PolicyGitOptions turn on the pull mode: the agent applies the tenon.dev objects of a Git
// path itself, for clusters where no ArgoCD or Flux runs (engine/agent/policysync).
type PolicyGitOptions struct {
	URL      string
	Branch   string
	Path     string
	Interval time.Duration
	// Secret names a Secret in the agent's namespace holding the credentials (keys username,
	// password, token, identity, passphrase, known_hosts); empty means anonymous access.
	Secret string
	// InsecureHTTP lets the Secret's token or password go to an http:// URL.
	InsecureHTTP bool
}

// addFlags registers the --policy-git-* flags.
func (p *PolicyGitOptions) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&p.URL, "policy-git-url", p.URL, "pull mode: apply the tenon.dev objects of this Git repository (https://, ssh://, git@host:path); empty turns it off")
	fs.StringVar(&p.Branch, "policy-git-branch", p.Branch, "pull mode: branch to follow")
	fs.StringVar(&p.Path, "policy-git-path", p.Path, "pull mode: folder of the repository holding the objects (its kustomization.yaml is honoured)")
	fs.DurationVar(&p.Interval, "policy-git-interval", p.Interval, "pull mode: how often to fetch and apply")
	fs.StringVar(&p.Secret, "policy-git-secret", p.Secret, "pull mode: Secret in the agent's namespace with the Git credentials (username/password, token, or identity and known_hosts)")
	fs.BoolVar(&p.InsecureHTTP, "policy-git-insecure-http", p.InsecureHTTP, "pull mode: let the Secret's token or password go to an http:// URL, in clear text (a test server or a trusted network only)")
}

func defaultPolicyGitOptions() PolicyGitOptions {
	return PolicyGitOptions{Branch: gitops.DefaultBranch, Interval: policysync.DefaultInterval}
}

func (p PolicyGitOptions) validate() error {
	if p.URL == "" {
		if p.Secret != "" || p.Path != "" {
			return errors.New("--policy-git-path and --policy-git-secret need --policy-git-url: set the repository URL, or remove them")
		}
		return nil
	}
	var errs []error
	// Credentials in the URL would reach logs and the status ConfigMap:
	// refused even when a Secret is set.
	if err := gitops.CheckURL(p.URL); err != nil {
		errs = append(errs, fmt.Errorf("--policy-git-url: %w", err))
	}
	if p.Interval < time.Second {
		errs = append(errs, fmt.Errorf("--policy-git-interval %s: use 1s or more, for example 30s", p.Interval))
	}
	if _, err := gitops.Open(gitops.Options{URL: p.URL, Branch: p.Branch, Path: p.Path}); err != nil && p.Secret == "" {
		errs = append(errs, fmt.Errorf("--policy-git-url/--policy-git-branch/--policy-git-path: %w", err))
	}
	return errors.Join(errs...)
}

// addPolicySync adds the pull-mode Syncer to mgr when --policy-git-url is set. It runs on the
// leader only, with an uncached client: it reads one Secret and lists only what it labelled.
func addPolicySync(mgr manager.Manager, cfg *rest.Config, scheme *runtime.Scheme, opts Options, log logr.Logger, clk agentClock) error {
	p := opts.PolicyGit
	if p.URL == "" {
		return nil
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("creating the policy sync client: %w", err)
	}
	so := policysync.Options{
		Git:       gitops.Options{URL: p.URL, Branch: p.Branch, Path: p.Path, AllowInsecureHTTP: p.InsecureHTTP},
		Interval:  p.Interval,
		Namespace: opts.LeaderElectNamespace,
		Logger:    log.WithName("policy-sync"),
		Now:       clk.Now,
	}
	if p.Secret != "" {
		so.AuthSecret = &types.NamespacedName{Namespace: opts.LeaderElectNamespace, Name: p.Secret}
	}
	s, err := policysync.New(c, so)
	if err != nil {
		return err
	}
	if err := mgr.Add(s); err != nil {
		return fmt.Errorf("adding the policy sync: %w", err)
	}
	return nil
}
